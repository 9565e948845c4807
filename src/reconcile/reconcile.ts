/**
 * One deployment, one pass: make the cluster match what the control plane says, safely. The body
 * is a list of commented steps; each fails with its own coded reason. Outcomes are interpreted in
 * one place (the agent's runner): a returned result (with an optional requeue), a MooringError
 * (retried with backoff) or a TerminalError (parked until the desired state changes).
 */
import type { Logger } from 'pino';
import type { DeploymentRecord, RevisionRecord } from '../contract/index.ts';
import { MooringError, TerminalError } from '../errors.ts';
import {
  type ChangeSet,
  changeSetErrors,
  changeSetView,
  hasChanges,
  mergeChangeSets,
  summarize,
} from '../kube/change-set.ts';
import type { ApplyOptions } from '../kube/apply.ts';
import { ALREADY_TERMINATING, type DeleteAllOptions, TERMINATING } from '../kube/delete.ts';
import type { Inventory, ListOwnedOptions } from '../kube/list.ts';
import { objectId } from '../kube/object-id.ts';
import type { KubeObject } from '../kube/types.ts';
import { type RenderResult, type RenderSettings, renderDeployment } from '../render/index.ts';
import type { EventRecorder, EventTarget } from './events.ts';
import { assessObject, deletionHealth, rollUp } from './health.ts';
import { type ReconcileResult, resultOf } from './result.ts';

/** What reconcile needs of the resource manager (ResourceManager implements it). */
export interface Resources {
  applyAll(objects: readonly KubeObject[], opts?: ApplyOptions): Promise<ChangeSet>;
  listOwned(opts: ListOwnedOptions): Promise<Inventory>;
  deleteAll(objects: readonly KubeObject[], opts: DeleteAllOptions): Promise<ChangeSet>;
}

export interface ReconcileSettings {
  listenerId: string;
  /** The namespaces this agent may write to: anything else is refused before any write. */
  namespaces: readonly string[];
  /** Delete PVCs with their deployment (off: data is kept). */
  deleteVolumes: boolean;
  /** Allow delete + recreate of a StatefulSet whose immutable fields changed. */
  recreateStatefulSets: boolean;
  /** Preview: every write is sent with dryRun=All; no events. */
  dryRun: boolean;
}

export interface ReconcileDeps {
  resources: Resources;
  events?: EventRecorder;
  logger: Logger;
  /** Milliseconds since the epoch, for the duration logged per reconcile (Date.now by default). */
  clock?: () => number;
  settings: ReconcileSettings;
  /** The renderer (injected in tests); renderDeployment by default. */
  render?: (input: {
    deployment: DeploymentRecord;
    revision?: RevisionRecord | undefined;
    settings: RenderSettings;
  }) => RenderResult;
}

export interface ReconcileInput {
  deployment: DeploymentRecord;
  /** The revision to run, chosen by the caller with `chooseRevision`. */
  revision?: RevisionRecord | undefined;
  settings: RenderSettings;
}

function namespaceOf(deployment: DeploymentRecord): string | undefined {
  return deployment.source_config?.listener_config?.k8s_namespace ?? undefined;
}

function checkNamespace(
  deps: ReconcileDeps,
  deployment: DeploymentRecord,
  namespace: string | undefined,
): string {
  if (namespace && deps.settings.namespaces.includes(namespace)) return namespace;
  throw new TerminalError(
    'MOORING_E_NAMESPACE_NOT_ALLOWED',
    `deployment ${deployment.id}: namespace ${namespace ?? '(none)'} is not one of the agent's namespaces (${deps.settings.namespaces.join(', ')}); nothing written`,
    { details: { deploymentId: deployment.id, namespace: namespace ?? null } },
  );
}

function secretValues(deployment: DeploymentRecord): string[] {
  return (deployment.secrets ?? []).map((s) => s.value).filter((v) => typeof v === 'string' && v !== '');
}

/** The object events are about: the API server Deployment when rendered, else the namespace. */
function eventTarget(
  namespace: string,
  baseName: string | undefined,
  observed: ReadonlyMap<string, KubeObject>,
): EventTarget {
  const main = baseName ? observed.get(`Deployment/${namespace}/${baseName}`) : undefined;
  if (main && baseName) {
    const t: EventTarget = { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: baseName };
    if (main.metadata.uid) t.uid = main.metadata.uid;
    return t;
  }
  return { apiVersion: 'v1', kind: 'Namespace', namespace, name: namespace };
}

/** The error a failed change set is reported with: retryable first (so it is retried), carrying the change set. */
function failureOf(deploymentId: string, cs: ChangeSet): MooringError {
  const errors = changeSetErrors(cs);
  const first = errors.find((e) => e.retryable) ?? (errors[0] as MooringError);
  const details = {
    ...first.details,
    deploymentId,
    codes: errors.map((e) => e.code),
    changeSet: changeSetView(cs),
  };
  return first.retryable
    ? new MooringError(first.code, first.message, {
        cause: first,
        details,
        ...(first.retryAfterMs ? { retryAfterMs: first.retryAfterMs } : {}),
      })
    : new TerminalError(first.code, first.message, { cause: first, details });
}

/** PVCs made from a desired StatefulSet's claim templates (`<template>-<statefulset>-<ordinal>`): never stale. */
function claimsOfDesired(desired: readonly KubeObject[]): (name: string) => boolean {
  const prefixes: string[] = [];
  for (const o of desired) {
    if (o.kind !== 'StatefulSet') continue;
    const templates =
      (o.spec as { volumeClaimTemplates?: Array<{ metadata?: { name?: string } }> } | undefined)
        ?.volumeClaimTemplates ?? [];
    for (const t of templates) if (t.metadata?.name) prefixes.push(`${t.metadata.name}-${o.metadata.name}-`);
  }
  return (name) => prefixes.some((p) => name.startsWith(p) && /^\d+$/.test(name.slice(p.length)));
}

/** Deletes everything the deployment owns (status AWAITING_DELETE). */
async function reconcileDelete(
  deps: ReconcileDeps,
  deployment: DeploymentRecord,
  namespace: string,
): Promise<ReconcileResult> {
  const { resources, settings, logger } = deps;
  const listing = { namespaces: [namespace], listenerId: settings.listenerId, deploymentId: deployment.id };
  // 1. Inventory of what this deployment owns (a failed listing deletes nothing).
  const owned = await resources.listOwned(listing);
  // 2. Delete in reverse kind order; volumes only with the operator's opt-in.
  const cs = await resources.deleteAll(owned.objects, {
    deleteVolumes: settings.deleteVolumes,
    listenerId: settings.listenerId,
    dryRun: settings.dryRun,
  });
  const log = logger.child({ deploymentId: deployment.id, namespace });
  log.info({ changes: summarize(cs) }, `deployment ${deployment.id}: delete: ${summarize(cs)}`);
  const deleted = cs.entries.filter((e) => e.action === 'deleted' && e.note !== ALREADY_TERMINATING).length;
  if (deleted > 0 && !settings.dryRun) {
    await deps.events?.record({
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
        (e.action !== 'deleted' || e.note === TERMINATING || e.note === ALREADY_TERMINATING) &&
        !(e.action === 'skipped' && e.note?.startsWith('volume kept')),
    )
    .map((e) => owned.byId.get(e.id))
    .filter((o): o is KubeObject => o !== undefined);
  return resultOf(cs, deletionHealth(remaining));
}

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

  // 4. Render (pure). UNUSED renders every workload at zero replicas. RenderError is terminal.
  const rendered = (deps.render ?? renderDeployment)({
    deployment,
    revision: input.revision,
    settings: input.settings,
  });
  checkNamespace(deps, deployment, rendered.namespace);
  const desired = rendered.objects as unknown as KubeObject[];

  // 5. Inventory: this deployment's owned objects, one list per kind (the no-op check's live side).
  const owned = await resources.listOwned({
    namespaces: [namespace],
    listenerId: settings.listenerId,
    deploymentId: deployment.id,
  });

  // 6. Apply in kind order; converged objects cost no request.
  const observed = new Map<string, KubeObject>();
  const applied = await resources.applyAll(desired, {
    live: owned.byId,
    observed,
    dryRun: settings.dryRun,
    recreateStatefulSets: settings.recreateStatefulSets,
  });
  const target = eventTarget(namespace, rendered.baseName, observed);
  const secrets = secretValues(deployment);
  if (changeSetErrors(applied).length > 0) {
    const failure = failureOf(deployment.id, applied);
    logger.error({ code: failure.code, changes: summarize(applied) }, failure.message);
    if (!settings.dryRun) {
      await deps.events?.record({
        target,
        reason: 'ApplyFailed',
        type: 'Warning',
        message: `${failure.code}: ${failure.message}`,
        secretValues: secrets,
      });
    }
    throw failure;
  }
  if (hasChanges(applied) && !settings.dryRun) {
    const changed = applied.entries
      .filter((e) => e.action === 'created' || e.action === 'configured')
      .map((e) => `${e.id} ${e.action}`);
    await deps.events?.record({
      target,
      reason: 'Applied',
      type: 'Normal',
      message: `${summarize(applied)}: ${changed.join(', ')}`,
      secretValues: secrets,
    });
  }

  // 7. Prune this deployment's stale objects: owned but no longer desired (volumes of desired StatefulSets never).
  const desiredIds = new Set(desired.map(objectId));
  const isDesiredClaim = claimsOfDesired(desired);
  const stale = owned.objects.filter(
    (o) =>
      !desiredIds.has(objectId(o)) &&
      !(o.kind === 'PersistentVolumeClaim' && isDesiredClaim(o.metadata.name ?? '')),
  );
  let pruned: ChangeSet = { entries: [], dryRun: settings.dryRun };
  if (stale.length > 0) {
    pruned = await resources.deleteAll(stale, {
      deleteVolumes: settings.deleteVolumes,
      listenerId: settings.listenerId,
      dryRun: settings.dryRun,
    });
    const gone = pruned.entries.filter((e) => e.action === 'deleted');
    if (gone.length > 0 && !settings.dryRun) {
      await deps.events?.record({
        target,
        reason: 'Pruned',
        type: 'Normal',
        message: `pruned ${gone.map((e) => e.id).join(', ')}`,
      });
    }
  }
  const changeSet = mergeChangeSets(applied, pruned);
  if (changeSetErrors(pruned).length > 0) throw failureOf(deployment.id, changeSet);

  // 8. Health, from the objects as the apply left them (no extra read).
  const health = rollUp([...observed.values()].map(assessObject));
  logger.info(
    { changes: summarize(changeSet), health: health.state, durationMs: clock() - startedMs },
    `deployment ${deployment.id}: ${summarize(changeSet)}; ${health.state}: ${health.reason}`,
  );

  // 9. Result: look again soon while a rollout is in progress.
  return resultOf(changeSet, health);
}
