/**
 * The Deployment controller's ReplicaSets: one per pod template (`<name>-<pod-template-hash>`),
 * owned by the Deployment (so garbage collection removes them with it), the current one scaled to
 * the Deployment's replicas and the older ones to zero, with the revision annotation
 * `kubectl rollout history` reads and the Deployment's annotations (its change-cause). The
 * Deployment carries its current ReplicaSet's revision too (controller.ts writes it with the
 * status, as the real controller does). Old ReplicaSets beyond `revisionHistoryLimit` are deleted,
 * and each change of size is a `ScalingReplicaSet` Event.
 */
import { hash as cryptoHash } from 'node:crypto';
import { recordUpdate } from './apply/index.ts';
import type { Cluster } from './cluster.ts';
import { deleteObject } from './deletes.ts';
import { clone } from './equal.ts';
import type { StoredObject } from './types.ts';

type Obj = Record<string, unknown>;

const MANAGER = 'kube-controller-manager';
export const REVISION = 'deployment.kubernetes.io/revision';

// Hashes by template object: stored objects are never mutated, and a workload's status writes
// share its template, so the controller hashes each template once.
const hashes = new WeakMap<object, string>();

/** The controller ownerReference an apps/v1 workload puts on what it creates (ReplicaSets, PVCs). */
export function controllerRef(kind: 'Deployment' | 'StatefulSet', owner: StoredObject) {
  return {
    apiVersion: 'apps/v1',
    kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * JSON with object keys sorted and nulls left out: the controller hashes the Go struct, where key
 * order does not exist and a null is an unset field, so neither may change the hash here.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  const entries = Object.keys(value as Obj)
    .sort()
    .filter((k) => (value as Obj)[k] !== null && (value as Obj)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Obj)[k])}`);
  return `{${entries.join(',')}}`;
}

/** A stable hash of the pod template, shaped like the controller's (no vowels, 10 characters). */
export function podTemplateHash(workload: StoredObject): string {
  const template = (workload.spec as Obj | undefined)?.template;
  const key = template !== null && typeof template === 'object' ? template : undefined;
  const cached = key && hashes.get(key);
  if (cached) return cached;
  const hash = cryptoHash('sha256', canonicalJson(template ?? {}), 'hex')
    .slice(0, 10)
    .replace(/[aeiou]/g, 'x');
  if (key) hashes.set(key, hash);
  return hash;
}

function write(
  cluster: Cluster,
  live: StoredObject | undefined,
  next: StoredObject,
  subresource?: string,
): StoredObject {
  const type = cluster.typeFor('apps/v1', 'ReplicaSet');
  const args = { live, updated: next, manager: MANAGER, now: cluster.now() };
  const recorded = recordUpdate(subresource ? { ...args, subresource } : args) as StoredObject;
  // The field manager keeps system metadata from live; generation is the controller's to set here.
  if (next.metadata.generation !== undefined) recorded.metadata.generation = next.metadata.generation;
  return cluster.commit(type, recorded, live);
}

/**
 * The ReplicaSet scaled to `replicas` with its generation bumped. Stored objects are never
 * mutated, so the copy shares everything it does not change.
 */
function rescaled(rs: StoredObject, replicas: number): StoredObject {
  return {
    ...rs,
    metadata: { ...rs.metadata, generation: (rs.metadata.generation ?? 1) + 1 },
    spec: { ...(rs.spec as Obj), replicas },
  };
}

/** Annotations the controller never copies from a Deployment to its ReplicaSets (skipCopyAnnotation). */
const NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION,
  'deployment.kubernetes.io/revision-history',
  'deployment.kubernetes.io/desired-replicas',
  'deployment.kubernetes.io/max-replicas',
  'deprecated.deployment.rollback.to',
]);

/**
 * The ReplicaSet's annotations with the Deployment's copied over (change-cause among them, which
 * `kubectl rollout history` reads from the ReplicaSets); the same object when nothing changes.
 */
function withDeploymentAnnotations(
  annotations: Record<string, string> | undefined,
  deployment: StoredObject,
): Record<string, string> | undefined {
  let out = annotations;
  for (const [key, value] of Object.entries(deployment.metadata.annotations ?? {})) {
    if (NOT_COPIED.has(key) || out?.[key] === value) continue;
    out = { ...out, [key]: value };
  }
  return out;
}

/** Whether the Deployment has annotations its current ReplicaSet does not carry yet. */
export function annotationsPending(cluster: Cluster, deployment: StoredObject): boolean {
  const type = cluster.typeFor('apps/v1', 'ReplicaSet');
  const name = `${deployment.metadata.name}-${podTemplateHash(deployment)}`;
  const rs = cluster.store.get(type, deployment.metadata.namespace ?? '', name);
  return (
    rs !== undefined &&
    withDeploymentAnnotations(rs.metadata.annotations, deployment) !== rs.metadata.annotations
  );
}

/** The Deployment controller's Event for a ReplicaSet's new size (scaleReplicaSetAndRecordEvent). */
function scaled(cluster: Cluster, deployment: StoredObject, rs: string, from: number, to: number): void {
  if (from === to) return;
  const how = from < to ? 'up' : 'down';
  const message = `Scaled ${how} replica set ${rs} from ${from} to ${to}`;
  cluster.events.record(deployment, 'Normal', 'ScalingReplicaSet', message, 'deployment-controller');
}

/**
 * Deletes the oldest ReplicaSets scaled to zero beyond the Deployment's `revisionHistoryLimit`
 * (cleanupDeployment), never one that still has replicas.
 */
function cleanup(cluster: Cluster, deployment: StoredObject, old: StoredObject[]): void {
  const limit = (deployment.spec as Obj | undefined)?.revisionHistoryLimit;
  if (typeof limit !== 'number') return;
  const alive = old.filter((rs) => !rs.metadata.deletionTimestamp);
  const revisionOf = (rs: StoredObject) => Number(rs.metadata.annotations?.[REVISION] ?? 0);
  alive.sort((a, b) => revisionOf(a) - revisionOf(b));
  const type = cluster.typeFor('apps/v1', 'ReplicaSet');
  for (const rs of alive.slice(0, Math.max(0, alive.length - limit))) {
    const live = cluster.store.get(type, rs.metadata.namespace ?? '', rs.metadata.name ?? '');
    const status = (live?.status ?? {}) as Obj;
    if (!live || (live.spec as Obj).replicas !== 0 || (status.replicas ?? 0) !== 0) continue;
    deleteObject(cluster, type, rs.metadata.namespace, rs.metadata.name ?? '', { dryRun: false });
  }
}

/**
 * Brings the Deployment's ReplicaSets in line with its spec; `ready` says whether the pods came
 * up. Returns the current ReplicaSet's revision: one more than any other's when its template is
 * new, or comes back after another (a rollback is a new revision, as in a cluster); undefined
 * when the Deployment is paused on a template that has no ReplicaSet yet. Each change of a
 * ReplicaSet's size is an Event on the Deployment, as the controller records it.
 */
export function syncReplicaSets(
  cluster: Cluster,
  deployment: StoredObject,
  ready: boolean,
): string | undefined {
  const spec = (deployment.spec ?? {}) as Obj;
  const replicas = (spec.replicas as number | undefined) ?? 1;
  const hash = podTemplateHash(deployment);
  const name = `${deployment.metadata.name}-${hash}`;
  const namespace = deployment.metadata.namespace ?? '';
  const owned = cluster.store
    .dependents(deployment.metadata.uid ?? '')
    .filter((d) => d.object.kind === 'ReplicaSet')
    .map((d) => cluster.store.get(d.type, namespace, d.object.metadata.name ?? ''))
    .filter((rs): rs is StoredObject => rs !== undefined);
  const revisionOf = (rs: StoredObject) => Number(rs.metadata.annotations?.[REVISION] ?? 0);
  const latest = Math.max(0, ...owned.filter((rs) => rs.metadata.name !== name).map(revisionOf));
  let current = owned.find((rs) => rs.metadata.name === name);
  // A paused Deployment rolls nothing out: no ReplicaSet for a new template until it is resumed.
  if (!current && spec.paused === true) return undefined;
  if (!current) {
    const template = clone((spec.template ?? {}) as Obj);
    const labels = {
      ...(((template.metadata as Obj | undefined)?.labels ?? {}) as Record<string, string>),
      'pod-template-hash': hash,
    };
    template.metadata = { ...((template.metadata as Obj | undefined) ?? {}), labels };
    const matchLabels = {
      ...(((spec.selector as Obj | undefined)?.matchLabels ?? {}) as Record<string, string>),
      'pod-template-hash': hash,
    };
    const annotations = withDeploymentAnnotations(
      { [REVISION]: String(latest + 1), 'deployment.kubernetes.io/desired-replicas': String(replicas) },
      deployment,
    );
    current = write(cluster, undefined, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name,
        namespace,
        uid: cluster.uid(),
        creationTimestamp: cluster.now(),
        generation: 1,
        labels,
        ...(annotations ? { annotations } : {}),
        ownerReferences: [controllerRef('Deployment', deployment)],
      },
      spec: { replicas, selector: { matchLabels }, template },
    });
    scaled(cluster, deployment, name, 0, replicas);
  } else {
    let next = current;
    let annotations = withDeploymentAnnotations(current.metadata.annotations, deployment);
    if (revisionOf(current) <= latest) annotations = { ...annotations, [REVISION]: String(latest + 1) };
    if (annotations !== current.metadata.annotations)
      next = { ...next, metadata: { ...next.metadata, annotations } };
    const from = (current.spec as Obj).replicas as number;
    if (from !== replicas) next = rescaled(next, replicas);
    if (next !== current) current = write(cluster, current, next);
    scaled(cluster, deployment, name, from, replicas);
  }
  const status: Obj = {
    replicas,
    fullyLabeledReplicas: replicas,
    observedGeneration: current.metadata.generation,
  };
  if (ready) Object.assign(status, { readyReplicas: replicas, availableReplicas: replicas });
  if (replicas === 0) delete status.fullyLabeledReplicas;
  write(cluster, current, { ...current, status }, 'status');
  // Older templates scale down once the new one is up (a finished rolling update).
  const old = owned.filter((rs) => rs.metadata.name !== name);
  for (const rs of old) {
    const from = (rs.spec as Obj).replicas as number;
    if (!ready || from === 0) continue;
    const stored = write(cluster, rs, rescaled(rs, 0));
    write(
      cluster,
      stored,
      { ...stored, status: { replicas: 0, observedGeneration: stored.metadata.generation } },
      'status',
    );
    scaled(cluster, deployment, rs.metadata.name ?? '', from, 0);
  }
  if (ready && spec.paused !== true) cleanup(cluster, deployment, old);
  return String(revisionOf(current));
}
