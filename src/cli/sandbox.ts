/**
 * `mooring sandbox`: the one-command demo. Starts the reference control plane (in memory, seeded
 * from examples/seed.yaml), the sandbox Kubernetes API (its kubeconfig in a temp file) and the
 * agent, all in this process; shows each deployment's progress; prints the objects the agent
 * created and how to look at them with kubectl. Runs until Ctrl-C, or exits after printing with
 * `--once`.
 */
import { writeCliError } from './cli-error.ts';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Agent } from '../agent/agent.ts';
import { describeError } from '../agent/safe-error.ts';
import { agentRedactor } from './agent-settings.ts';
import { escapeControls } from './terminal-text.ts';
import { wireAgent } from './wiring.ts';
import { parseAgentConfig } from '../config.ts';
import { ControlPlaneClient } from '../control-plane/client.ts';
import { startControlPlane } from '../control-plane/server/index.ts';
import { pino } from 'pino';
import { createLogger } from '../log.ts';
import { startOpsServer } from '../ops/server.ts';
import { assessObject } from '../reconcile/health.ts';
import { EXIT, type CliContext } from './context.ts';
import { emulatorFor } from './emulator.ts';
import { untilAborted } from './flags.ts';
import { joinNegativeValues } from '../config/negative-values.ts';
import { nextSteps } from './sandbox-next-steps.ts';
import { seedThroughClient } from './sandbox-seed.ts';
import { formatTable } from './status.ts';
import { formatHelp } from './help-format.ts';

const HELP = formatHelp({
  usage: 'mooring sandbox [flags]',
  summary:
    'Starts the reference control plane (in memory, seeded from examples/seed.yaml), the sandbox Kubernetes API and the agent together (render settings examples/sandbox-settings.yaml: exposure through an Ingress); shows the example deployment being reconciled; prints the objects created and next steps that work as printed. Runs until Ctrl-C, which removes its temporary directory.',
  flags: [
    { left: '--once', description: 'exit 0 after printing the objects' },
    {
      left: '--port-base <port>',
      description:
        'control plane on <port>, Kubernetes API on <port>+1, agent ops on <port>+2; default 0 (free ports)',
    },
    {
      left: '--timeout <seconds>',
      description: 'how long to wait for the deployments to become ready; default 60',
    },
  ],
});

const SEED = fileURLToPath(new URL('../../examples/seed.yaml', import.meta.url));
const SETTINGS = fileURLToPath(new URL('../../examples/sandbox-settings.yaml', import.meta.url));
/** The render settings when examples/ is not there (an npm install): exposure on, through an Ingress. */
const FALLBACK_SETTINGS = 'exposure:\n  kind: ingress\n  ingressClassName: nginx\n';
const SETTLED: ReadonlySet<string> = new Set(['Ready', 'Failed', 'Refused', 'Deleted']);

/** Prints a line whenever a deployment's state or reason changes; resolves when all settled. */
async function watchProgress(
  agent: Agent,
  out: (line: string) => void,
  signal: AbortSignal,
): Promise<boolean> {
  const seen = new Map<string, string>();
  while (!signal.aborted) {
    const list = agent.status.list();
    for (const d of list) {
      const line = `${d.name}: ${d.state}${d.reason ? ` (${d.reason})` : ''}${d.lastChanges ? ` [${d.lastChanges}]` : ''}`;
      if (seen.get(d.id) !== line) {
        seen.set(d.id, line);
        out(`  ${line}`);
      }
    }
    if (list.length > 0 && list.every((d) => SETTLED.has(d.state))) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

export async function sandbox(argv: string[], ctx: CliContext): Promise<number> {
  let flags: { once?: boolean; 'port-base'?: string; timeout?: string; help?: boolean };
  try {
    flags = parseArgs({
      args: joinNegativeValues(argv, new Set(['port-base', 'timeout'])),
      options: {
        once: { type: 'boolean' },
        'port-base': { type: 'string' },
        timeout: { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    writeCliError(ctx, 'sandbox', 'MOORING_E_INPUT_INVALID', (err as Error).message.split('\n')[0] ?? '');
    return EXIT.usage;
  }
  if (flags.help) {
    ctx.stdout.write(HELP);
    return EXIT.ok;
  }
  const portBase = Number(flags['port-base'] ?? '0');
  if (!Number.isInteger(portBase) || portBase < 0 || portBase > 65533) {
    writeCliError(
      ctx,
      'sandbox',
      'MOORING_E_INPUT_INVALID',
      `--port-base: must be a port number (got "${flags['port-base']}")`,
    );
    return EXIT.usage;
  }
  const timeoutS = Number(flags.timeout ?? '60');
  if (!(timeoutS > 0)) {
    writeCliError(
      ctx,
      'sandbox',
      'MOORING_E_INPUT_INVALID',
      `--timeout: must be a positive number of seconds (got "${flags.timeout}")`,
    );
    return EXIT.usage;
  }
  // examples/ as the repository's relative path, so the printed commands read as typed.
  const shown = (p: string) => (path.relative(ctx.cwd, p).startsWith('..') ? p : path.relative(ctx.cwd, p));
  const emulator = await emulatorFor('sandbox', ctx);
  if (!emulator) return EXIT.usage;
  const port = (offset: number) => (portBase === 0 ? 0 : portBase + offset);
  const out = (line: string) => ctx.stdout.write(`${line}\n`);
  const dir = mkdtempSync(path.join(tmpdir(), 'mooring-sandbox-'));
  const kubeconfigPath = path.join(dir, 'kubeconfig.yaml');
  const logPath = path.join(dir, 'agent.log');
  const apiKey = randomBytes(18).toString('base64url');
  writeFileSync(path.join(dir, 'api-key'), `${apiKey}\n`, { mode: 0o600 });

  // The directory holds the API key: removed last, on every way out (Ctrl-C included).
  const cleanups: (() => Promise<unknown>)[] = [async () => rmSync(dir, { recursive: true, force: true })];
  const cleanup = async () => {
    // Tearing down a local sandbox: one part that fails to close must not keep the others open,
    // and the process exits next, which releases whatever it held.
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  };
  try {
    const seeded = existsSync(SEED);
    const cp = await startControlPlane({ apiKey, port: port(0), ...(seeded ? { seed: SEED } : {}) });
    cleanups.push(() => cp.close());
    out(`control plane    ${cp.url}  (in memory; API key in ${path.join(dir, 'api-key')})`);
    const client = new ControlPlaneClient({ baseUrl: cp.url, apiKey });
    cleanups.push(() => client.close());
    const k8sListener = (await client.listListeners()).items.find((l) => l.compute_type === 'k8s');
    const listenerId = k8sListener?.id ?? (await seedThroughClient(client));
    const namespaces = k8sListener?.compute_config?.k8s_namespaces?.length
      ? [...k8sListener.compute_config.k8s_namespaces]
      : ['default'];
    out(
      `seed             ${seeded ? 'examples/seed.yaml' : 'one example deployment (no seed file)'}; listener ${listenerId}`,
    );

    const kube = await emulator.startKubeApi({
      port: port(1),
      kubeconfigOut: kubeconfigPath,
      namespaces,
      rolloutDelayMs: 1500,
    });
    cleanups.push(() => kube.close());
    out(`Kubernetes API   ${kube.url}  (kubeconfig ${kubeconfigPath})`);

    // The agent's settings through the same parser `mooring run` uses: defaults live in one place.
    let settingsPath = SETTINGS;
    if (!existsSync(settingsPath)) {
      settingsPath = path.join(dir, 'settings.yaml');
      writeFileSync(settingsPath, FALLBACK_SETTINGS);
    }
    // The agent's settings as flags, through the same parser `mooring run` uses: the next steps
    // print them, so `mooring diff` and `mooring check` see what this agent sees.
    const keyFile = path.join(dir, 'api-key');
    const agentFlags = [
      ...['--control-plane-url', cp.url, '--api-key-file', keyFile, '--listener-id', listenerId],
      ...[
        '--namespaces',
        namespaces.join(','),
        '--kubeconfig',
        kubeconfigPath,
        '--settings',
        shown(settingsPath),
      ],
    ];
    const parsed = parseAgentConfig({
      argv: agentFlags,
      env: {
        MOORING_POLL_INTERVAL: '2',
        MOORING_OPS_HOST: '127.0.0.1',
        MOORING_OPS_PORT: String(port(2)),
        MOORING_POD_NAME: 'sandbox',
        MOORING_SHUTDOWN_GRACE_PERIOD: '5',
      },
    });
    if (!parsed.ok || parsed.help) {
      throw new Error(
        `sandbox agent settings do not parse: ${parsed.ok ? 'help' : parsed.problems.join('; ')}`,
      );
    }
    const { config } = parsed;
    const redactor = agentRedactor(config);
    const logger = createLogger({
      level: 'info',
      base: { listenerId: config.listenerId, identity: config.identity },
      destination: pino.destination({ dest: logPath, sync: true }),
      scrubber: redactor,
    });
    const wired = wireAgent({ config, env: {}, version: ctx.version, logger, redactor });
    cleanups.push(() => wired.close());
    const ops = await startOpsServer({
      host: '127.0.0.1',
      port: port(2),
      registry: wired.metrics.registry,
      health: () => wired.agent.health(),
      ready: () => wired.agent.ready(),
      status: () => wired.agent.statusDocument(),
      logger,
    });
    cleanups.push(() => ops.close());
    out(`agent            ops ${ops.url} (/status /metrics); log ${logPath}`);

    const stopAgent = new AbortController();
    const running = wired.agent.run(AbortSignal.any([ctx.signal, stopAgent.signal]));
    cleanups.push(async () => {
      stopAgent.abort();
      // Only a refused start-up rejects: said on stderr (its code and message are secret-free).
      await running.catch((err: unknown) => {
        const { code, message } = describeError(err);
        ctx.stderr.write(`mooring sandbox: agent: ${code}: ${message}\n`);
      });
    });
    out('\nreconciling:');
    const settled = await watchProgress(
      wired.agent,
      // A record's name or reason is shown, never interpreted by the terminal.
      (line) => out(escapeControls(redactor.scrub(line))),
      AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutS * 1000)]),
    );
    if (ctx.signal.aborted) {
      await cleanup();
      return EXIT.ok;
    }
    if (!settled) out(`  (not all deployments settled within ${timeoutS} s; showing what exists)`);

    const inventory = await wired.resources.listOwned({ namespaces, listenerId });
    const rows = inventory.objects.map((o) => {
      const h = assessObject(o);
      return [
        o.kind,
        o.metadata.namespace ?? '-',
        o.metadata.name ?? '',
        h.state === 'Ready' ? 'yes' : h.state.toLowerCase(),
      ];
    });
    out(`\nobjects created by the agent (${rows.length}):`);
    out(formatTable(['KIND', 'NAMESPACE', 'NAME', 'READY'], rows).trimEnd());
    out(
      nextSteps({
        kubeconfigPath,
        namespace: namespaces[0]!,
        opsUrl: ops.url,
        cpUrl: cp.url,
        keyFile,
        agentFlags,
        dir,
      }),
    );
    if (flags.once) out('(run without --once to try them: --once stops everything now)');
    const failed = wired.agent.status.list().some((d) => d.state === 'Failed' || d.state === 'Refused');
    if (flags.once) {
      await cleanup();
      return settled && !failed && rows.length > 0 ? EXIT.ok : EXIT.failure;
    }
    out('\nrunning; Ctrl-C to stop');
    await untilAborted(ctx.signal);
    await cleanup();
    return EXIT.ok;
  } catch (err) {
    const { code, message } = describeError(err);
    ctx.stderr.write(`mooring sandbox: ${code}: ${message}\n`);
    await cleanup();
    return EXIT.failure;
  }
}
