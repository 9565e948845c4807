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
import { ANNOTATIONS, LABELS } from '../labels.ts';
import { hasPinnedVersion, listedVersion, PinnedEntry } from './object-version.ts';
import type { KubeObject, ManagedFieldsEntry } from '../objects/kube-object.ts';
import { type ListingPool, SHARED_MAX_LENGTH, shared, shareStrings } from '../objects/string-pool.ts';

export { ListingPool, shareStrings } from '../objects/string-pool.ts';

function replicasOnly(fields: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const spec = fields?.['f:spec'] as Record<string, unknown> | undefined;
  return spec && 'f:replicas' in spec ? { 'f:spec': { 'f:replicas': {} } } : undefined;
}

/**
 * The listed object with its managedFields reduced and, given a pool (one per listing), its short
 * strings shared. In place; returns it.
 */
export function compactLive(obj: KubeObject, fieldManager: string, pool?: ListingPool): KubeObject {
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

/** The kinds health reads (health.ts), and the spec fields it reads of them: their slim entries keep these and their status. */
const HEALTH_SPEC: Readonly<Record<string, readonly string[]>> = {
  Deployment: ['replicas'],
  StatefulSet: ['replicas', 'updateStrategy'],
};

/**
 * Whether the slim form of `kind` keeps more than metadata (spec and status health reads): the
 * others can be listed as metadata only (PartialObjectMetadataList).
 */
export function slimKeepsMoreThanMetadata(kind: string): boolean {
  return HEALTH_SPEC[kind] !== undefined;
}

/** The labels a slim entry keeps: ownership, which pruning, the inventory and the orphan pass read. */
const OWNERSHIP_LABELS = [LABELS.managedBy, LABELS.listenerId, LABELS.deploymentId] as const;

function ownershipLabels(
  labels: Record<string, string> | undefined,
  pool: ListingPool | undefined,
): Record<string, string> | undefined {
  if (!labels) return undefined;
  const make = () => {
    const out: Record<string, string> = {};
    for (const k of OWNERSHIP_LABELS) if (labels[k] !== undefined) out[k] = labels[k];
    return out;
  };
  if (!pool) return make();
  // Every object of a deployment has the same three: one frozen set per deployment.
  const key = `labels\u0000${OWNERSHIP_LABELS.map((k) => labels[k] ?? '\u0001').join('\u0000')}`;
  return pool.intern(key, make) as Record<string, string>;
}

/**
 * A slim entry's managedFields: whether we manage the object is all that is read of them, so one
 * frozen list stands for "ours" (and one empty list for "not ours"). With a pool, the listing's
 * entries share one mark, made by the pool and dropped with it.
 */
const NOT_OURS: readonly ManagedFieldsEntry[] = Object.freeze([]);

function managedMark(
  entries: readonly ManagedFieldsEntry[],
  fieldManager: string,
  pool: ListingPool | undefined,
): readonly ManagedFieldsEntry[] {
  if (!entries.some((e) => e.manager === fieldManager && !e.subresource)) return NOT_OURS;
  const make = () => [Object.freeze({ manager: fieldManager })];
  return pool ? pool.intern(`managed\u0000${fieldManager}`, make) : Object.freeze(make());
}

/**
 * The status health reads, for the kinds it reads it of: the scalars (replica counts, observed
 * generation, revisions; short strings shared through `pool`) and each condition's type, status
 * and reason.
 */
function healthStatus(
  status: Record<string, unknown>,
  pool: ListingPool | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(status)) {
    if (typeof v === 'string' && pool && v.length <= SHARED_MAX_LENGTH) out[k] = shared(v, pool);
    else if (v === null || typeof v !== 'object') out[k] = v;
  }
  if (Array.isArray(status.conditions)) {
    const conditions = (status.conditions as Record<string, unknown>[]).map(
      ({ type, status: st, reason }) => ({
        type,
        status: st,
        reason,
      }),
    );
    // Healthy workloads repeat the same few: one frozen list per distinct one.
    out.conditions = pool
      ? pool.intern(`conditions\u0000${JSON.stringify(conditions)}`, () =>
          conditions.map((c) => Object.freeze(c)),
        )
      : conditions;
  }
  return out;
}

/**
 * The slim form of a listed object (see the module comment): what the memo, health, pruning and
 * the orphan pass read, and no more.
 * - Metadata: name, namespace, uid, versions, deletion state and finalizers; the ownership labels;
 *   whether we manage it (managedFields, as a shared mark); of the annotations only the pause
 *   (pause.ts), so a paused object is known without a read. The version the memo
 *   compares is taken from the whole object first and pinned (object-version.ts), since it covers
 *   every label and annotation.
 * - Spec and status only where health reads them (Deployment, StatefulSet).
 * Short strings are shared through `pool` when given (one per listing).
 */
export function slim(obj: KubeObject, fieldManager: string, pool?: ListingPool): KubeObject {
  const m = obj.metadata;
  // One literal shape: the properties live inside the object, not in a separate store.
  const metadata: KubeObject['metadata'] = {
    name: m.name,
    namespace: m.namespace,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
    generation: m.generation,
    labels: ownershipLabels(m.labels, pool),
    managedFields: Array.isArray(m.managedFields)
      ? (managedMark(m.managedFields, fieldManager, pool) as ManagedFieldsEntry[])
      : undefined,
  };
  const pause = m.annotations?.[ANNOTATIONS.reconcile];
  if (pause !== undefined) metadata.annotations = { [ANNOTATIONS.reconcile]: pause };
  if (m.deletionTimestamp !== undefined) metadata.deletionTimestamp = m.deletionTimestamp;
  if (m.finalizers !== undefined) metadata.finalizers = m.finalizers;
  const out: KubeObject = new PinnedEntry(obj.apiVersion, obj.kind, metadata, listedVersion(obj));
  const fields = HEALTH_SPEC[obj.kind];
  const spec = obj.spec as Record<string, unknown> | undefined;
  if (fields && spec) {
    const kept: Record<string, unknown> = {};
    for (const f of fields) if (spec[f] !== undefined) kept[f] = spec[f];
    out.spec = kept;
  }
  if (fields && obj.status && typeof obj.status === 'object') {
    out.status = healthStatus(obj.status as Record<string, unknown>, pool);
  }
  if (pool && typeof metadata.namespace === 'string') metadata.namespace = shared(metadata.namespace, pool);
  return out;
}
