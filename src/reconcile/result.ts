/**
 * What one reconcile returns (controller-runtime's Result): the change set, the health, and when
 * to look again. Failures are thrown (MooringError, TerminalError), never returned.
 */
import type { ChangeSet } from '../objects/change-set.ts';
import type { ConvergedPass } from './converged.ts';
import type { Health } from './health.ts';

export interface ReconcileResult {
  changeSet: ChangeSet;
  health: Health;
  /** Look again after this long (a rollout in progress); undefined: at the next regular resync. */
  requeueAfterMs?: number;
  /** Set when the pass wrote nothing and found nothing stale: pass it to the next (converged.ts). */
  converged?: ConvergedPass;
}

/** How soon to look again at a deployment in progress. */
export const PROGRESS_REQUEUE_MS = 5_000;
/** How soon to look again at a failed rollout (a new revision may come at any time). */
export const FAILED_REQUEUE_MS = 60_000;

export function requeueAfterFor(health: Health): number | undefined {
  switch (health.state) {
    case 'Progressing':
    case 'Deleting':
      return PROGRESS_REQUEUE_MS;
    case 'Failed':
      return FAILED_REQUEUE_MS;
    default:
      return undefined;
  }
}

export function resultOf(changeSet: ChangeSet, health: Health): ReconcileResult {
  const result: ReconcileResult = { changeSet, health };
  const after = requeueAfterFor(health);
  if (after !== undefined) result.requeueAfterMs = after;
  return result;
}
