/**
 * Storage object in-use protection, as the admission plugin and the PVC protection controller of
 * a cluster do it: every new claim gets the `kubernetes.io/pvc-protection` finalizer, and a claim
 * being deleted loses it (and goes) once no Pod that has not finished uses it.
 */
import type { Cluster } from './cluster.ts';
import type { ResourceType } from './resources.ts';
import type { ObjectMeta, StoredObject } from './types.ts';

type Obj = Record<string, unknown>;

export const PVC_PROTECTION = 'kubernetes.io/pvc-protection';

/** Adds the protection finalizer to a claim being created (the StorageObjectInUseProtection plugin). */
export function protectClaim(kind: string, meta: ObjectMeta): void {
  if (kind !== 'PersistentVolumeClaim') return;
  const finalizers = meta.finalizers ?? [];
  if (!finalizers.includes(PVC_PROTECTION)) meta.finalizers = [...finalizers, PVC_PROTECTION];
}

/** The claims a Pod's volumes name. */
function claimsOf(pod: StoredObject | undefined): string[] {
  const volumes = ((pod?.spec as Obj | undefined)?.volumes ?? []) as Obj[];
  return volumes
    .map((v) => (v?.persistentVolumeClaim as Obj | undefined)?.claimName)
    .filter((n): n is string => typeof n === 'string');
}

const finished = (pod: StoredObject) => {
  const phase = (pod.status as Obj | undefined)?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
};

export class ClaimProtectionController {
  private readonly cluster: Cluster;
  private readonly queued = new Set<string>();

  constructor(cluster: Cluster) {
    this.cluster = cluster;
    cluster.writeHooks.push((type, object, previous) => this.observe(type, object, previous));
  }

  private observe(
    type: ResourceType,
    object: StoredObject | undefined,
    previous: StoredObject | undefined,
  ): void {
    const namespace = (object ?? previous)?.metadata.namespace ?? '';
    if (type.kind === 'PersistentVolumeClaim') {
      if (object?.metadata.deletionTimestamp && object.metadata.finalizers?.includes(PVC_PROTECTION))
        this.queue(namespace, object.metadata.name ?? '');
    } else if (type.kind === 'Pod' && (!object || finished(object))) {
      for (const claim of claimsOf(previous ?? object)) this.queue(namespace, claim);
    }
  }

  private queue(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    if (this.queued.has(key)) return;
    this.queued.add(key);
    const immediate = setImmediate(() => {
      this.queued.delete(key);
      this.release(namespace, name);
    });
    immediate.unref();
  }

  /** Removes the finalizer of a claim being deleted that no running Pod uses. */
  private release(namespace: string, name: string): void {
    const type = this.cluster.typeFor('v1', 'PersistentVolumeClaim');
    const live = this.cluster.store.get(type, namespace, name);
    if (!live?.metadata.deletionTimestamp || !live.metadata.finalizers?.includes(PVC_PROTECTION)) return;
    const pods = this.cluster.store.list(this.cluster.typeFor('v1', 'Pod'), namespace);
    if (pods.some((pod) => !finished(pod) && claimsOf(pod).includes(name))) return;
    const left = live.metadata.finalizers.filter((f) => f !== PVC_PROTECTION);
    if (left.length === 0) this.cluster.erase(type, live);
    else this.cluster.commit(type, { ...live, metadata: { ...live.metadata, finalizers: left } }, live);
  }
}
