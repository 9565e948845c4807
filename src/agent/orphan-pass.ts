/**
 * The orphan pass after each resync's complete snapshot, and what `/status` says of its last
 * refusal: a refused pass is an alert (counted, shown until a pass runs), not a log line only.
 */
import { errorCode } from '../errors.ts';
import type { ChangeSet } from '../objects/change-set.ts';
import { summarize } from '../objects/change-set.ts';
import type { Logger } from '../log.ts';
import type { AgentMetrics } from '../ops/metrics.ts';
import type { Clock } from './clock.ts';
import type { Snapshot } from './poll-cycle.ts';
import { safeErr } from './safe-error.ts';

/** The result of one orphan pass (after a complete listing). */
export interface OrphanPassResult {
  /** Deletions made (or previewed in dry-run), when any. */
  changeSet?: ChangeSet;
  /** Set when the rules forbade every deletion this cycle (cap exceeded, listing incomplete). */
  refused?: { code: string; message: string };
}

/** The last orphan pass that was refused, for `/status`. */
export interface PruneRefusal {
  code: string;
  message: string;
  at: string;
}

export interface OrphanPassDeps {
  collectOrphans(snapshot: Snapshot, signal: AbortSignal): Promise<OrphanPassResult>;
  metrics: AgentMetrics;
  logger: Logger;
  clock: Clock;
}

/** Runs orphan passes and keeps the latest refusal. */
export class OrphanPass {
  readonly #d: OrphanPassDeps;
  #refusal: PruneRefusal | null = null;

  constructor(deps: OrphanPassDeps) {
    this.#d = deps;
  }

  /** The refusal of the latest orphan pass, or null when it was allowed to run. */
  get refusal(): PruneRefusal | null {
    return this.#refusal;
  }

  /** One pass over `snapshot`; never throws (a failure is logged, and nothing is pruned). */
  async run(snapshot: Snapshot, signal: AbortSignal): Promise<void> {
    const { logger } = this.#d;
    try {
      const result = await this.#d.collectOrphans(snapshot, signal);
      this.#refused(result.refused ?? null);
      if (result.changeSet && result.changeSet.entries.length > 0) {
        logger.info(
          { changes: summarize(result.changeSet), dryRun: result.changeSet.dryRun },
          'orphan pass deleted objects',
        );
      }
    } catch (err) {
      if (signal.aborted) {
        // Cut by the end of the term (leadership lost, shutdown): not a failure of the pass.
        logger.info(
          { code: errorCode(err) },
          'orphan pass cancelled; what was not deleted is left to the next leader',
        );
        return;
      }
      const code = errorCode(err);
      logger.warn({ err: safeErr(err), code }, 'orphan pass failed; nothing pruned this cycle');
      // A failed inventory listing refuses the pass as surely as an unparsable record does.
      if (code === 'MOORING_E_PRUNE_LISTING_INCOMPLETE') {
        this.#refused({ code, message: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  #refused(refused: { code: string; message: string } | null): void {
    if (refused) {
      this.#d.metrics.pruneRefusals.inc({ code: refused.code });
      this.#refusal = { ...refused, at: new Date(this.#d.clock.now()).toISOString() };
    } else {
      this.#refusal = null;
    }
  }
}
