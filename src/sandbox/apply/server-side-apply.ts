/**
 * Server-side apply (PATCH application/apply-patch+yaml) with the apiserver's managedFields
 * bookkeeping. Pure: no I/O, time is passed in.
 */
import { ApplyError } from './errors.ts';
import { type FieldSet, difference, setsEqual } from './field-set.ts';
import { iteratePaths, pathString } from './fields-v1.ts';
import { allowedByLastApplied, KUBECTL, refreshLastApplied } from './last-applied.ts';
import { decodeManagedFields, type Managers, managerId, stripMeta } from './managed-fields.ts';
import { body, settle, toKubeTime, typeContext, withManagedFields } from './object-meta.ts';
import type { ApplyResult, Conflict, KubeObject } from './types.ts';
import { deepEqual, isObj, type Obj } from './typed.ts';
import { applyConfig, recordWrite } from './updater.ts';

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
    managers = recordWrite({}, liveBody, managers, id, who, now, ctx);
  }
  const applierId = managerId(manager, 'Apply', applied.apiVersion, undefined);
  const who = { manager, apiVersion: applied.apiVersion };
  let outcome = applyConfig(liveBody, applied, managers, applierId, who, force, ctx);
  if (!outcome.ok && manager === KUBECTL) {
    // Upgrading from client-side apply: conflicts on fields the last-applied annotation still
    // describes are taken over (lastAppliedManager).
    const allowed = allowedByLastApplied(liveBody, applied.apiVersion, ctx.atom);
    if (allowed) {
      const remaining = new Map<string, FieldSet>();
      for (const [id, set] of outcome.conflicts) {
        const left = difference(set, allowed);
        if (left.size > 0) remaining.set(id, left);
      }
      outcome =
        remaining.size === 0
          ? applyConfig(liveBody, applied, managers, applierId, who, true, ctx)
          : { ok: false, conflicts: remaining };
    }
  }
  if (!outcome.ok) return { ok: false, conflicts: toConflicts(outcome.conflicts, managers) };
  const next = outcome.managers;
  stripMeta(next, applierId);
  const object = settle(outcome.object as Obj, live ? liveBody : undefined, applied.kind, undefined);
  if (manager === KUBECTL) refreshLastApplied(object, applied);
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
