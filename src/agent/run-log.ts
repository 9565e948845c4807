/**
 * The metrics, status and log line per finished reconcile: info when it changed something or the
 * health moved, else debug. Decides nothing (the runner did) and keeps nothing: the revision and
 * change-set summary of the run come with its report, from the deployment's record.
 */
import type { Logger } from '../log.ts';
import type { AgentMetrics } from '../ops/metrics.ts';
import type { Clock } from './clock.ts';
import type { Run } from './deployment-record.ts';
import type { RunReport } from './runner.ts';
import { describeError, safeErr } from './safe-error.ts';
import type { DeploymentState, StatusStore } from './status.ts';

export interface RunLogDeps {
  status: StatusStore;
  logger: Logger;
  metrics: AgentMetrics;
  clock: Clock;
}

export class RunLog {
  readonly #d: RunLogDeps;

  constructor(deps: RunLogDeps) {
    this.#d = deps;
  }

  /**
   * Metrics, the log line and (when `current`: no refusal or forgetting since the run began) the
   * status of a finished run; `last` is the run as its deployment's record holds it.
   */
  report(r: RunReport, last: Run | undefined, current: boolean): void {
    const { metrics, logger, status } = this.#d;
    const { result } = r;
    // A success without a run reconciled nothing: the deployment waited for memory (thousands a
    // poll under a limit far too small, counted by the memory budget's own gauge) or had left.
    const ran = result.kind !== 'success' || last !== undefined;
    if (ran) {
      metrics.reconciles.inc({ result: result.kind });
      metrics.reconcileDuration.observe({ result: result.kind }, r.durationMs / 1000);
    }
    const line = {
      deploymentId: r.key,
      revisionId: last?.revisionId ?? null,
      changes: last?.changes ?? null,
      durationMs: r.durationMs,
      result: result.kind,
    };
    if (result.kind === 'success') {
      const entry = status.get(r.key);
      const fields = { ...line, state: entry?.state, reason: entry?.reason ?? undefined };
      // A resync that changed nothing and found the same health is debug: at info, an idle agent
      // would log one line per deployment per poll (200 lines a second at 1,000 deployments). So is
      // a success without a run.
      if (!ran || last?.quiet) logger.debug(fields, 'reconciled');
      else logger.info(fields, 'reconciled');
      return;
    }
    if (result.kind === 'cancelled') {
      // Not a failure (shutdown, leadership lost): the status keeps what the last run found, and
      // the agent's own "stopped reconciling" line says the term ended.
      logger.debug({ ...line, code: result.reason.code }, `reconcile cancelled: ${result.reason.message}`);
      return;
    }
    const { code, message } = describeError(result.error);
    if (result.kind === 'retry') {
      if (current) this.setState(r.key, 'Retrying', `${code}: ${message}`);
      logger.warn(
        { ...line, code, attempt: result.attempt, retryInMs: result.delayMs, err: safeErr(result.error) },
        'reconcile failed; will retry',
      );
    } else {
      if (current) this.setState(r.key, 'Refused', `${code}: ${message}`);
      logger.error(
        { ...line, code, err: safeErr(result.error) },
        result.until === 'resync'
          ? 'reconcile refused; tried again at the next resync'
          : 'reconcile refused; parked until the deployment changes',
      );
    }
  }

  /** Records a state the agent decided (not a reconcile's result) in the status. */
  setState(id: string, state: DeploymentState, reason: string | null): void {
    this.#d.status.record(id, { state, reason, changed: false, changes: null, atMs: this.#d.clock.now() });
  }
}
