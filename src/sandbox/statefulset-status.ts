/** The StatefulSet controller's status, as kube-controller-manager computes it for the sandbox. */
import type { StoredObject } from './types.ts';

type Obj = Record<string, unknown>;

/**
 * The StatefulSet controller's status. Pods of ordinals at or above the RollingUpdate `partition`
 * move to the update revision; under `OnDelete` none does (nothing deletes pods here); once every
 * pod is updated, the update revision becomes the current one.
 */
export function statefulSetStatus(obj: StoredObject, fail: boolean, updateRevision: string): Obj {
  const spec = (obj.spec ?? {}) as Obj;
  const replicas = (spec.replicas as number | undefined) ?? 1;
  const strategy = (spec.updateStrategy ?? {}) as Obj;
  const before = (obj.status ?? {}) as Obj;
  let currentRevision = (before.currentRevision as string | undefined) || updateRevision;
  let updated = replicas;
  if (currentRevision !== updateRevision) {
    const partition = ((strategy.rollingUpdate as Obj | undefined)?.partition as number | undefined) ?? 0;
    updated = strategy.type === 'OnDelete' ? 0 : Math.max(0, replicas - partition);
    if (updated === replicas) currentRevision = updateRevision;
  }
  const status: Obj = {
    observedGeneration: obj.metadata.generation,
    replicas,
    currentReplicas: currentRevision === updateRevision ? replicas : replicas - updated,
    updatedReplicas: updated,
    currentRevision,
    updateRevision,
    collisionCount: 0,
    availableReplicas: fail ? 0 : replicas,
  };
  // Zero counts are left out, as the Go type's omitempty does.
  if (status.currentReplicas === 0) delete status.currentReplicas;
  if (updated === 0) delete status.updatedReplicas;
  if (!fail && replicas > 0) status.readyReplicas = replicas;
  return status;
}
