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
