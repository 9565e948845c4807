/**
 * The per-cycle cap on AWAITING_DELETE deletions, as the orphan pass has one on pruning. A
 * control plane that marks every deployment for deletion at once (a bug, or a compromise) must
 * not remove everything in one cycle: when more deployments are due for deletion than the cap
 * allows, none is deleted that cycle, and the refusal is an error line, a metric and each
 * deployment's status (MOORING_E_DELETE_CAP_EXCEEDED). Deletions resume by themselves once fewer
 * are due (the control plane corrected, or records removed), or delete by hand.
 */
import { pruneCap } from './orphans.ts';
import type { DesiredDeployment } from '../agent/poller.ts';

/** The cap is at least this many deployments per cycle. */
export const DELETE_CAP_MIN_DEPLOYMENTS = 5;
/** ... and at least this share of the listener's deployments. */
export const DELETE_CAP_FRACTION = 0.25;

/** The most AWAITING_DELETE deletions one cycle may start, for a listener of `size` deployments. */
export function deleteCap(size: number): number {
  return pruneCap(size, DELETE_CAP_MIN_DEPLOYMENTS, DELETE_CAP_FRACTION);
}

/** The deletions a snapshot holds back, when it is over the cap. */
export interface DeleteHold {
  /** Ids of the deployments due for deletion (all held back). */
  due: Set<string>;
  cap: number;
  message: string;
}

/**
 * The hold on this snapshot's deletions, or undefined when they are within the cap. A deployment
 * whose objects are already gone (`deleted`: reconciled as Deleted, or owning nothing by the latest
 * complete listing) is not due: records lingering in the control plane never hold the cap.
 */
export function deleteHold(
  deployments: readonly DesiredDeployment[],
  deleted: (id: string) => boolean,
): DeleteHold | undefined {
  const due = new Set(
    deployments
      .filter((d) => !d.refused && d.deployment.status === 'AWAITING_DELETE' && !deleted(d.deployment.id))
      .map((d) => d.deployment.id),
  );
  const cap = deleteCap(deployments.length);
  if (due.size <= cap) return undefined;
  return {
    due,
    cap,
    message: `delete refused: ${due.size} of ${deployments.length} deployments are AWAITING_DELETE, over the cap of ${cap} per cycle; none deleted (check the control plane, or delete by hand)`,
  };
}
