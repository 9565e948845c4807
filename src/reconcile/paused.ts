/**
 * What a reconcile says about paused objects (src/kube/pause.ts): a whole deployment paused on its
 * API server Deployment is reported without a write, and every pass that left paused objects alone
 * records a `Paused` Event naming them (the recorder lets one identical Event through a minute).
 */
import { entryFor } from '../kube/apply-context.ts';
import type { Inventory } from '../kube/list.ts';
import { DEPLOYMENT_PAUSED_NOTE, isPauseNote, isPaused } from '../kube/pause.ts';
import type { ChangeSet } from '../objects/change-set.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import { objectId } from '../objects/object-id.ts';
import type { EventTarget } from './events.ts';
import { assessObject, rollUp } from './health.ts';
import { type ReconcileResult, resultOf } from './result.ts';
import type { ReconcileDeps } from './types.ts';

/** The deployment's API server Deployment, when it is listed and paused. */
export function pausedMain(owned: Inventory, namespace: string, baseName: string): KubeObject | undefined {
  const main = owned.byId.get(`Deployment/${namespace}/${baseName}`);
  return isPaused(main) ? main : undefined;
}

/**
 * The pass of a paused deployment: every object it renders or owns reported skipped, nothing
 * read again or written, health from the objects as listed.
 */
export function pausedDeploymentResult(
  desired: readonly KubeObject[],
  owned: Inventory,
  dryRun: boolean,
): ReconcileResult {
  const seen = new Set<string>();
  const cs: ChangeSet = { entries: [], dryRun };
  for (const o of [...desired, ...owned.objects]) {
    const id = objectId(o);
    if (seen.has(id)) continue;
    seen.add(id);
    const e = entryFor(o, 'skipped');
    e.note = DEPLOYMENT_PAUSED_NOTE;
    cs.entries.push(e);
  }
  return resultOf(cs, rollUp(owned.objects.map(assessObject)));
}

/** The ids of the objects a change set left alone for a pause. */
export function pausedIds(cs: ChangeSet): string[] {
  return cs.entries.filter((e) => e.action === 'skipped' && isPauseNote(e.note)).map((e) => e.id);
}

/** Records the `Paused` Event of a pass that left paused objects alone (none in a dry run). */
export function recordPaused(deps: ReconcileDeps, target: EventTarget, cs: ChangeSet): void {
  const ids = pausedIds(cs);
  if (ids.length === 0 || deps.settings.dryRun) return;
  const whole = cs.entries.some((e) => e.note === DEPLOYMENT_PAUSED_NOTE);
  deps.events?.record({
    target,
    reason: 'Paused',
    type: 'Normal',
    message: whole
      ? `${DEPLOYMENT_PAUSED_NOTE}: ${ids.length} objects left alone`
      : `left alone, paused: ${ids.join(', ')}`,
  });
}
