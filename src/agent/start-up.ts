/**
 * The agent's start-up: the namespaces exist, the cluster checks pass, and (unless asked not to)
 * the listener is registered. Refusals (a namespace or the listener missing, a listener that is
 * not `k8s`) are thrown; retryable failures are retried with the start-up backoff (src/backoff.ts).
 */
import { backoffDelay, START_UP_BACKOFF } from '../backoff.ts';
import { errorCode, isRetryable } from '../errors.ts';
import type { AgentDeps } from './agent-deps.ts';
import { type Clock, sleep } from './clock.ts';
import { checkNamespaces, findListener, registerListener } from './registration.ts';
import { safeErr } from './safe-error.ts';

/** Resolves true once started, false when `signal` aborted first; throws a refusal. */
export async function startUp(
  deps: Pick<
    AgentDeps,
    'config' | 'logger' | 'readNamespace' | 'checkCluster' | 'controlPlane' | 'version'
  > & {
    clock: Clock;
  },
  signal: AbortSignal,
  opts: { register?: boolean } = {},
): Promise<boolean> {
  const { config, logger, clock } = deps;
  let attempt = 0;
  while (!signal.aborted) {
    try {
      await checkNamespaces(deps.readNamespace, config.namespaces);
      await deps.checkCluster?.();
      if (opts.register !== false) {
        await registerListener({
          client: deps.controlPlane,
          listenerId: config.listenerId,
          namespaces: config.namespaces,
          version: deps.version,
        });
      } else {
        // Not registering (mooring diff) still needs the listener: polling an absent one lists nothing.
        await findListener(deps.controlPlane, config.listenerId);
      }
      logger.info(
        // The listener id is the logger's own binding (run.ts): not repeated here.
        {
          namespaces: config.namespaces,
          version: deps.version,
          dryRun: config.dryRun,
        },
        'agent started',
      );
      return true;
    } catch (err) {
      if (!isRetryable(err)) throw err;
      attempt += 1;
      const delayMs = backoffDelay(START_UP_BACKOFF, attempt);
      logger.warn(
        { err: safeErr(err), code: errorCode(err), attempt, retryInMs: delayMs },
        'start-up check failed; retrying',
      );
      try {
        await sleep(clock, delayMs, signal);
      } catch {
        return false;
      }
    }
  }
  return false;
}
