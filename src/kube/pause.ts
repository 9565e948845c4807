/**
 * Pausing: an operator annotates a managed object `mooring.dev/reconcile: disabled` and the agent
 * leaves it alone (no apply, no prune, no recreate) until the annotation goes. It is read from the
 * live object the agent already lists (the slim entry keeps it, compact-live.ts), so it costs no
 * request. Whoever may write the object may pause it: the annotation grants nothing the
 * Kubernetes RBAC did not already.
 */
import { ANNOTATIONS } from '../labels.ts';
import type { ChangeSetEntry } from '../objects/change-set.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import { entryFor } from './apply-context.ts';

/** The annotation's value that pauses. */
export const PAUSED_VALUE = 'disabled';

/** The change-set note of an object left alone because it is paused. */
export const PAUSED_NOTE = `paused (${ANNOTATIONS.reconcile}: ${PAUSED_VALUE})`;

/** The change-set note of an object left alone because its whole deployment is paused. */
export const DEPLOYMENT_PAUSED_NOTE = `deployment paused (${ANNOTATIONS.reconcile}: ${PAUSED_VALUE} on its Deployment)`;

/** Whether the live object carries the pause annotation. */
export function isPaused(live: KubeObject | undefined): boolean {
  return live?.metadata.annotations?.[ANNOTATIONS.reconcile] === PAUSED_VALUE;
}

/** Whether a change-set note says the object was left alone for a pause. */
export function isPauseNote(note: string | undefined): boolean {
  return note === PAUSED_NOTE || note === DEPLOYMENT_PAUSED_NOTE;
}

/**
 * The apply's entry of a paused object: skipped, and noted as observed as it was listed (health
 * reads it).
 */
export function leaveAlone(
  desired: KubeObject,
  live: KubeObject,
  observed: Map<string, KubeObject> | undefined,
): ChangeSetEntry {
  const entry = entryFor(desired, 'skipped');
  entry.note = PAUSED_NOTE;
  observed?.set(entry.id, live);
  return entry;
}
