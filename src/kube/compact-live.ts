/**
 * Listed objects, reduced to what the agent reads from them. A cycle's listing holds every owned
 * object until the cycle's reconciles have used it, and most of each object's memory is its
 * managedFields (a tree of one empty object per field, per manager): at 12,000 objects that was
 * most of the agent's heap. What is read from a live object's managedFields is:
 * - other managers' fields (not the status subresource's), to report fields a forced apply took
 *   (`takenFields`);
 * - whether our own manager owns `.spec.replicas` (the autoscaler hand-over, `ownsField`).
 * So other managers' non-status entries are kept whole, our own entry keeps only
 * `f:spec.f:replicas` when it has it, and status-subresource entries go. Everything else (spec,
 * metadata, status) is kept as listed, but short strings are shared: JSON.parse makes a new string
 * for every value, and a listing repeats the same ones thousands of times (API defaults such as
 * `IfNotPresent` and `/dev/termination-log`, label values, timestamps of one second).
 *
 * A cycle's listing of everything is kept slimmer still (`slim`): the resync of a converged
 * deployment only asks whether each object is still the one it verified (object-version.ts), so
 * only what that question, health, pruning and the orphan pass read stays (see `slim`). A slim
 * object is marked (`isSlim`); when one must be compared after all (drift, a changed input, a
 * restart's empty memo), it is read again.
 */
import { LABELS } from '../labels.ts';
import { hasPinnedVersion, objectVersion, pinVersion } from './object-version.ts';
import type { KubeObject, ManagedFieldsEntry } from './types.ts';

function replicasOnly(fields: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const spec = fields?.['f:spec'] as Record<string, unknown> | undefined;
  return spec && 'f:replicas' in spec ? { 'f:spec': { 'f:replicas': {} } } : undefined;
}

/** Strings up to this length are shared through the pool; longer ones are rarely repeated. */
const SHARED_MAX_LENGTH = 64;

/** Replaces short strings in `value` (in place) by the pool's copy of the same text. */
function shareStrings(value: unknown, pool: Map<string, string>): void {
  if (value === null || typeof value !== 'object') return;
  const container = value as Record<string, unknown>;
  for (const key of Array.isArray(value) ? value.keys() : Object.keys(container)) {
    const v = container[key as keyof typeof container];
    if (typeof v === 'string') {
      if (v.length > SHARED_MAX_LENGTH) continue;
      const shared = pool.get(v);
      if (shared === undefined) pool.set(v, v);
      else container[key as keyof typeof container] = shared;
    } else if (v !== null && typeof v === 'object') shareStrings(v, pool);
  }
}

/**
 * The listed object with its managedFields reduced and, given a pool (one per listing), its short
 * strings shared. In place; returns it.
 */
export function compactLive(obj: KubeObject, fieldManager: string, pool?: Map<string, string>): KubeObject {
  const entries = obj.metadata.managedFields;
  if (Array.isArray(entries)) obj.metadata.managedFields = reduceManagedFields(entries, fieldManager);
  if (pool) shareStrings(obj, pool);
  return obj;
}

function reduceManagedFields(entries: ManagedFieldsEntry[], fieldManager: string): ManagedFieldsEntry[] {
  const kept: ManagedFieldsEntry[] = [];
  for (const e of entries) {
    if (e.subresource) continue;
    if (e.manager !== fieldManager) {
      kept.push(e);
      continue;
    }
    const replicas = replicasOnly(e.fieldsV1);
    const reduced: ManagedFieldsEntry = { manager: e.manager };
    if (e.operation) reduced.operation = e.operation;
    if (replicas) {
      reduced.fieldsType = 'FieldsV1';
      reduced.fieldsV1 = replicas;
    }
    kept.push(reduced);
  }
  return kept;
}

/** Whether `obj` is a slim listing entry (its spec and data left out): read it again to compare. */
export function isSlim(obj: KubeObject): boolean {
  return hasPinnedVersion(obj);
}

/** The spec fields health reads (health.ts), kept on slim workloads. */
const HEALTH_SPEC: Readonly<Record<string, readonly string[]>> = {
  Deployment: ['replicas'],
  StatefulSet: ['replicas', 'updateStrategy'],
};

/** Label keys a slim entry keeps: ours, which ownership, pruning and the orphan pass read. */
const OWN_LABELS: ReadonlySet<string> = new Set(Object.values(LABELS));
const OWN_PREFIX = 'mooring.dev/';

function ownKeys(map: Record<string, string> | undefined, extra?: ReadonlySet<string>) {
  if (!map) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) if (k.startsWith(OWN_PREFIX) || extra?.has(k)) out[k] = v;
  return out;
}

/**
 * The status health reads, for the kinds it reads it of: the scalars (replica counts, observed
 * generation, revisions) and each condition's type, status and reason.
 */
function healthStatus(status: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(status)) if (v === null || typeof v !== 'object') out[k] = v;
  if (Array.isArray(status.conditions)) {
    out.conditions = (status.conditions as Record<string, unknown>[]).map(({ type, status: st, reason }) => ({
      type,
      status: st,
      reason,
    }));
  }
  return out;
}

/**
 * The slim form of a listed object (see the module comment): what the memo, health, pruning and
 * the orphan pass read, and no more.
 * - Metadata: name, namespace, uid, versions, deletion state and finalizers; of the labels and
 *   annotations only ours; of managedFields only our own entry (whether we manage it). The version
 *   the memo compares is taken from the whole object first and pinned (object-version.ts), since
 *   it covers every label and annotation.
 * - Spec and status only where health reads them (Deployment, StatefulSet).
 */
export function slim(obj: KubeObject, fieldManager: string): KubeObject {
  const m = obj.metadata;
  const metadata: KubeObject['metadata'] = { name: m.name };
  if (m.namespace !== undefined) metadata.namespace = m.namespace;
  if (m.uid !== undefined) metadata.uid = m.uid;
  if (m.resourceVersion !== undefined) metadata.resourceVersion = m.resourceVersion;
  if (m.generation !== undefined) metadata.generation = m.generation;
  if (m.deletionTimestamp !== undefined) metadata.deletionTimestamp = m.deletionTimestamp;
  if (m.finalizers !== undefined) metadata.finalizers = m.finalizers;
  const labels = ownKeys(m.labels, OWN_LABELS);
  if (labels) metadata.labels = labels;
  const annotations = ownKeys(m.annotations);
  if (annotations) metadata.annotations = annotations;
  if (Array.isArray(m.managedFields)) {
    metadata.managedFields = m.managedFields.filter((e) => e.manager === fieldManager && !e.subresource);
  }
  const out: KubeObject = { apiVersion: obj.apiVersion, kind: obj.kind, metadata };
  const fields = HEALTH_SPEC[obj.kind];
  const spec = obj.spec as Record<string, unknown> | undefined;
  if (fields && spec) {
    const kept: Record<string, unknown> = {};
    for (const f of fields) if (spec[f] !== undefined) kept[f] = spec[f];
    out.spec = kept;
  }
  if (fields && obj.status && typeof obj.status === 'object') {
    out.status = healthStatus(obj.status as Record<string, unknown>);
  }
  pinVersion(out, objectVersion(obj));
  return out;
}
