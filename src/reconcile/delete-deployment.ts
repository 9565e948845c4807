/**
 * Status AWAITING_DELETE: remove everything the deployment owns, in reverse kind order, volumes only
 * with the operator's opt-in; in every namespace of the agent's, so what it left behind by moving
 * to another namespace (kept until it ran there) goes too. Health is Deleting while owned objects remain (finalizers hold some),
 * then Deleted.
 */
import type { DeploymentRecord } from '../contract/index.ts';
import { changeSetErrors, summarize } from '../objects/change-set.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import { isPaused } from '../kube/pause.ts';
import { baseNameOf } from '../render/index.ts';
import { deletionHealth } from './health.ts';
import { pausedDeploymentResult, recordPaused } from './paused.ts';
import { type ReconcileResult, resultOf } from './result.ts';
import { eventTarget, failureOf } from './steps.ts';
import type { ReconcileDeps } from './types.ts';

/** Deletes everything the deployment owns (status AWAITING_DELETE). */
export async function reconcileDelete(
  deps: ReconcileDeps,
  deployment: DeploymentRecord,
  namespace: string,
): Promise<ReconcileResult> {
  const { resources, settings, logger } = deps;
  const listing = {
    namespaces: settings.namespaces,
    listenerId: settings.listenerId,
    deploymentId: deployment.id,
  };
  // 1. Inventory of what this deployment owns, wherever it is (a failed listing deletes nothing).
  const owned = await resources.listOwned(listing);
  // 1b. Its API server Deployment paused (paused.ts): nothing deleted until the pause is lifted.
  const base = baseNameOf(deployment.name);
  const main = owned.objects.find((o) => o.kind === 'Deployment' && o.metadata.name === base && isPaused(o));
  if (main) {
    const result = pausedDeploymentResult([], owned, settings.dryRun);
    const ns = main.metadata.namespace ?? namespace;
    recordPaused(
      deps,
      eventTarget(ns, base, new Map([[`Deployment/${ns}/${base}`, main]])),
      result.changeSet,
    );
    return result;
  }
  // 2. Delete in reverse kind order; volumes only with the operator's opt-in.
  const cs = await resources.deleteAll(owned.objects, {
    deleteVolumes: settings.deleteVolumes,
    listenerId: settings.listenerId,
    dryRun: settings.dryRun,
  });
  const log = logger.child({ deploymentId: deployment.id, namespace });
  log.info({ changes: summarize(cs) }, `deployment ${deployment.id}: delete: ${summarize(cs)}`);
  const deleted = cs.entries.filter(
    (e) => e.action === 'deleted' && e.detail !== 'already-terminating',
  ).length;
  if (deleted > 0 && !settings.dryRun) {
    deps.events?.record({
      target: eventTarget(namespace, undefined, new Map()),
      reason: 'Pruned',
      type: 'Normal',
      message: `deployment ${deployment.id} deleted: ${summarize(cs)}`,
    });
  }
  if (changeSetErrors(cs).length > 0) throw failureOf(deployment.id, cs);
  // 3. What remains (kept volumes do not count: they are left on purpose).
  const remaining = cs.entries
    .filter(
      (e) =>
        (e.action !== 'deleted' || e.detail === 'terminating' || e.detail === 'already-terminating') &&
        e.detail !== 'volume-kept',
    )
    .map((e) => owned.byId.get(e.id))
    .filter((o): o is KubeObject => o !== undefined);
  return resultOf(cs, deletionHealth(remaining));
}
