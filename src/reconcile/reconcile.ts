/**
 * One deployment, one pass: make the cluster match what the control plane says, safely. The body
 * is a list of commented steps; each fails with its own coded reason. Outcomes are interpreted in
 * one place (the agent's runner): a returned result (with an optional requeue), a MooringError
 * (retried with backoff) or a TerminalError (parked until the desired state changes).
 */
import {
  allUnchanged,
  changeSetErrors,
  hasChanges,
  mergeChangeSets,
  summarize,
  type ChangeSet,
} from '../objects/change-set.ts';
import { TerminalError } from '../errors.ts';
import type { Inventory } from '../kube/list.ts';
import { objectId } from '../objects/object-id.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import { renderDeployment } from '../render/index.ts';
import { leftVerified, shortcut } from './converged.ts';
import { reconcileDelete } from './delete-deployment.ts';
import { checkDesiredIdentity } from './identity.ts';
import { checkImpostorLabels, recordLabelledPods } from './impostor.ts';
import { assessObject, rollUp } from './health.ts';
import { pausedDeploymentResult, pausedMain, recordPaused } from './paused.ts';
import { type ReconcileResult, resultOf } from './result.ts';
import {
  checkNamespace,
  claimPrefixes,
  eventTarget,
  failureOf,
  isClaimOf,
  keptVolumesMessage,
  namespaceOf,
} from './steps.ts';
import type { ReconcileDeps, ReconcileInput } from './types.ts';

export type { ReconcileDeps, ReconcileInput, ReconcileSettings, Resources } from './types.ts';

/** Reconciles one deployment; see the module comment for how outcomes are interpreted. */
export async function reconcileDeployment(
  deps: ReconcileDeps,
  input: ReconcileInput,
): Promise<ReconcileResult> {
  const { deployment } = input;
  const { resources, settings } = deps;
  const logger = deps.logger.child({ deploymentId: deployment.id });
  const clock = deps.clock ?? Date.now;
  const startedMs = clock();

  // 1. The revision was chosen by the caller (revision-choice.ts: latest unless it failed, then active).

  // 2. Namespace: it must be one of ours before anything is read or written.
  const namespace = checkNamespace(deps, deployment, namespaceOf(deployment));

  // 3. AWAITING_DELETE: remove what it owns instead of rendering it.
  if (deployment.status === 'AWAITING_DELETE') return reconcileDelete(deps, deployment, namespace);

  // 4. Inventory: this deployment's owned objects, one list per kind (the no-op check's live side).
  const listOwned = () =>
    resources.listOwned({
      namespaces: [namespace],
      listenerId: settings.listenerId,
      deploymentId: deployment.id,
    });
  let owned: Inventory | undefined;

  // 5. A resync of what the previous pass found converged: when every object is still the version
  //    it verified, there is nothing to render or compare (converged.ts).
  const key = input.inputKey;
  if (key !== undefined && deps.verified && !settings.dryRun) {
    const previous = input.converged?.key === key ? input.converged : undefined;
    const listed = previous ? undefined : await deps.listedPass?.(deployment.id, key, namespace);
    if (listed) {
      // Its objects were judged as they were listed, and let go: nothing is listed again.
      const found = { entries: [], dryRun: false, unchangedUnlisted: listed.pass.objects };
      const result = resultOf(found, listed.health);
      result.converged = listed.pass;
      logger.debug(
        { health: result.health.state, durationMs: clock() - startedMs },
        'converged: not rendered, judged as listed',
      );
      return result;
    }
    if (previous || deps.coldPass) owned = await listOwned();
    const pass = previous ?? deps.coldPass?.(deployment.id, key, namespace);
    const result = pass && owned && shortcut(pass, owned.objects, deps.verified);
    if (result) {
      logger.debug(
        { health: result.health.state, durationMs: clock() - startedMs },
        'converged: not rendered',
      );
      return result;
    }
  }

  // 6. Render (pure). UNUSED renders every workload at zero replicas. RenderError is terminal.
  //    A revision resolved without being read (a restart memo knew it) is read now.
  const revision = input.revision ?? (await input.loadRevision?.());
  const rendered = (deps.render ?? renderDeployment)({
    deployment,
    revision,
    settings: input.settings,
  });
  checkNamespace(deps, deployment, rendered.namespace);
  const desired: KubeObject[] = rendered.objects;
  // Every object must land in the checked namespace: the allowlist is only as good as this.
  const stray = desired.find((o) => o.metadata.namespace !== namespace);
  if (stray) {
    throw new TerminalError(
      'MOORING_E_NAMESPACE_NOT_ALLOWED',
      `${objectId(stray)}: rendered outside the deployment's namespace ${namespace}; nothing written`,
      { details: { deploymentId: deployment.id, namespace: stray.metadata.namespace ?? null } },
    );
  }

  // 6b. Identity: a claim or Secret the pods refer to, or a claim a StatefulSet would adopt, that
  //     is labelled for another deployment or listener refuses the deployment, whatever its name.
  await checkDesiredIdentity(deps, desired, { namespace, deploymentId: deployment.id });
  // 6c. The record's labels may not put its pods behind another workload's Service or inside its
  //     NetworkPolicy (impostor.ts); the namespace's are listed only for pods with such labels.
  const labelled = recordLabelledPods(desired);
  if (labelled.length > 0 && deps.foreignSelectors) {
    checkImpostorLabels(labelled, await deps.foreignSelectors(namespace), deployment.id);
  }

  owned ??= await listOwned();

  // 6b. Paused: `mooring.dev/reconcile: disabled` on the API server Deployment leaves the whole
  //     deployment alone (no apply, no prune); on another object, apply and prune skip just it.
  const pausedBy = pausedMain(owned, namespace, rendered.baseName);
  if (pausedBy) {
    const result = pausedDeploymentResult(desired, owned, settings.dryRun);
    recordPaused(
      deps,
      eventTarget(namespace, rendered.baseName, new Map([[objectId(pausedBy), pausedBy]])),
      result.changeSet,
    );
    logger.info(
      { changes: summarize(result.changeSet), health: result.health.state },
      `deployment ${deployment.id}: paused; nothing applied or pruned`,
    );
    return result;
  }

  // 7. Apply in kind order; converged objects cost no request.
  const observed = new Map<string, KubeObject>();
  const applied = await resources.applyAll(desired, {
    live: owned.byId,
    observed,
    ...(input.inputKey === undefined ? {} : { inputKey: input.inputKey }),
    dryRun: settings.dryRun,
    recreateStatefulSets: settings.recreateStatefulSets,
  });
  const target = eventTarget(namespace, rendered.baseName, observed);
  if (changeSetErrors(applied).length > 0) {
    const failure = failureOf(deployment.id, applied);
    logger.error({ code: failure.code, changes: summarize(applied) }, failure.message);
    if (!settings.dryRun) {
      deps.events?.record({
        target,
        reason: 'ApplyFailed',
        type: 'Warning',
        message: `${failure.code}: ${failure.message}`,
      });
    }
    throw failure;
  }
  if (hasChanges(applied) && !settings.dryRun) {
    const changed = applied.entries
      .filter((e) => e.action === 'created' || e.action === 'configured')
      .map((e) => `${e.id} ${e.action}`);
    deps.events?.record({
      target,
      reason: 'Applied',
      type: 'Normal',
      message: `${summarize(applied)}: ${changed.join(', ')}`,
    });
  }

  // 8. Prune this deployment's stale objects: owned but no longer desired (volumes of desired StatefulSets never).
  //    Only in its namespace: what a namespace move left elsewhere is the orphan pass's, which waits
  //    until the deployment runs here (orphans.ts), so a move never removes the only running copy.
  const desiredIds = new Set(desired.map(objectId));
  const claims = claimPrefixes(desired);
  const stale = owned.objects.filter((o) => !desiredIds.has(objectId(o)) && !isClaimOf(claims, o));
  let pruned: ChangeSet = { entries: [], dryRun: settings.dryRun };
  if (stale.length > 0) {
    pruned = await resources.deleteAll(stale, {
      deleteVolumes: settings.deleteVolumes,
      listenerId: settings.listenerId,
      dryRun: settings.dryRun,
    });
    const gone = pruned.entries.filter((e) => e.action === 'deleted' && e.detail !== 'already-terminating');
    if (gone.length > 0 && !settings.dryRun) {
      deps.events?.record({
        target,
        reason: 'Pruned',
        type: 'Normal',
        message: `pruned ${gone.map((e) => e.id).join(', ')}`,
      });
    }
    const kept = keptVolumesMessage(pruned);
    if (kept && !settings.dryRun)
      deps.events?.record({ target, reason: 'VolumeKept', type: 'Normal', message: kept });
  }
  const changeSet = mergeChangeSets(applied, pruned);
  recordPaused(deps, target, changeSet);
  if (changeSetErrors(pruned).length > 0) throw failureOf(deployment.id, changeSet);

  // 9. Health, from the objects as the apply left them (no extra read).
  const health = rollUp([...observed.values()].map(assessObject));
  logger.info(
    { changes: summarize(changeSet), health: health.state, durationMs: clock() - startedMs },
    `deployment ${deployment.id}: ${summarize(changeSet)}; ${health.state}: ${health.reason}`,
  );

  // 10. Result: look again soon while a rollout is in progress. A pass that pruned nothing and
  //     wrote nothing, or left every object it wrote verified, passes on what it verified, for
  //     the next pass's shortcut (step 5) and the restart memo.
  const result = resultOf(changeSet, health);
  const verified = deps.verified;
  if (key !== undefined && !settings.dryRun) {
    const settled =
      allUnchanged(changeSet) ||
      (pruned.entries.length === 0 &&
        verified !== undefined &&
        leftVerified(desired, observed, key, verified));
    if (settled) result.converged = { key, objects: desired.length, claimPrefixes: claims };
  }
  return result;
}
