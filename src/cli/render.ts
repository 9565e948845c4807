import { writeCliError } from './cli-error.ts';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import YAML from 'yaml';
import type { z } from 'zod';
import { type DeploymentRecord, type RevisionRecord, tolerant } from '../contract/index.ts';
import {
  mergeRenderSettings,
  parseSettingsText,
  RenderError,
  renderDeployment,
  type RenderSettingsFile,
} from '../render/index.ts';
import { toJsonList, toYamlStream } from '../render/serialize.ts';
import { type CliContext, EXIT } from './context.ts';
import { formatHelp } from './help-format.ts';

const HELP = formatHelp({
  usage: 'mooring render --deployment <file> [flags]',
  summary: 'Prints the Kubernetes objects of one deployment, offline (like helm template). Writes nothing.',
  flags: [
    { left: '--deployment <file>', description: 'a Deployment record, YAML or JSON; required' },
    {
      left: '--revision <file>',
      description: "the revision to run, YAML or JSON; default the deployment's own image_uri",
    },
    {
      left: '--settings <file>',
      description: [
        'render settings, YAML or JSON, merged over the defaults; the same file mooring run --settings takes; default none.',
        'Members: listenerId, redisImage, postgresImage, storageClassName, clusterDomain, policy.podSecurity (baseline or restricted), policy.allowHostPath, policy.allowPrivileged, policy.allowedVolumeTypes, policy.allowedCsiDrivers, policy.allowPodCertificates, policy.podMetadata, commands, args, probes, placement, datastoreImagePullSecrets, resources, service, references.agentServiceAccount, references.agentNamespace, references.serviceAccounts, references.allowServiceAccountTokens, references.namespaceTenants',
      ],
    },
    {
      left: '--listener-id <id>',
      description:
        "value of the mooring.dev/listener-id label; default the settings file's listenerId, else the deployment's source_config.listener_id",
    },
    {
      left: '-o, --output <format>',
      description: 'yaml (a --- separated stream) or json (a v1 List); default yaml',
    },
  ],
});

/** `mooring render`: one deployment's objects, printed. Exit 0, or 2 for bad flags, files or specs. */
export async function render(argv: string[], ctx: CliContext): Promise<number> {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (err) {
    writeCliError(ctx, 'render', 'MOORING_E_INPUT_INVALID', (err as Error).message);
    return EXIT.usage;
  }
  if (values.help) {
    ctx.stdout.write(HELP);
    return EXIT.ok;
  }
  const problems: string[] = [];
  const output = values.output ?? 'yaml';
  if (output !== 'yaml' && output !== 'json') problems.push(`--output "${output}" must be yaml or json`);
  if (!values.deployment) problems.push('--deployment FILE is required');
  const deployment = values.deployment
    ? await readRecord(ctx, values.deployment, tolerant.Deployment, problems)
    : undefined;
  const revision = values.revision
    ? await readRecord(ctx, values.revision, tolerant.Revision, problems)
    : undefined;
  const settingsFile = values.settings ? await readSettings(ctx, values.settings, problems) : {};
  if (problems.length > 0 || !deployment || !settingsFile) return fail(ctx, problems);

  const listenerId = values['listener-id'] ?? settingsFile.listenerId ?? deployment.source_config.listener_id;
  if (!listenerId) {
    return fail(ctx, ['--listener-id ID is required: the deployment has no source_config.listener_id']);
  }
  try {
    const result = renderDeployment({
      deployment: deployment as DeploymentRecord,
      revision: revision as RevisionRecord | undefined,
      settings: mergeRenderSettings(listenerId, settingsFile),
    });
    ctx.stdout.write(output === 'json' ? toJsonList(result.objects) : toYamlStream(result.objects));
    return EXIT.ok;
  } catch (err) {
    if (err instanceof RenderError) {
      ctx.stderr.write(`mooring render: ${err.code}: ${err.message} (field ${err.field || 'unknown'})\n`);
      return EXIT.usage;
    }
    throw err;
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      deployment: { type: 'string' },
      revision: { type: 'string' },
      settings: { type: 'string' },
      'listener-id': { type: 'string' },
      output: { type: 'string', short: 'o' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

function fail(ctx: CliContext, problems: string[]): number {
  for (const p of problems) writeCliError(ctx, 'render', 'MOORING_E_INPUT_INVALID', p);
  return EXIT.usage;
}

/** Reads the settings file with the parser `mooring run --settings` uses. */
async function readSettings(
  ctx: CliContext,
  file: string,
  problems: string[],
): Promise<RenderSettingsFile | undefined> {
  let text: string;
  try {
    text = await readFile(resolve(ctx.cwd, file), 'utf8');
  } catch (err) {
    problems.push(`${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
  const parsed = parseSettingsText(text);
  if (parsed.ok) return parsed.settings;
  for (const p of parsed.problems) problems.push(`${file}: ${p}`);
  return undefined;
}

/**
 * Reads and parses one YAML or JSON file with `schema`. Problems are appended one per line; they
 * name the file and the field, never a value (a deployment file holds secrets).
 */
async function readRecord<S extends z.ZodType>(
  ctx: CliContext,
  file: string,
  schema: S,
  problems: string[],
): Promise<z.infer<S> | undefined> {
  let text: string;
  try {
    text = await readFile(resolve(ctx.cwd, file), 'utf8');
  } catch (err) {
    problems.push(`${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
  let data: unknown;
  try {
    data = YAML.parse(text);
  } catch (err) {
    const pos = (err as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    problems.push(`${file}: not valid YAML or JSON${pos ? ` (line ${pos.line}, column ${pos.col})` : ''}`);
    return undefined;
  }
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
    problems.push(`${file}: ${path}: ${issue.message}`);
  }
  return undefined;
}
