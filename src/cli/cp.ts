/**
 * `mooring cp`: a small client of the control plane, for trying the agent without curl: list the
 * deployments, change one's image (a new revision the agent then rolls out) or create a listener.
 * Reaches the control plane as the agent does (`MOORING_CONTROL_PLANE_URL`, the API key file).
 */
import { readFileSync } from 'node:fs';
import { describeError } from '../agent/safe-error.ts';
import { ControlPlaneClient } from '../control-plane/client.ts';
import { MooringError } from '../errors.ts';
import { Redactor } from '../redact.ts';
import { writeCliError } from './cli-error.ts';
import { EXIT, type CliContext } from './context.ts';
import { parseCommandFlags } from './flags.ts';
import { formatHelp } from './help-format.ts';
import { formatTable } from './status.ts';

const HELP = formatHelp({
  usage: 'mooring cp [flags] deployments list | deployments patch <name|id> | listeners create',
  summary:
    'A small client of the control plane: list the deployments, change the image of one (the control plane makes a new revision, which the agent rolls out at its next poll), or create a k8s listener for some namespaces (prints its id).',
  flags: [
    { left: '--url <url>', description: 'base URL of the control plane; default $MOORING_CONTROL_PLANE_URL' },
    {
      left: '--api-key-file <file>',
      description: 'file holding the API key; default $MOORING_API_KEY_FILE (or $MOORING_API_KEY)',
    },
    { left: '--image <uri>', description: 'deployments patch: the new image_uri' },
    { left: '--namespaces <list>', description: 'listeners create: comma list of its namespaces' },
  ],
});

type Values = Record<string, string | boolean | undefined>;

function apiKeyOf(values: Values, ctx: CliContext): string | undefined {
  const file = (values['api-key-file'] as string | undefined) ?? ctx.env.MOORING_API_KEY_FILE;
  if (file) return readFileSync(file, 'utf8').trim();
  return ctx.env.MOORING_API_KEY;
}

async function listDeployments(client: ControlPlaneClient): Promise<string> {
  const { items } = await client.listAllDeployments();
  const rows = items.map((d) => [
    d.name,
    d.id,
    String(d.status),
    d.source_config.listener_config?.k8s_namespace ?? '-',
    d.source_revision_config?.image_uri ?? '-',
  ]);
  return formatTable(['NAME', 'ID', 'STATUS', 'NAMESPACE', 'IMAGE'], rows);
}

async function patchImage(client: ControlPlaneClient, which: string, image: string): Promise<string> {
  const { items } = await client.listAllDeployments();
  const found = items.filter((d) => d.id === which || d.name === which);
  if (found.length !== 1) {
    throw new MooringError(
      'MOORING_E_INPUT_INVALID',
      found.length === 0
        ? `no deployment named or with id "${which}"`
        : `"${which}" names ${found.length} deployments: give the id`,
    );
  }
  const d = found[0]!;
  const after = await client.patchDeployment(d.id, { source_revision_config: { image_uri: image } });
  return `deployment ${d.name} (${d.id}): image ${image}, revision ${after.latest_revision_id ?? '-'}\n`;
}

export async function cp(argv: string[], ctx: CliContext): Promise<number> {
  const values = parseCommandFlags(
    'cp',
    argv,
    {
      url: { type: 'string' },
      'api-key-file': { type: 'string' },
      image: { type: 'string' },
      namespaces: { type: 'string' },
    },
    HELP,
    ctx,
    true,
  );
  if (values === 'help') return EXIT.ok;
  if (values === 'usage') return EXIT.usage;
  const [noun, verb, target] = (values._ as unknown as string[]) ?? [];
  const url = (values.url as string | undefined) ?? ctx.env.MOORING_CONTROL_PLANE_URL;
  const action = `${noun ?? ''} ${verb ?? ''}`;
  const problems: string[] = [];
  if (!url) problems.push('--url (or MOORING_CONTROL_PLANE_URL) is required');
  if (!['deployments list', 'deployments patch', 'listeners create'].includes(action))
    problems.push(
      `unknown action "${action.trim()}": deployments list, deployments patch or listeners create`,
    );
  if (action === 'deployments patch' && (!target || typeof values.image !== 'string'))
    problems.push('deployments patch needs <name|id> and --image <uri>');
  if (action === 'listeners create' && typeof values.namespaces !== 'string')
    problems.push('listeners create needs --namespaces <list>');
  let apiKey: string | undefined;
  try {
    apiKey = apiKeyOf(values, ctx);
    if (!apiKey) problems.push('--api-key-file (or MOORING_API_KEY_FILE / MOORING_API_KEY) is required');
  } catch (err) {
    problems.push(`--api-key-file: cannot read it (${(err as { code?: string }).code ?? 'unreadable'})`);
  }
  if (problems.length > 0) {
    for (const p of problems) writeCliError(ctx, 'cp', 'MOORING_E_INPUT_INVALID', p);
    return EXIT.usage;
  }
  const redactor = new Redactor();
  redactor.set('api-key', [apiKey!]);
  const client = new ControlPlaneClient({
    baseUrl: url!.replace(/\/+$/, ''),
    apiKey: apiKey!,
    retries: 1,
    env: ctx.env,
  });
  try {
    if (action === 'deployments list') ctx.stdout.write(await listDeployments(client));
    else if (action === 'deployments patch')
      ctx.stdout.write(await patchImage(client, target!, values.image as string));
    else {
      const namespaces = (values.namespaces as string)
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean);
      const l = await client.createListener({
        compute_type: 'k8s',
        compute_id: `mooring-${namespaces.join('-')}`,
        compute_config: { k8s_namespaces: namespaces },
        version: '0.0.0',
      });
      ctx.stdout.write(`${l.id}\n`);
    }
    return EXIT.ok;
  } catch (err) {
    const { code, message } = describeError(err);
    ctx.stderr.write(redactor.scrub(`mooring cp: ${code}: ${message}\n`));
    return code === 'MOORING_E_INPUT_INVALID' ? EXIT.usage : EXIT.failure;
  } finally {
    await client.close();
  }
}
