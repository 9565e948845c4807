/**
 * What an object becomes under a write, with the apiserver's managedFields bookkeeping: server-side
 * apply (PATCH application/apply-patch+yaml) and every other write (create, update, patches).
 * Pure: no I/O, time is passed in.
 */
import { ApplyError } from './errors.ts';
import { type FieldSet, difference, iteratePaths, pathString, setsEqual, union } from './field-set.ts';
import {
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  type ManagedFieldsEntry,
  type Managers,
  managerId,
  STRIPPED,
  stripMeta,
} from './managed-fields.ts';
import { resetPaths, resetSet, restoreReset } from './reset-fields.ts';
import { type Atom, DEDUCED, rootTypeOf } from './schema.ts';
import { copyJson, deepEqual, isObj } from './typed.ts';
import { applyConfig, type TypeContext, updateManagers } from './updater.ts';

/** A Kubernetes object as JSON. */
export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; managedFields?: ManagedFieldsEntry[]; [k: string]: unknown };
  [k: string]: unknown;
};

/** One field an apply would take from another manager. */
export interface Conflict {
  manager: string;
  apiVersion: string;
  /** Path in kube form, e.g. `.spec.replicas` or `.spec.template.spec.containers[name="app"].image`. */
  field: string;
  /** The other manager's operation; an `Apply` manager is printed without its apiVersion. */
  operation?: 'Apply' | 'Update';
  subresource?: string;
}

export type ApplyResult =
  | { ok: true; object: KubeObject; changed: boolean }
  | { ok: false; conflicts: Conflict[] };

/** Metadata the system owns: kept from the live object whatever a write sends. */
const SYSTEM_METADATA = [
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'generation',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
];

type Obj = Record<string, unknown>;

/** managedFields times have second precision (metav1.Time, RFC 3339). */
export function toKubeTime(now: string): string {
  if (now === lastTime[0]) return lastTime[1];
  const ms = Date.parse(now);
  if (Number.isNaN(ms)) throw new ApplyError(`invalid time ${JSON.stringify(now)}`, 500);
  const t = `${new Date(ms).toISOString().slice(0, 19)}Z`;
  lastTime = [now, t];
  return t;
}

let lastTime: [string, string] = ['', ''];

function typeContext(apiVersion: string, kind: string, subresource: string | undefined): TypeContext {
  const atom: Atom = rootTypeOf(apiVersion, kind) ?? DEDUCED;
  return { atom, ignore: resetSet(kind, subresource) };
}

/** The object without metadata.managedFields (a shallow copy down to metadata). */
function body(obj: KubeObject | Obj): Obj {
  const meta = (obj as Obj).metadata;
  if (!isObj(meta) || !('managedFields' in meta)) return obj as Obj;
  const { managedFields: _, ...rest } = meta;
  return { ...(obj as Obj), metadata: rest };
}

function withManagedFields(obj: Obj, managers: Managers): KubeObject {
  const meta = { ...((obj.metadata as Obj | undefined) ?? {}) };
  const encoded = encodeManagedFields(managers);
  if (encoded) meta.managedFields = encoded;
  else delete meta.managedFields;
  return { ...obj, metadata: meta } as KubeObject;
}

function validateApplied(applied: unknown, live: KubeObject | undefined): asserts applied is KubeObject {
  if (!isObj(applied)) throw new ApplyError('the applied configuration must be an object', 400);
  if (typeof applied.apiVersion !== 'string' || applied.apiVersion === '') {
    throw new ApplyError('apiVersion must be set in the applied configuration', 400);
  }
  if (typeof applied.kind !== 'string' || applied.kind === '') {
    throw new ApplyError('kind must be set in the applied configuration', 400);
  }
  if (applied.metadata !== undefined && !isObj(applied.metadata)) {
    throw new ApplyError('.metadata: expected map', 422);
  }
  const mf = (applied.metadata as Obj | undefined)?.managedFields;
  if (mf !== undefined && mf !== null) throw new ApplyError('metadata.managedFields must be nil', 400);
  if (live && (live.apiVersion !== applied.apiVersion || live.kind !== applied.kind)) {
    throw new ApplyError(
      `invalid object type: ${applied.apiVersion}, Kind=${applied.kind} (expected ${live.apiVersion}, Kind=${live.kind})`,
      400,
    );
  }
}

function toConflicts(conflicts: Map<string, FieldSet>, managers: Managers): Conflict[] {
  const out: Conflict[] = [];
  for (const id of [...conflicts.keys()].sort()) {
    const state = managers.get(id);
    if (!state) continue;
    iteratePaths(conflicts.get(id) as FieldSet, (path) => {
      const c: Conflict = {
        manager: state.manager,
        apiVersion: state.apiVersion,
        field: pathString(path),
        operation: state.operation,
      };
      if (state.subresource) c.subresource = state.subresource;
      out.push(c);
    });
  }
  return out;
}

/** Keeps system metadata and reset fields (status) at their live values. */
function settle(obj: Obj, live: Obj | undefined, kind: string, subresource: string | undefined): Obj {
  const meta = { ...((obj.metadata as Obj | undefined) ?? {}) };
  if (live) {
    const liveMeta = (live.metadata as Obj | undefined) ?? {};
    for (const k of SYSTEM_METADATA) {
      if (liveMeta[k] === undefined) delete meta[k];
      else meta[k] = liveMeta[k];
    }
  }
  const out: Obj = { ...obj, metadata: meta };
  const paths = resetPaths(kind, subresource);
  if (paths.length > 0) {
    if (live) restoreReset(out, live, paths);
    else if (subresource === undefined) delete out.status;
  }
  return out;
}

/**
 * The write of one Update manager (ManagedFieldsUpdater over the structured merge): fields the
 * write changed are added to the manager's set (time = now) and taken from everyone else.
 */
function updateOwnership(
  oldBody: Obj,
  newBody: Obj,
  managers: Managers,
  id: string,
  who: { manager: string; apiVersion: string; subresource: string | undefined },
  now: string,
  ctx: TypeContext,
): Managers {
  const current = '\u0000current-operation';
  const outcome = updateManagers(oldBody, newBody, managers, current, true, ctx);
  if (!outcome.ok) return managers;
  const next = outcome.managers;
  const { comparison } = outcome;
  const set = difference(union(comparison.modified, comparison.added), STRIPPED);
  if (set.size > 0) {
    const prev = next.get(id);
    next.set(id, {
      manager: who.manager,
      operation: 'Update',
      apiVersion: who.apiVersion,
      subresource: who.subresource,
      set: union(prev?.set, set),
      time: now,
    });
  }
  return next;
}

/**
 * Server-side apply (PATCH application/apply-patch+yaml); `live` undefined is a create. Returns
 * the new object with its managedFields, or the conflicts (409) when another manager owns a field
 * the configuration changes and `force` is false. `changed` is false, and the object deep-equal to
 * live including managedFields, when the apply is a no-op. Throws ApplyError (400/422) for a
 * configuration the schema refuses. Status and system metadata keep their live values.
 */
export function serverSideApply(args: {
  live: KubeObject | undefined;
  applied: KubeObject;
  manager: string;
  force: boolean;
  now: string;
}): ApplyResult {
  const { live, applied, force } = args;
  validateApplied(applied, live);
  const now = toKubeTime(args.now);
  const manager = args.manager || 'unknown';
  const ctx = typeContext(applied.apiVersion, applied.kind, undefined);
  const liveBody = live ? body(live) : {};
  const liveManagers: Managers = live ? decodeManagedFields(live.metadata?.managedFields) : new Map();
  let managers = liveManagers;
  if (live && managers.size === 0) {
    // Fields that existed before the first apply belong to `before-first-apply` (skipNonApplied).
    const who = { manager: 'before-first-apply', apiVersion: applied.apiVersion, subresource: undefined };
    const id = managerId(who.manager, 'Update', who.apiVersion, undefined);
    managers = updateOwnership({}, liveBody, managers, id, who, now, ctx);
  }
  const applierId = managerId(manager, 'Apply', applied.apiVersion, undefined);
  const outcome = applyConfig(
    liveBody,
    applied,
    managers,
    applierId,
    { manager, apiVersion: applied.apiVersion },
    force,
    ctx,
  );
  if (!outcome.ok) return { ok: false, conflicts: toConflicts(outcome.conflicts, managers) };
  const next = outcome.managers;
  stripMeta(next, applierId);
  const object = settle(outcome.object as Obj, live ? liveBody : undefined, applied.kind, undefined);
  const changed = !live || !deepEqual(liveBody, object);
  const state = next.get(applierId);
  if (state && (changed || state.time === undefined)) next.set(applierId, { ...state, time: now });
  if (live && !changed && sameManagers(liveManagers, next)) return { ok: true, object: live, changed: false };
  return { ok: true, object: withManagedFields(object, next), changed: true };
}

function sameManagers(a: Managers, b: Managers): boolean {
  if (a.size !== b.size) return false;
  for (const [id, s] of a) {
    const t = b.get(id);
    if (!t || t.time !== s.time || t.apiVersion !== s.apiVersion || !setsEqual(s.set, t.set)) return false;
  }
  return true;
}

function isResetRequest(mf: unknown): boolean {
  if (!Array.isArray(mf)) return false;
  if (mf.length === 0) return true;
  return mf.length === 1 && isObj(mf[0]) && Object.keys(mf[0]).length === 0;
}

/**
 * Any write other than apply (create, update/PUT, merge/JSON/strategic patch): the fields whose
 * value the write set or changed become owned by `manager` (operation Update) and are taken from
 * other managers; fields it removed are released by everyone. Like the apiserver it never fails:
 * if the new object cannot be typed, the live managedFields are kept. An update that sends
 * `managedFields: []` or `[{}]` clears them; other sent managedFields replace the live ones.
 */
export function recordUpdate(args: {
  live: KubeObject | undefined;
  updated: KubeObject;
  manager: string;
  now: string;
  subresource?: string;
}): KubeObject {
  const { live, updated } = args;
  const subresource = args.subresource || undefined;
  const sent = updated.metadata?.managedFields as unknown;
  const updatedBody = settle(body(updated), live ? body(live) : undefined, updated.kind, subresource);
  try {
    const now = toKubeTime(args.now);
    let managers: Managers;
    if (subresource === undefined && isResetRequest(sent)) managers = new Map();
    else {
      let fromRequest: Managers | undefined;
      if (subresource === undefined && sent !== undefined) {
        try {
          fromRequest = decodeManagedFields(sent);
        } catch {
          fromRequest = undefined;
        }
      }
      managers =
        fromRequest && fromRequest.size > 0
          ? fromRequest
          : decodeManagedFields(live?.metadata?.managedFields);
    }
    // An existing object nobody tracks stays untracked (skipNonApplied).
    if (live && managers.size === 0) return withManagedFields(updatedBody, managers);
    const ctx = typeContext(updated.apiVersion, updated.kind, subresource);
    const manager = args.manager || 'unknown';
    const who = { manager, apiVersion: updated.apiVersion, subresource };
    const id = managerId(manager, 'Update', updated.apiVersion, subresource);
    const liveBody = live ? body(live) : {};
    const next = capUpdateManagers(updateOwnership(liveBody, updatedBody, managers, id, who, now, ctx));
    return withManagedFields(updatedBody, next);
  } catch (err) {
    if (!(err instanceof ApplyError)) throw err;
    const fallback = live ? decodeSafe(live.metadata?.managedFields) : new Map();
    return withManagedFields(updatedBody, fallback);
  }
}

function decodeSafe(mf: unknown): Managers {
  try {
    return decodeManagedFields(mf);
  } catch {
    return new Map();
  }
}

/** A deep copy of an object (JSON data), for callers that must not share structure. */
export function cloneObject<T>(obj: T): T {
  return copyJson(obj) as T;
}
