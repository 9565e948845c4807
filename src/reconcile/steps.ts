/** Small pieces the reconcile steps share: the namespace check, event targets, failures, claims. */
import type { DeploymentRecord } from '../contract/index.ts';
import { MooringError, TerminalError } from '../errors.ts';
import { flat } from '../kube/object-version.ts';
import { type ChangeSet, changeSetErrors, changeSetView } from '../objects/change-set.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import type { EventTarget } from './events.ts';
import type { ReconcileDeps } from './types.ts';

/** The target namespace the deployment record names (`source_config.listener_config.k8s_namespace`). */
export function namespaceOf(deployment: DeploymentRecord): string | undefined {
  return deployment.source_config?.listener_config?.k8s_namespace ?? undefined;
}

/** The namespace if it is one of the agent's; else MOORING_E_NAMESPACE_NOT_ALLOWED, before anything is written. */
export function checkNamespace(
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

/** The deployment's secret values: the agent's redactor scrubs them from all it emits. */
export function secretValues(deployment: DeploymentRecord): string[] {
  return (deployment.secrets ?? [])
    .map((s) => s.value)
    .filter((v): v is string => typeof v === 'string' && v !== '');
}

/** The object events are about: the API server Deployment when rendered, else the namespace. */
export function eventTarget(
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
export function failureOf(deploymentId: string, cs: ChangeSet): MooringError {
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

/** The claim prefixes of a deployment without StatefulSet claims, shared by all of them. */
const NO_CLAIMS: readonly string[] = Object.freeze([]);

/**
 * `<template>-<statefulset>-` of the desired StatefulSets' claim templates: the PVCs named
 * `<prefix><ordinal>` (`isClaimOf`) are never stale.
 */
export function claimPrefixes(desired: readonly KubeObject[]): readonly string[] {
  const prefixes: string[] = [];
  for (const o of desired) {
    if (o.kind !== 'StatefulSet') continue;
    const templates =
      (o.spec as { volumeClaimTemplates?: Array<{ metadata?: { name?: string } }> } | undefined)
        ?.volumeClaimTemplates ?? [];
    for (const t of templates)
      if (t.metadata?.name) prefixes.push(flat(`${t.metadata.name}-${o.metadata.name}-`));
  }
  // A converged pass keeps the list for the deployment's life: no spare capacity (a list grown by
  // a push keeps room for 17), and one shared empty list for every deployment without claims.
  return prefixes.length === 0 ? NO_CLAIMS : prefixes.slice();
}

/** Whether `o` is a volume claim made from one of the claim templates (`<prefix><ordinal>`). */
export function isClaimOf(prefixes: readonly string[], o: KubeObject): boolean {
  if (o.kind !== 'PersistentVolumeClaim' || prefixes.length === 0) return false;
  const name = o.metadata.name ?? '';
  return prefixes.some((p) => name.startsWith(p) && /^\d+$/.test(name.slice(p.length)));
}

/**
 * The Event message when a prune deleted a StatefulSet and kept its claims (a deployment that now
 * brings its own database, or dropped a component): said once, in the pass that deleted it, since
 * later passes find the claims kept already. Undefined when there is nothing to say.
 */
export function keptVolumesMessage(pruned: ChangeSet): string | undefined {
  const statefulSetGone = pruned.entries.some((e) => e.kind === 'StatefulSet' && e.action === 'deleted');
  const kept = pruned.entries
    .filter((e) => e.action === 'skipped' && e.detail === 'volume-kept')
    .map((e) => e.id);
  if (!statefulSetGone || kept.length === 0) return undefined;
  return `kept ${kept.join(', ')}: its StatefulSet is no longer rendered; the data stays until you delete the claim (or run with --delete-volumes)`;
}
