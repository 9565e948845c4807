/**
 * `mooring run`: the agent. Settings from flags and `MOORING_*` variables (`--help` lists them);
 * logs are pino JSON on stdout; SIGTERM/SIGINT shut it down gracefully (exit 0).
 */
import { parseAgentCommand } from './agent-flags.ts';
import { agentRedactor } from './agent-settings.ts';
import { wireAgent } from './wiring.ts';
import { errorCode } from '../errors.ts';
import { createLogger, type Logger } from '../log.ts';
import { startOpsServer } from '../ops/server.ts';
import { describeError, safeErr } from '../agent/safe-error.ts';
import { EXIT, type CliContext } from './context.ts';

const SUMMARY = 'Run the agent: poll the control plane for this listener and reconcile its deployments.';

function flush(logger: Logger): Promise<void> {
  return new Promise((resolve) => logger.flush(() => resolve()));
}

export async function run(argv: string[], ctx: CliContext): Promise<number> {
  const parsed = parseAgentCommand('run', SUMMARY, argv, ctx);
  if (typeof parsed === 'number') return parsed;
  const { config } = parsed;
  // One redactor for everything the agent emits: every log line, /status, Events, stderr.
  const redactor = agentRedactor(config);
  const logger = createLogger({
    level: config.logLevel,
    base: { listenerId: config.listenerId, identity: config.identity },
    scrubber: redactor,
  });
  const stderr = (line: string) => ctx.stderr.write(redactor.scrub(line));
  let wired: ReturnType<typeof wireAgent>;
  try {
    wired = wireAgent({ config, env: ctx.env, version: ctx.version, logger, redactor });
  } catch (err) {
    const { code, message } = describeError(err);
    stderr(`mooring run: ${code}: ${message}\n`);
    return code === 'MOORING_E_CONFIG_INVALID' ? EXIT.usage : EXIT.failure;
  }
  const { agent, metrics } = wired;
  let ops: Awaited<ReturnType<typeof startOpsServer>>;
  try {
    ops = await startOpsServer({
      host: config.opsHost,
      port: config.opsPort,
      registry: metrics.registry,
      health: () => agent.health(),
      ready: () => agent.ready(),
      status: () => agent.statusDocument(),
      logger,
    });
  } catch (err) {
    stderr(
      `mooring run: MOORING_E_CONFIG_INVALID: cannot serve ops endpoints on ${config.opsHost}:${config.opsPort}: ${(err as Error).message}\n`,
    );
    await wired.close();
    return EXIT.failure;
  }
  logger.info(
    { url: ops.url, port: ops.port, statusUrl: ops.statusUrl },
    'ops endpoints listening (/healthz /readyz /metrics; /status to loopback clients only)',
  );
  let code: number = EXIT.ok;
  try {
    await agent.run(ctx.signal);
  } catch (err) {
    const e = describeError(err);
    logger.fatal({ err: safeErr(err), code: errorCode(err) }, 'agent refused to start');
    stderr(`mooring run: ${e.code}: ${e.message}\n`);
    code = EXIT.failure;
  } finally {
    await ops.close();
    await wired.close();
    await flush(logger);
  }
  return code;
}
