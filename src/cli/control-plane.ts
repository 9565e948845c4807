import { writeCliError } from './cli-error.ts';
import { resolve } from 'node:path';
import { startControlPlane } from '../control-plane/server/index.ts';
import { MooringError } from '../errors.ts';
import { createLogger } from '../log.ts';
import { type CliContext, EXIT } from './context.ts';
import { parseCommandFlags, parsePort, untilAborted } from './flags.ts';
import { formatHelp } from './help-format.ts';

const HELP = formatHelp({
  usage: 'mooring control-plane [flags]',
  summary: 'Serves the reference deployment management service (SQLite) until Ctrl-C.',
  notes: [
    'Environment: MOORING_API_KEY (the API key, when --api-key is not given); MOORING_LOG_LEVEL (default info: one JSON line per request).',
  ],
  flags: [
    { left: '--host <address>', description: 'address to listen on; default 127.0.0.1' },
    { left: '--port <port>', description: 'TCP port; 0 picks a free one; default 8080' },
    {
      left: '--db <file>',
      description: 'SQLite database file, or :memory:; default :memory: (data lost at exit)',
    },
    {
      left: '--api-key <key>',
      description: 'the key callers must send as X-Api-Key; default $MOORING_API_KEY; required',
    },
    {
      left: '--seed <file>',
      description:
        'YAML or JSON seed of listeners, deployments, tokens, connections, integrations; default none (records that already exist are skipped)',
    },
    {
      left: '--simulate-builds <seconds>',
      description:
        'move each new revision of a built source (every source but external_docker) through QUEUED, AWAITING_BUILD, BUILDING, AWAITING_DEPLOY, DEPLOYING to DEPLOYED within that many seconds; default off (such revisions stay QUEUED)',
    },
    {
      left: '--build-failure-rate <rate>',
      description: 'with --simulate-builds, the share of builds that end BUILD_FAILED, 0 to 1; default 0',
    },
    {
      left: '--deleted-retention <seconds>',
      description:
        'seconds a deleted deployment stays listed as AWAITING_DELETE before it is removed; default 3600',
    },
  ],
});

/** `mooring control-plane`: serves the reference control plane until Ctrl-C. */
export async function controlPlane(argv: string[], ctx: CliContext): Promise<number> {
  const values = parseCommandFlags(
    'control-plane',
    argv,
    {
      host: { type: 'string' },
      port: { type: 'string' },
      db: { type: 'string' },
      'api-key': { type: 'string' },
      seed: { type: 'string' },
      'simulate-builds': { type: 'string' },
      'build-failure-rate': { type: 'string' },
      'deleted-retention': { type: 'string' },
    },
    HELP,
    ctx,
  );
  if (values === 'help') return EXIT.ok;
  if (values === 'usage') return EXIT.usage;
  const problems: string[] = [];
  const port = parsePort(typeof values.port === 'string' ? values.port : '8080', problems);
  const apiKey = typeof values['api-key'] === 'string' ? values['api-key'] : ctx.env.MOORING_API_KEY;
  if (!apiKey) problems.push('--api-key (or MOORING_API_KEY) is required');
  const db = typeof values.db === 'string' ? values.db : ':memory:';
  if (db === '') problems.push('--db must be a file path or :memory:');
  const simulateBuilds = decimalFlag(values['simulate-builds'], '--simulate-builds', problems, {
    positive: true,
  });
  const failureRate = decimalFlag(values['build-failure-rate'], '--build-failure-rate', problems, { max: 1 });
  if (failureRate !== undefined && simulateBuilds === undefined) {
    problems.push('--build-failure-rate needs --simulate-builds');
  }
  const retention = decimalFlag(values['deleted-retention'], '--deleted-retention', problems);
  if (problems.length > 0) {
    for (const p of problems) writeCliError(ctx, 'control-plane', 'MOORING_E_INPUT_INVALID', p);
    return EXIT.usage;
  }

  const logger = createLogger({
    base: { component: 'control-plane' },
    level: ctx.env.MOORING_LOG_LEVEL ?? 'info',
  });
  let server: Awaited<ReturnType<typeof startControlPlane>>;
  try {
    server = await startControlPlane({
      host: typeof values.host === 'string' ? values.host : '127.0.0.1',
      port,
      db: db === ':memory:' ? db : resolve(ctx.cwd, db),
      apiKey: apiKey!,
      ...(typeof values.seed === 'string' ? { seed: resolve(ctx.cwd, values.seed) } : {}),
      ...(simulateBuilds !== undefined ? { simulateBuildsSeconds: simulateBuilds } : {}),
      ...(failureRate !== undefined ? { buildFailureRate: failureRate } : {}),
      ...(retention !== undefined ? { deletedRetentionSeconds: retention } : {}),
      logger,
    });
  } catch (err) {
    if (err instanceof MooringError && err.code === 'MOORING_E_INPUT_INVALID') {
      ctx.stderr.write(`mooring control-plane: ${err.code}: ${err.message}\n`);
      return EXIT.usage;
    }
    throw err;
  }
  const s = server.seeded;
  if (typeof values.seed === 'string') {
    ctx.stdout.write(
      `seeded ${s.listeners} listeners, ${s.deployments} deployments, ${s.tokens} tokens, ` +
        `${s.connections} connections, ${s.integrations} integrations\n`,
    );
  }
  ctx.stdout.write(`control plane listening on ${server.url}\n`);
  await untilAborted(ctx.signal);
  await server.close();
  logger.flush();
  return EXIT.ok;
}

/**
 * A non-negative decimal number flag (seconds, or a rate with `max: 1`), or undefined when not
 * given; a problem is recorded for anything else.
 */
function decimalFlag(
  value: unknown,
  flag: string,
  problems: string[],
  limits: { positive?: boolean; max?: number } = {},
): number | undefined {
  if (typeof value !== 'string') return undefined;
  const n = /^[0-9]+(\.[0-9]+)?$/.test(value) ? Number(value) : Number.NaN;
  const low = limits.positive ? n > 0 : n >= 0;
  if (!(low && (limits.max === undefined || n <= limits.max) && Number.isFinite(n))) {
    const range =
      limits.max !== undefined ? `between 0 and ${limits.max}` : limits.positive ? 'above 0' : '0 or more';
    problems.push(`${flag} must be a decimal number ${range}`);
    return undefined;
  }
  return n;
}
