/**
 * create and update, and the common end of every write (`finish`): server-owned fields kept from
 * live, defaulting, validation, immutability, generation, managedFields, no-op detection, store.
 */
import { recordUpdate, resetPaths, restoreReset } from './apply/index.ts';
import type { Cluster } from './cluster.ts';
import { applyDefaults } from './defaults.ts';
import { clone } from './equal.ts';
import { assignNodePorts } from './node-ports.ts';
import { canonicalizeQuantities } from './quantities.ts';
import { handleUnknownFields } from './fields.ts';
import type { ResourceType } from './resources.ts';
import { alreadyExists, badRequest, conflict, notFound, STALE } from './status.ts';
import type { StoredObject } from './types.ts';
import {
  asObject,
  checkNamespace,
  checkTypeMeta,
  initialise,
  movesGeneration,
  managerOf,
  randomSuffix,
  sameObject,
  typed,
  validateOrThrow,
  type WriteResult,
} from './write-common.ts';
import type { WriteOptions } from './write-options.ts';

export type { WriteResult } from './write-common.ts';
export { apply } from './apply-request.ts';
export { mergePatch, patch } from './patches.ts';

/** POST to a collection. */
export function create(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  body: unknown,
  options: WriteOptions,
): WriteResult {
  const input = asObject(body, type.kind);
  checkTypeMeta(type, input);
  checkNamespace(type, input, namespace);
  const obj = typed(type, input);
  handleUnknownFields(type, obj, options, 'decode');
  if (!obj.metadata.name && obj.metadata.generateName)
    obj.metadata.name = `${obj.metadata.generateName}${randomSuffix()}`;
  const name = obj.metadata.name ?? '';
  if (type.namespaced && namespace !== undefined) cluster.requireActiveNamespace(type, namespace, name);
  if (name && cluster.store.get(type, namespace ?? '', name)) throw alreadyExists(type, name);
  initialise(cluster, type, obj, namespace);
  canonicalizeQuantities(obj);
  applyDefaults(obj, cluster);
  validateOrThrow(type, obj, undefined);
  const recorded = recordUpdate({
    live: undefined,
    updated: obj,
    manager: managerOf(options),
    now: cluster.now(),
  }) as StoredObject;
  applyDefaults(recorded, cluster); // status defaults (phase, loadBalancer) on a new object
  // Allocated by the registry after the field manager ran, so no manager owns the node ports.
  assignNodePorts(cluster, type, recorded, undefined);
  cluster.serviceIPs.check(type, recorded);
  if (options.dryRun) return { code: 201, body: recorded };
  return { code: 201, body: cluster.commit(type, recorded, undefined) };
}

/**
 * The common end of update, patch and apply: keeps server-owned fields from `live`, defaults,
 * validates, bumps generation, records managedFields (unless `applied`), and writes unless nothing changed.
 */
export function finish(
  cluster: Cluster,
  type: ResourceType,
  live: StoredObject,
  next: StoredObject,
  options: WriteOptions,
  how: { subresource?: string; applied?: boolean },
): WriteResult {
  // Once per write, on what the client sent (merged with live for a patch), as the server's decoder
  // does: fields then kept from live are not parsed again.
  canonicalizeQuantities(next);
  const meta = next.metadata;
  meta.name = live.metadata.name;
  if (type.namespaced) meta.namespace = live.metadata.namespace;
  meta.uid = live.metadata.uid;
  meta.creationTimestamp = live.metadata.creationTimestamp;
  if (live.metadata.deletionTimestamp) meta.deletionTimestamp = live.metadata.deletionTimestamp;
  else delete meta.deletionTimestamp;
  if (live.metadata.generation !== undefined) meta.generation = live.metadata.generation;
  else delete meta.generation;
  meta.resourceVersion = live.metadata.resourceVersion;
  let result = next;
  if (how.subresource === 'status') {
    // A status write changes status and the metadata its strategy does not reset (a
    // Deployment's controller sets its revision annotation so); spec, and a Deployment's labels,
    // keep their live values.
    restoreReset(result, clone(live), resetPaths(type.kind, 'status'));
    result.metadata.managedFields = next.metadata.managedFields ?? live.metadata.managedFields;
  } else if (type.subresources.includes('status')) {
    if (live.status === undefined) delete result.status;
    else result.status = clone(live.status);
  }
  if (type.kind === 'Service') keepClusterIP(live, result);
  assignNodePorts(cluster, type, result, live);
  applyDefaults(result, cluster);
  validateOrThrow(type, result, live);
  if (!how.applied) {
    const args = { live, updated: result, manager: managerOf(options), now: cluster.now() };
    result = recordUpdate(how.subresource ? { ...args, subresource: how.subresource } : args) as StoredObject;
  }
  // After recordUpdate, which keeps system metadata (generation) from live.
  if (how.subresource === undefined && movesGeneration(type.kind, live, result)) {
    result.metadata.generation = (live.metadata.generation ?? 1) + 1;
  }
  if (sameObject(result, live)) return { code: 200, body: live };
  if (options.dryRun) return { code: 200, body: result };
  if (result.metadata.deletionTimestamp && (result.metadata.finalizers ?? []).length === 0) {
    cluster.erase(type, result);
    return { code: 200, body: result };
  }
  return { code: 200, body: cluster.commit(type, result, live) };
}

/** An update that leaves clusterIP empty keeps the allocated one (as the real registry does). */
function keepClusterIP(live: StoredObject, next: StoredObject): void {
  const before = (live.spec ?? {}) as Record<string, unknown>;
  const after = (next.spec ?? {}) as Record<string, unknown>;
  if ((after.clusterIP === undefined || after.clusterIP === '') && before.clusterIP) {
    after.clusterIP = before.clusterIP;
    if (after.clusterIPs === undefined) after.clusterIPs = before.clusterIPs;
    next.spec = after;
  }
}

export function getLive(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
): StoredObject {
  const live = cluster.store.get(type, namespace ?? '', name);
  if (!live) throw notFound(type, name);
  return live;
}

/** PUT to an object (or its status). */
export function update(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  body: unknown,
  options: WriteOptions,
  subresource?: string,
): WriteResult {
  const input = asObject(body, type.kind);
  checkTypeMeta(type, input);
  checkNamespace(type, input, namespace);
  const next = typed(type, input);
  if (next.metadata.name !== undefined && next.metadata.name !== name) {
    throw badRequest(
      `the name of the object (${next.metadata.name}) does not match the name on the URL (${name})`,
    );
  }
  handleUnknownFields(type, next, options, 'decode');
  const live = getLive(cluster, type, namespace, name);
  const rv = next.metadata.resourceVersion;
  if (rv !== undefined && rv !== '' && rv !== live.metadata.resourceVersion)
    throw conflict(type, name, STALE);
  next.metadata.managedFields = next.metadata.managedFields ?? live.metadata.managedFields;
  return finish(cluster, type, live, next, options, subresource ? { subresource } : {});
}
