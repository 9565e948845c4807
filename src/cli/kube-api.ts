import { writeCliError } from './cli-error.ts';
import { createLogger } from '../log.ts';
import { type CliContext, EXIT } from './context.ts';
import { isDnsLabel } from '../objects/dns-names.ts';
import { emulatorFor } from './emulator.ts';
import { parseCommandFlags, parsePort, untilAborted } from './flags.ts';
import { formatHelp } from './help-format.ts';

const HELP = formatHelp({
  usage: 'mooring kube-api [flags]',
  summary:
    'Serves a sandbox Kubernetes API server (HTTPS, real semantics) for trying and testing mooring, until Ctrl-C.',
  flags: [
    { left: '--host <address>', description: 'address to listen on; default 127.0.0.1' },
    { left: '--port <port>', description: 'TCP port; 0 picks a free one; default 0' },
    {
      left: '--kubeconfig-out <file>',
      description: 'write a kubeconfig for the server to this file; default none',
    },
    {
      left: '--namespaces <list>',
      description: 'comma list of namespaces to create at start, besides default; default none',
    },
    {
      left: '--rollout-delay-ms <ms>',
      description:
        'simulated controller: milliseconds until a Deployment or StatefulSet is available; default 0',
    },
  ],
});

/** `mooring kube-api`: serves the sandbox API until Ctrl-C. */
export async function kubeApi(argv: string[], ctx: CliContext): Promise<number> {
  const values = parseCommandFlags(
    'kube-api',
    argv,
    {
      host: { type: 'string' },
      port: { type: 'string' },
      'kubeconfig-out': { type: 'string' },
      namespaces: { type: 'string' },
      'rollout-delay-ms': { type: 'string' },
    },
    HELP,
    ctx,
  );
  if (values === 'help') return EXIT.ok;
  if (values === 'usage') return EXIT.usage;
  const problems: string[] = [];
  const port = parsePort(typeof values.port === 'string' ? values.port : '0', problems);
  const delay = Number(values['rollout-delay-ms'] ?? '0');
  if (!Number.isFinite(delay) || delay < 0)
    problems.push(`--rollout-delay-ms must be a number >= 0, got "${String(values['rollout-delay-ms'])}"`);
  const namespaces =
    typeof values.namespaces === 'string' ? values.namespaces.split(',').map((n) => n.trim()) : [];
  for (const ns of namespaces) {
    if (!isDnsLabel(ns)) problems.push(`--namespaces: "${ns}" is not a valid namespace name`);
  }
  if (problems.length > 0) {
    for (const p of problems) writeCliError(ctx, 'kube-api', 'MOORING_E_INPUT_INVALID', p);
    return EXIT.usage;
  }
  const emulator = await emulatorFor('kube-api', ctx);
  if (!emulator) return EXIT.usage;
  const kubeconfigOut = typeof values['kubeconfig-out'] === 'string' ? values['kubeconfig-out'] : undefined;
  const api = await emulator.startKubeApi({
    host: typeof values.host === 'string' ? values.host : '127.0.0.1',
    port,
    namespaces,
    rolloutDelayMs: delay,
    ...(kubeconfigOut ? { kubeconfigOut } : {}),
    logger: createLogger({ base: { component: 'kube-api' }, level: ctx.env.MOORING_LOG_LEVEL ?? 'info' }),
  });
  ctx.stdout.write(`sandbox Kubernetes API listening on ${api.url}\n`);
  if (api.kubeconfigPath) ctx.stdout.write(`kubeconfig written to ${api.kubeconfigPath}\n`);
  await untilAborted(ctx.signal);
  await api.close();
  return EXIT.ok;
}
