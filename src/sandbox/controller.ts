/**
 * A simulated workload controller: after a configurable delay, Deployments and StatefulSets get
 * the status a real controller writes once their pods are ready (or, on request, the status of a
 * rollout that exceeded its progress deadline). Status writes are "kube-controller-manager"
 * Update operations on the status subresource: they bump resourceVersion and reach watches, and
 * are not API requests (they never appear in the request log). A Deployment's status write also
 * sets its `deployment.kubernetes.io/revision` annotation (the status subresource may change a
 * Deployment's annotations, not its spec or labels), so the controller owns that annotation and
 * the Deployment's generation does not move. It also keeps its ReplicaSets (a deleted one is made
 * again, a hand-scaled one scaled back), records Events, and follows StatefulSet update strategies.
 */
import { recordUpdate } from './apply/index.ts';
import { PVC_PROTECTION } from './claim-protection.ts';
import type { Cluster } from './cluster.ts';
import { syncControllerRevisions } from './controller-revisions.ts';
import { clone } from './equal.ts';
import {
  annotationsPending,
  controllerRef,
  podTemplateHash,
  REVISION,
  syncReplicaSets,
} from './replica-sets.ts';
import type { ResourceType } from './resources.ts';
import { statefulSetStatus } from './statefulset-status.ts';
import type { StoredObject } from './types.ts';

export interface ControllerOptions {
  /** Time from a spec change to the workload being Available. */
  rolloutDelayMs: number;
}

type Obj = Record<string, unknown>;

const MANAGER = 'kube-controller-manager';

function key(kind: string, namespace: string | undefined, name: string | undefined): string {
  return `${kind}/${namespace ?? ''}/${name ?? ''}`;
}

export class WorkloadController {
  private readonly cluster: Cluster;
  private readonly options: ControllerOptions;
  /** Pending rollouts by workload: how to cancel each. */
  private readonly timers = new Map<string, () => void>();
  private readonly failNext = new Set<string>();
  private closed = false;

  constructor(cluster: Cluster, options: ControllerOptions) {
    this.cluster = cluster;
    this.options = options;
    cluster.writeHooks.push((type, object, previous) => this.observe(type, object, previous));
  }

  /** Makes the next rollout of this workload end with ProgressDeadlineExceeded. */
  failRollout(namespace: string, name: string, kind: 'Deployment' | 'StatefulSet' = 'Deployment'): void {
    this.failNext.add(key(kind, namespace, name));
  }

  close(): void {
    this.closed = true;
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
  }

  private observe(
    type: ResourceType,
    object: StoredObject | undefined,
    previous: StoredObject | undefined,
  ): void {
    const kind = (object ?? previous)?.kind;
    if (kind === 'ReplicaSet') {
      this.observeReplicaSet(object, previous);
      return;
    }
    if (kind !== 'Deployment' && kind !== 'StatefulSet') return;
    const id = key(kind, (object ?? previous)?.metadata.namespace, (object ?? previous)?.metadata.name);
    if (!object) {
      this.timers.get(id)?.();
      this.timers.delete(id);
      return;
    }
    const status = (object.status ?? {}) as Obj;
    const replicas = ((object.spec as Obj | undefined)?.replicas as number | undefined) ?? 1;
    const settled =
      status.observedGeneration === object.metadata.generation && (status.replicas ?? 0) === replicas;
    // An annotation change (a new change-cause) moves no generation; the controller copies it anyway.
    if (settled && (kind !== 'Deployment' || !annotationsPending(this.cluster, object))) return;
    this.schedule(type, object);
  }

  /**
   * The Deployment controller watches its ReplicaSets: the current one deleted is made again, and
   * one scaled by hand is scaled back to what the Deployment wants.
   */
  private observeReplicaSet(object: StoredObject | undefined, previous: StoredObject | undefined): void {
    const rs = (object ?? previous) as StoredObject;
    const ref = rs.metadata.ownerReferences?.find((r) => r.controller && r.kind === 'Deployment');
    if (!ref) return;
    const type = this.cluster.typeFor('apps/v1', 'Deployment');
    const owner = this.cluster.store.get(type, rs.metadata.namespace ?? '', ref.name);
    if (!owner || owner.metadata.uid !== ref.uid || owner.metadata.deletionTimestamp) return;
    const current = rs.metadata.name === `${owner.metadata.name}-${podTemplateHash(owner)}`;
    if (!object) {
      if (current) this.schedule(type, owner);
      return;
    }
    const replicas = (object.spec as Obj | undefined)?.replicas;
    if (!previous || replicas === (previous.spec as Obj | undefined)?.replicas) return;
    const wanted = current ? (((owner.spec as Obj | undefined)?.replicas as number | undefined) ?? 1) : 0;
    if (replicas !== wanted) this.schedule(type, owner);
  }

  /** Queues a sync of the workload, after the rollout delay; one at a time per workload. */
  private schedule(type: ResourceType, object: StoredObject): void {
    const id = key(object.kind, object.metadata.namespace, object.metadata.name);
    if (this.closed || this.timers.has(id)) return;
    const fail = this.failNext.delete(id);
    const run = (): void => {
      this.timers.delete(id);
      this.settle(type, object.metadata.namespace ?? '', object.metadata.name ?? '', fail);
    };
    if (this.options.rolloutDelayMs > 0) {
      const timer = setTimeout(run, this.options.rolloutDelayMs);
      timer.unref();
      this.timers.set(id, () => clearTimeout(timer));
    } else {
      // No delay: right after the write's response, in the same turn of the event loop (a timer
      // would wake the process once more per workload).
      const immediate = setImmediate(run);
      immediate.unref();
      this.timers.set(id, () => clearImmediate(immediate));
    }
  }

  private settle(type: ResourceType, namespace: string, name: string, fail: boolean): void {
    const live = this.cluster.store.get(type, namespace, name);
    if (!live || live.metadata.deletionTimestamp) return;
    let metadata = live.metadata;
    let status: Obj;
    if (live.kind === 'StatefulSet') {
      this.createClaims(live);
      status = statefulSetStatus(live, fail, syncControllerRevisions(this.cluster, live));
    } else {
      const revision = syncReplicaSets(this.cluster, live, !fail);
      if (revision !== undefined && live.metadata.annotations?.[REVISION] !== revision)
        metadata = { ...metadata, annotations: { ...metadata.annotations, [REVISION]: revision } };
      status = revision === undefined ? this.heldStatus(live) : this.deploymentStatus(live, fail);
      if ((live.spec as Obj | undefined)?.paused === true) status = this.pausedCondition(status);
    }
    // Stored objects are never mutated, so the status write shares everything else with live
    // (and the ownership comparison skips the shared subtrees).
    const next: StoredObject = { ...live, metadata, status };
    const recorded = recordUpdate({
      live,
      updated: next,
      manager: MANAGER,
      now: this.cluster.now(),
      subresource: 'status',
    }) as StoredObject;
    this.cluster.commit(type, recorded, live);
  }

  /**
   * The StatefulSet controller's PVCs: `<template>-<set>-<ordinal>` for each replica, labelled
   * with the selector and template labels, bound at once (a default StorageClass provisions them).
   * Owned by the set only under `whenDeleted: Delete`; with Retain they outlive it, as in a cluster.
   */
  private createClaims(set: StoredObject): void {
    const spec = (set.spec ?? {}) as Obj;
    const replicas = (spec.replicas as number | undefined) ?? 1;
    const matchLabels = ((spec.selector as Obj | undefined)?.matchLabels ?? {}) as Record<string, string>;
    const retention = (spec.persistentVolumeClaimRetentionPolicy ?? {}) as Obj;
    const claims = this.cluster.typeFor('v1', 'PersistentVolumeClaim');
    const namespace = set.metadata.namespace ?? '';
    for (const template of (spec.volumeClaimTemplates ?? []) as StoredObject[]) {
      for (let i = 0; i < replicas; i++) {
        const name = `${template.metadata?.name}-${set.metadata.name}-${i}`;
        if (this.cluster.store.get(claims, namespace, name)) continue;
        const claimSpec = clone((template.spec ?? {}) as Obj);
        const uid = this.cluster.uid();
        claimSpec.volumeName = `pvc-${uid}`;
        claimSpec.storageClassName ??= 'standard';
        claimSpec.volumeMode ??= 'Filesystem';
        const claim: StoredObject = {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: {
            name,
            namespace,
            uid,
            creationTimestamp: this.cluster.now(),
            labels: { ...matchLabels, ...(template.metadata?.labels ?? {}) },
            finalizers: [PVC_PROTECTION],
          },
          spec: claimSpec,
          status: {
            phase: 'Bound',
            accessModes: claimSpec.accessModes,
            capacity: {
              storage: ((claimSpec.resources as Obj | undefined)?.requests as Obj | undefined)?.storage,
            },
          },
        };
        if (retention.whenDeleted === 'Delete') {
          claim.metadata.ownerReferences = [controllerRef('StatefulSet', set)];
        }
        const now = this.cluster.now();
        const created = this.cluster.commit(
          claims,
          recordUpdate({ live: undefined, updated: claim, manager: MANAGER, now }) as StoredObject,
          undefined,
        );
        // Binding is a separate status write (the volume controller's), as in a cluster.
        const bound = recordUpdate({
          live: created,
          updated: { ...created, status: claim.status },
          manager: MANAGER,
          now,
          subresource: 'status',
        });
        this.cluster.commit(claims, bound as StoredObject, created);
        const message = `create Claim ${name} Pod ${set.metadata.name}-${i} in StatefulSet ${set.metadata.name} success`;
        this.cluster.events.record(set, 'Normal', 'SuccessfulCreate', message, 'statefulset-controller');
      }
    }
  }

  /**
   * A paused Deployment whose template has no ReplicaSet yet: its pods are all the old
   * ReplicaSets', none of them updated; only the generation it observed moves.
   */
  private heldStatus(obj: StoredObject): Obj {
    const status: Obj = { ...((obj.status ?? {}) as Obj), observedGeneration: obj.metadata.generation };
    delete status.updatedReplicas;
    return status;
  }

  /** The Progressing condition the controller sets on any paused Deployment. */
  private pausedCondition(status: Obj): Obj {
    const now = this.cluster.now();
    const others = ((status.conditions ?? []) as Obj[]).filter((c) => c.type !== 'Progressing');
    const paused = {
      type: 'Progressing',
      status: 'Unknown',
      reason: 'DeploymentPaused',
      message: 'Deployment is paused',
      lastUpdateTime: now,
      lastTransitionTime: now,
    };
    return { ...status, conditions: [...others, paused] };
  }

  private deploymentStatus(obj: StoredObject, fail: boolean): Obj {
    const replicas = ((obj.spec as Obj | undefined)?.replicas as number | undefined) ?? 1;
    const now = this.cluster.now();
    const rs = `${obj.metadata.name}-${podTemplateHash(obj)}`;
    const status: Obj = { observedGeneration: obj.metadata.generation };
    if (replicas > 0) {
      status.replicas = replicas;
      status.updatedReplicas = replicas;
      if (fail) status.unavailableReplicas = replicas;
      else {
        status.readyReplicas = replicas;
        status.availableReplicas = replicas;
      }
    }
    const available = fail
      ? {
          type: 'Available',
          status: 'False',
          reason: 'MinimumReplicasUnavailable',
          message: 'Deployment does not have minimum availability.',
        }
      : {
          type: 'Available',
          status: 'True',
          reason: 'MinimumReplicasAvailable',
          message: 'Deployment has minimum availability.',
        };
    const progressing = fail
      ? {
          type: 'Progressing',
          status: 'False',
          reason: 'ProgressDeadlineExceeded',
          message: `ReplicaSet "${rs}" has timed out progressing.`,
        }
      : {
          type: 'Progressing',
          status: 'True',
          reason: 'NewReplicaSetAvailable',
          message: `ReplicaSet "${rs}" has successfully progressed.`,
        };
    status.conditions = [
      { ...available, lastUpdateTime: now, lastTransitionTime: now },
      { ...progressing, lastUpdateTime: now, lastTransitionTime: now },
    ];
    return status;
  }
}
