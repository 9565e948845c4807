/**
 * The kinds mooring renders and manages, as data: apiVersion, plural, scope, and whether an
 * immutable-field change may be fixed by deleting and recreating the object. Apply follows the
 * table's order (what others depend on first); delete follows it reversed. The one kind order:
 * the renderer emits its objects in it too, so `mooring render` prints them as they are applied.
 */
export interface KindInfo {
  apiVersion: string;
  kind: string;
  /** Lower-case plural used in API paths. */
  plural: string;
  namespaced: boolean;
  /** Delete + recreate is safe on an immutable-field change (no data lives in the object). */
  recreatable: boolean;
  /** Holds data: kept on delete unless the operator opts in (`deleteVolumes`). */
  volume?: boolean;
  /**
   * Rendered only with exposure on, and perhaps not served at all (the Gateway API is a CRD):
   * listed only when the agent enables it after discovery (`ResourceManager.listKinds`).
   */
  exposure?: boolean;
}

/** Apply order: policy and configuration first, then storage, services, workloads, then what targets workloads. */
export const KINDS: readonly KindInfo[] = [
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    plural: 'networkpolicies',
    namespaced: true,
    recreatable: true,
  },
  { apiVersion: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true, recreatable: false },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    plural: 'persistentvolumeclaims',
    namespaced: true,
    recreatable: false,
    volume: true,
  },
  { apiVersion: 'v1', kind: 'Service', plural: 'services', namespaced: true, recreatable: true },
  { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments', namespaced: true, recreatable: true },
  // Recreated only with the operator's opt-in (recreateStatefulSets), orphaning pods and keeping PVCs.
  {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    plural: 'statefulsets',
    namespaced: true,
    recreatable: false,
  },
  {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    plural: 'horizontalpodautoscalers',
    namespaced: true,
    recreatable: true,
  },
  {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    plural: 'poddisruptionbudgets',
    namespaced: true,
    recreatable: true,
  },
  // Exposure last: it routes to the Service, and a route to pods not yet running only waits.
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    plural: 'ingresses',
    namespaced: true,
    recreatable: true,
    exposure: true,
  },
  {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    plural: 'httproutes',
    namespaced: true,
    recreatable: true,
    exposure: true,
  },
];

/** The kinds every listing covers; the exposure kinds are added when exposure is on and served. */
export const LISTED_KINDS: readonly KindInfo[] = KINDS.filter((k) => k.exposure !== true);

/** The exposure kinds (Ingress, HTTPRoute). */
export const EXPOSURE_KIND_INFOS: readonly KindInfo[] = KINDS.filter((k) => k.exposure === true);

const byKind: ReadonlyMap<string, { info: KindInfo; rank: number }> = new Map(
  KINDS.map((k, i) => [k.kind, { info: k, rank: i }]),
);

/** The table row of a kind, or undefined for a kind mooring does not manage. */
export function kindInfo(kind: string): KindInfo | undefined {
  return byKind.get(kind)?.info;
}

/** Position in apply order; unknown kinds go last (after everything we know). */
export function applyRank(kind: string): number {
  return byKind.get(kind)?.rank ?? KINDS.length;
}

/** A stable sort into apply order (ties keep their input order). */
export function sortForApply<T extends { kind: string }>(objects: readonly T[]): T[] {
  return objects
    .map((o, i) => ({ o, i }))
    .sort((a, b) => applyRank(a.o.kind) - applyRank(b.o.kind) || a.i - b.i)
    .map((x) => x.o);
}

/** Delete order: apply order reversed (workload consumers before what they consume). */
export function sortForDelete<T extends { kind: string }>(objects: readonly T[]): T[] {
  return sortForApply(objects).reverse();
}
