/**
 * delete and deletecollection with propagation (Orphan, Background, Foreground), garbage
 * collection through ownerReferences and finalizers (namespaces.ts terminates namespaces).
 */
import type { Cluster } from './cluster.ts';
import { clone } from './equal.ts';
import { RESOURCE_TYPES, type ResourceType } from './resources.ts';
import { selectObjects } from './reads.ts';
import { badRequest, conflict, forbidden, notFound, type Status, success } from './status.ts';
import type { KubeObject, StoredObject } from './types.ts';

export type Propagation = 'Orphan' | 'Background' | 'Foreground';

export interface DeleteOptions {
  propagationPolicy?: Propagation;
  dryRun: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
}

const FOREGROUND = 'foregroundDeletion';
/** The namespaces the NamespaceLifecycle admission plugin refuses to delete. */
const IMMORTAL = new Set(['default', 'kube-system', 'kube-public']);
const ORPHAN = 'orphan';

/** Reads DeleteOptions from the query and the (optional) JSON body; the body wins, like the server. */
export function parseDeleteOptions(query: URLSearchParams, body: unknown, dryRun: boolean): DeleteOptions {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const policy = (b.propagationPolicy as string | undefined) ?? query.get('propagationPolicy') ?? undefined;
  if (policy !== undefined && !['Orphan', 'Background', 'Foreground'].includes(policy)) {
    throw badRequest(
      `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
    );
  }
  const orphan = b.orphanDependents ?? (query.get('orphanDependents') === 'true' ? true : undefined);
  const bodyDryRun = Array.isArray(b.dryRun) && b.dryRun.includes('All');
  return {
    propagationPolicy: (policy as Propagation | undefined) ?? (orphan === true ? 'Orphan' : undefined),
    dryRun: dryRun || bodyDryRun,
    preconditions: b.preconditions as DeleteOptions['preconditions'],
  };
}

/** Deletes one object. Returns the body to answer: a Success Status, or the object if it lingers. */
export function deleteObject(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  options: DeleteOptions,
): { code: number; body: KubeObject | Status } {
  const live = cluster.store.get(type, namespace ?? '', name);
  if (!live) throw notFound(type, name);
  const pre = options.preconditions;
  if (pre?.uid && pre.uid !== live.metadata.uid) {
    throw conflict(
      type,
      name,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${live.metadata.uid}`,
    );
  }
  if (pre?.resourceVersion && pre.resourceVersion !== live.metadata.resourceVersion) {
    throw conflict(
      type,
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${live.metadata.resourceVersion}`,
    );
  }
  if (type.kind === 'Namespace' && IMMORTAL.has(name)) {
    throw forbidden(type, name, `namespaces "${name}" is forbidden: this namespace may not be deleted`);
  }
  if (options.dryRun) return { code: 200, body: success(type, name, live.metadata.uid) };
  const policy = options.propagationPolicy ?? 'Background';
  if (type.kind === 'Namespace') return { code: 200, body: cluster.namespaces.terminate(live) };
  const finalizers = [...(live.metadata.finalizers ?? [])];
  if (policy === 'Foreground' && !finalizers.includes(FOREGROUND)) finalizers.push(FOREGROUND);
  if (policy === 'Orphan' && !finalizers.includes(ORPHAN)) finalizers.push(ORPHAN);
  if (finalizers.length > 0) {
    if (live.metadata.deletionTimestamp) return { code: 202, body: live };
    const marked = clone(live);
    marked.metadata.deletionTimestamp = cluster.now();
    marked.metadata.deletionGracePeriodSeconds = 0;
    marked.metadata.finalizers = finalizers;
    const stored = cluster.commit(type, marked, live);
    setImmediate(() => collect(cluster, type, stored));
    return { code: 200, body: stored };
  }
  cluster.erase(type, live);
  setImmediate(() => deleteDependents(cluster, live, 'Background'));
  return { code: 200, body: success(type, name, live.metadata.uid) };
}

/** The garbage collector's part of a finalizer-driven delete (foreground or orphan). */
function collect(cluster: Cluster, type: ResourceType, marked: StoredObject): void {
  const finalizers = marked.metadata.finalizers ?? [];
  if (finalizers.includes(ORPHAN)) orphanDependents(cluster, marked);
  if (finalizers.includes(FOREGROUND)) deleteDependents(cluster, marked, 'Foreground');
  const current = cluster.store.get(type, marked.metadata.namespace ?? '', marked.metadata.name ?? '');
  if (!current || current.metadata.uid !== marked.metadata.uid) return;
  const left = (current.metadata.finalizers ?? []).filter((f) => f !== FOREGROUND && f !== ORPHAN);
  if (left.length === 0) cluster.erase(type, current);
  else {
    const next = clone(current);
    next.metadata.finalizers = left;
    cluster.commit(type, next, current);
  }
}

function deleteDependents(cluster: Cluster, owner: StoredObject, policy: Propagation): void {
  for (const dep of cluster.store.dependents(owner.metadata.uid ?? '')) {
    const live = cluster.store.get(
      dep.type,
      dep.object.metadata.namespace ?? '',
      dep.object.metadata.name ?? '',
    );
    if (!live || live.metadata.deletionTimestamp) continue;
    // A dependent with other live owners stays; it only loses the reference.
    const others = (live.metadata.ownerReferences ?? []).filter((r) => r.uid !== owner.metadata.uid);
    if (others.some((r) => ownerExists(cluster, live, r))) {
      const next = clone(live);
      next.metadata.ownerReferences = others;
      cluster.commit(dep.type, next, live);
      continue;
    }
    deleteObject(cluster, dep.type, live.metadata.namespace, live.metadata.name ?? '', {
      propagationPolicy: policy,
      dryRun: false,
    });
  }
}

function ownerExists(
  cluster: Cluster,
  dependent: StoredObject,
  ref: { kind: string; apiVersion: string; uid: string; name: string },
): boolean {
  const type = RESOURCE_TYPES.find(
    (t) => t.kind === ref.kind && (t.group === '' ? t.version : `${t.group}/${t.version}`) === ref.apiVersion,
  );
  if (!type) return false;
  const owner = cluster.store.get(
    type,
    type.namespaced ? (dependent.metadata.namespace ?? '') : '',
    ref.name,
  );
  return owner?.metadata.uid === ref.uid;
}

function orphanDependents(cluster: Cluster, owner: StoredObject): void {
  for (const dep of cluster.store.dependents(owner.metadata.uid ?? '')) {
    const live = cluster.store.get(
      dep.type,
      dep.object.metadata.namespace ?? '',
      dep.object.metadata.name ?? '',
    );
    if (!live) continue;
    const next = clone(live);
    next.metadata.ownerReferences = (live.metadata.ownerReferences ?? []).filter(
      (r) => r.uid !== owner.metadata.uid,
    );
    if (next.metadata.ownerReferences.length === 0) delete next.metadata.ownerReferences;
    cluster.commit(dep.type, next, live);
  }
}

/** DELETE on a collection: deletes every selected object, answers the list of what was deleted. */
export function deleteCollection(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  query: URLSearchParams,
  options: DeleteOptions,
): KubeObject {
  const selected = selectObjects(cluster, type, namespace, query);
  const items: KubeObject[] = [];
  for (const obj of selected) {
    deleteObject(cluster, type, obj.metadata.namespace, obj.metadata.name ?? '', options);
    items.push(obj);
  }
  return {
    kind: `${type.kind}List`,
    apiVersion: type.group === '' ? type.version : `${type.group}/${type.version}`,
    metadata: { resourceVersion: String(cluster.store.currentRv()) },
    items,
  };
}
