/** Pieces every write verb shares: body checks, typing, validation, server-owned metadata. */
import { protectClaim } from './claim-protection.ts';
import type { Cluster } from './cluster.ts';
import { jsonEqual } from './equal.ts';
import { apiVersionOf, type ResourceType } from './resources.ts';
import { ApiError, badRequest, invalid } from './status.ts';
import type { KubeObject, ManagedFieldsEntry, StoredObject } from './types.ts';
import { validateWrite } from './validation/index.ts';
import type { WriteOptions } from './write-options.ts';
import { ApplyError } from './apply/index.ts';

export interface WriteResult {
  code: number;
  body: KubeObject;
}

/** Kinds whose strategy maintains metadata.generation (see `movesGeneration`). */
export const GENERATION_KINDS = new Set([
  'Deployment',
  'ReplicaSet',
  'StatefulSet',
  'HorizontalPodAutoscaler',
  'PodDisruptionBudget',
  'NetworkPolicy',
]);

/**
 * Whether a write to the main resource (not a subresource) moves the object's generation, as its
 * registry strategy decides: a change to the spec, and for a Deployment to its annotations too
 * (deploymentStrategy.PrepareForUpdate: they are copied to its ReplicaSets).
 */
export function movesGeneration(kind: string, live: StoredObject, next: StoredObject): boolean {
  if (!GENERATION_KINDS.has(kind)) return false;
  if (!jsonEqual(live.spec, next.spec)) return true;
  return (
    kind === 'Deployment' && !jsonEqual(live.metadata.annotations ?? {}, next.metadata.annotations ?? {})
  );
}

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

export function asObject(body: unknown, what: string): KubeObject {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest(`the body of the request was in an unknown format: ${what} must be an object`);
  }
  return body as KubeObject;
}

export function checkTypeMeta(type: ResourceType, obj: KubeObject): void {
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

export function checkNamespace(type: ResourceType, obj: KubeObject, namespace: string | undefined): void {
  const given = obj.metadata?.namespace;
  if (type.namespaced && given && given !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
}

export function managerOf(options: WriteOptions): string {
  return options.fieldManager ?? options.defaultManager;
}

function stripTimes(entries: ManagedFieldsEntry[] | undefined): unknown {
  return (entries ?? []).map(({ time: _time, ...rest }) => rest);
}

/** Equal except managedFields timestamps: the server drops such writes (no new resourceVersion). */
export function sameObject(a: StoredObject, b: StoredObject): boolean {
  const { managedFields: ma, ...metaA } = a.metadata;
  const { managedFields: mb, ...metaB } = b.metadata;
  if (!jsonEqual(metaA, metaB)) return false;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (key !== 'metadata' && !jsonEqual(a[key], b[key])) return false;
  }
  return jsonEqual(stripTimes(ma), stripTimes(mb));
}

export function typed(type: ResourceType, obj: KubeObject): StoredObject {
  const out = obj as StoredObject;
  out.apiVersion = apiVersionOf(type);
  out.kind = type.kind;
  out.metadata = out.metadata ?? {};
  return out;
}

export function validateOrThrow(
  type: ResourceType,
  next: StoredObject,
  live: StoredObject | undefined,
): void {
  const causes = validateWrite(next, live);
  if (causes.length > 0) throw invalid(type, next.metadata.name ?? '', causes);
}

/** Sets the fields the server owns on a new object. */
export function initialise(
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
  protectClaim(type.kind, meta);
}

export function randomSuffix(): string {
  let out = '';
  for (let i = 0; i < 5; i++) out += NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)];
  return out;
}

/** The engine's refusals become the Status the apiserver would answer with. */
export function applyFailure(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ApplyError) return new ApiError(error.status, error.reason, error.message);
  throw error;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(`error decoding patch: ${(error as Error).message}`);
  }
}
