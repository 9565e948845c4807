/**
 * create, update, patch (merge, JSON, strategic) and server-side apply: one pipeline that ends in
 * defaulting, validation, immutability checks, generation, managedFields, no-op detection and
 * the store write.
 */
import fastJsonPatch from 'fast-json-patch';
import { parse as parseYaml } from 'yaml';
import {
  ApplyError,
  conflictStatus,
  recordUpdate,
  serverSideApply,
  strategicMergePatch,
} from './apply/index.ts';
import type { Cluster } from './cluster.ts';
import { applyDefaults } from './defaults.ts';
import { clone, jsonEqual } from './equal.ts';
import { handleUnknownFields } from './fields.ts';
import { immutableCauses } from './immutable.ts';
import { apiVersionOf, type ResourceType } from './resources.ts';
import { ApiError, alreadyExists, badRequest, conflict, invalid, notFound, STALE } from './status.ts';
import type { KubeObject, ManagedFieldsEntry, StoredObject } from './types.ts';
import { validateObject } from './validate.ts';
import type { WriteOptions } from './write-options.ts';

export interface WriteResult {
  code: number;
  body: KubeObject;
}

/** Kinds whose strategy maintains metadata.generation (bumped on spec changes only). */
const GENERATION_KINDS = new Set([
  'Deployment',
  'StatefulSet',
  'HorizontalPodAutoscaler',
  'PodDisruptionBudget',
  'NetworkPolicy',
]);

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

function asObject(body: unknown, what: string): KubeObject {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest(`the body of the request was in an unknown format: ${what} must be an object`);
  }
  return body as KubeObject;
}

function checkTypeMeta(type: ResourceType, obj: KubeObject): void {
  const expected = apiVersionOf(type);
  if (obj.apiVersion !== undefined && obj.apiVersion !== expected) {
    throw badRequest(
      `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expected})`,
    );
  }
  if (obj.kind !== undefined && obj.kind !== type.kind) {
    throw badRequest(
      `the kind in the data (${String(obj.kind)}) does not match the expected kind (${type.kind})`,
    );
  }
}

function checkNamespace(type: ResourceType, obj: KubeObject, namespace: string | undefined): void {
  const given = obj.metadata?.namespace;
  if (type.namespaced && given && given !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
}

function managerOf(options: WriteOptions): string {
  return options.fieldManager ?? options.defaultManager;
}

function stripTimes(entries: ManagedFieldsEntry[] | undefined): unknown {
  return (entries ?? []).map(({ time: _time, ...rest }) => rest);
}

/** Equal except managedFields timestamps: the server drops such writes (no new resourceVersion). */
function sameObject(a: StoredObject, b: StoredObject): boolean {
  const { managedFields: ma, ...metaA } = a.metadata;
  const { managedFields: mb, ...metaB } = b.metadata;
  if (!jsonEqual(metaA, metaB)) return false;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (key !== 'metadata' && !jsonEqual(a[key], b[key])) return false;
  }
  return jsonEqual(stripTimes(ma), stripTimes(mb));
}

function typed(type: ResourceType, obj: KubeObject): StoredObject {
  const out = obj as StoredObject;
  out.apiVersion = apiVersionOf(type);
  out.kind = type.kind;
  out.metadata = out.metadata ?? {};
  return out;
}

function validateOrThrow(type: ResourceType, next: StoredObject, live: StoredObject | undefined): void {
  const causes = validateObject(next);
  if (live) causes.push(...immutableCauses(live, next));
  if (causes.length > 0) throw invalid(type, next.metadata.name ?? '', causes);
}

/** Sets the fields the server owns on a new object. */
function initialise(
  cluster: Cluster,
  type: ResourceType,
  obj: StoredObject,
  namespace: string | undefined,
): void {
  const meta = obj.metadata;
  if (type.namespaced) meta.namespace = namespace;
  else delete meta.namespace;
  meta.uid = cluster.uid();
  meta.creationTimestamp = cluster.now();
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  if (GENERATION_KINDS.has(type.kind)) meta.generation = 1;
  else delete meta.generation;
  if (type.subresources.includes('status')) delete obj.status;
}

function randomSuffix(): string {
  let out = '';
  for (let i = 0; i < 5; i++) out += NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)];
  return out;
}

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
  applyDefaults(obj, cluster);
  validateOrThrow(type, obj, undefined);
  const recorded = recordUpdate({
    live: undefined,
    updated: obj,
    manager: managerOf(options),
    now: cluster.now(),
  }) as StoredObject;
  applyDefaults(recorded, cluster); // status defaults (phase, loadBalancer) on a new object
  if (options.dryRun) return { code: 201, body: recorded };
  return { code: 201, body: cluster.commit(type, recorded, undefined) };
}

/**
 * The common end of update, patch and apply: keeps server-owned fields from `live`, defaults,
 * validates, bumps generation, records managedFields (unless `applied`), and writes unless nothing changed.
 */
function finish(
  cluster: Cluster,
  type: ResourceType,
  live: StoredObject,
  next: StoredObject,
  options: WriteOptions,
  how: { subresource?: string; applied?: boolean },
): WriteResult {
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
    // A status write changes status only (and the manager's ownership of it).
    result = { ...clone(live), status: next.status };
    if (next.status === undefined) delete result.status;
    result.metadata.managedFields = next.metadata.managedFields ?? live.metadata.managedFields;
  } else if (type.subresources.includes('status')) {
    if (live.status === undefined) delete result.status;
    else result.status = clone(live.status);
  }
  if (type.kind === 'Service') keepClusterIP(live, result);
  applyDefaults(result, cluster);
  validateOrThrow(type, result, live);
  if (!how.applied) {
    const args = { live, updated: result, manager: managerOf(options), now: cluster.now() };
    result = recordUpdate(how.subresource ? { ...args, subresource: how.subresource } : args) as StoredObject;
  }
  // After recordUpdate, which keeps system metadata (generation) from live.
  if (
    GENERATION_KINDS.has(type.kind) &&
    how.subresource === undefined &&
    !jsonEqual(live.spec, result.spec)
  ) {
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

function getLive(
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

/** RFC 7396 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(`error decoding patch: ${(error as Error).message}`);
  }
}

/** PATCH with a JSON, merge or strategic merge patch (apply goes to `apply`). */
export function patch(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  contentType: string,
  text: string,
  options: WriteOptions,
  subresource?: string,
): WriteResult {
  const live = getLive(cluster, type, namespace, name);
  const base = clone(live);
  let patched: unknown;
  if (contentType === 'application/json-patch+json') {
    const ops = parseJson(text);
    if (!Array.isArray(ops))
      throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    try {
      patched = fastJsonPatch.applyPatch(base, ops as fastJsonPatch.Operation[], true, false).newDocument;
    } catch (error) {
      throw new ApiError(
        422,
        'Invalid',
        `the server rejected our request due to an error in our request: ${(error as Error).message.split('\n')[0]}`,
      );
    }
  } else if (contentType === 'application/merge-patch+json') {
    patched = mergePatch(base, parseJson(text));
  } else {
    const body = parseJson(text);
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw badRequest('strategic merge patch must be a JSON object');
    try {
      patched = strategicMergePatch(base, body as Record<string, unknown>);
    } catch (error) {
      throw applyFailure(error);
    }
  }
  const next = typed(type, asObject(patched, type.kind));
  handleUnknownFields(type, next, options, 'decode');
  const rv = next.metadata.resourceVersion;
  if (rv !== undefined && rv !== live.metadata.resourceVersion) throw conflict(type, name, STALE);
  return finish(cluster, type, live, next, options, subresource ? { subresource } : {});
}

function applyFailure(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ApplyError) return new ApiError(error.status, error.reason, error.message);
  throw error;
}

function parseApplyBody(text: string): unknown {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      return JSON.parse(trimmed);
    } catch {
      // fall through: YAML flow mappings are JSON-like but not JSON
    }
  }
  try {
    return parseYaml(text);
  } catch (error) {
    throw badRequest(`error decoding YAML: ${(error as Error).message.split('\n')[0]}`);
  }
}

/** PATCH with `application/apply-patch+yaml`: server-side apply, creating the object if absent. */
export function apply(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  text: string,
  options: WriteOptions,
): WriteResult {
  if (!options.fieldManager) {
    throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
      {
        reason: 'FieldValueRequired',
        message: 'Required value: is required for apply patch',
        field: 'fieldManager',
      },
    ]);
  }
  const applied = asObject(parseApplyBody(text), type.kind);
  if (applied.apiVersion === undefined || applied.kind === undefined) {
    throw badRequest("Object 'Kind' is missing in the apply patch");
  }
  checkTypeMeta(type, applied);
  checkNamespace(type, applied, namespace);
  const meta = (applied.metadata ?? {}) as Record<string, unknown>;
  if (meta.name !== undefined && meta.name !== name) {
    throw badRequest(
      `the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`,
    );
  }
  const id = type.namespaced ? `${namespace}/${name}` : name;
  handleUnknownFields(type, applied, options, 'apply', id);
  if (type.kind === 'Secret') stringDataToData(applied);
  applied.metadata = { ...meta, name, ...(type.namespaced ? { namespace } : {}) };
  if (type.namespaced && namespace !== undefined) cluster.requireNamespace(namespace);
  const live = cluster.store.get(type, namespace ?? '', name);
  if (!live && type.namespaced && namespace !== undefined)
    cluster.requireActiveNamespace(type, namespace, name);
  let outcome: ReturnType<typeof serverSideApply>;
  try {
    outcome = serverSideApply({
      live,
      applied: applied as StoredObject,
      manager: options.fieldManager,
      force: options.force,
      now: cluster.now(),
    });
  } catch (error) {
    throw applyFailure(error);
  }
  if (!outcome.ok) {
    const status = conflictStatus(outcome.conflicts);
    throw new ApiError(409, 'Conflict', status.message, {
      causes: status.causes.map((c) => ({ reason: c.type, message: c.message, field: c.field })),
    });
  }
  const next = typed(type, outcome.object as KubeObject);
  if (live) return finish(cluster, type, live, next, options, { applied: true });
  initialise(cluster, type, next, namespace);
  applyDefaults(next, cluster);
  validateOrThrow(type, next, undefined);
  if (options.dryRun) return { code: 201, body: next };
  return { code: 201, body: cluster.commit(type, next, undefined) };
}

/** `stringData` is write-only: the server folds it into `data` (base64). */
function stringDataToData(secret: KubeObject): void {
  const stringData = secret.stringData;
  if (!stringData || typeof stringData !== 'object') return;
  const data = { ...((secret.data ?? {}) as Record<string, unknown>) };
  for (const [key, value] of Object.entries(stringData as Record<string, unknown>)) {
    data[key] = Buffer.from(String(value), 'utf8').toString('base64');
  }
  secret.data = data;
  delete secret.stringData;
}
