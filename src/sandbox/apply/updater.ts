/**
 * The ownership bookkeeping of structured-merge-diff's `merge.Updater`: what an apply produces
 * (merge, then prune what the applier stopped applying unless someone else owns it), and how any
 * write moves ownership (changed fields are taken from their other owners; removed fields are
 * released by everyone).
 */
import {
  type FieldSet,
  difference,
  intersection,
  isEmpty,
  isSubset,
  recursiveDifference,
  setsEqual,
  union,
} from './field-set.ts';
import { type Managers, STRIPPED } from './managed-fields.ts';
import type { Atom } from './schema.ts';
import { type Comparison, compareValues } from './compare.ts';
import { mergeIsNoop, mergeValues } from './merge.ts';
import { removeItems } from './remove.ts';
import { ensureNamedFieldsAreMembers, fieldSetOf } from './to-field-set.ts';
import { deepEqual, type Obj } from './typed.ts';

/** The typed context of one write. */
export interface TypeContext {
  atom: Atom;
  /** Reset fields of the endpoint: excluded, with everything under them, from ownership. */
  ignore: FieldSet | undefined;
}

export type UpdateOutcome =
  | { ok: true; managers: Managers; comparison: Comparison }
  | { ok: false; conflicts: Map<string, FieldSet> };

/**
 * Moves ownership for a write by `workflow` from oldObj to newObj (Updater.update): fields
 * modified or added are conflicts with their other owners (taken from them when forced); fields
 * removed are released by every other manager. Empty managers are dropped.
 */
export function updateManagers(
  oldObj: unknown,
  newObj: unknown,
  managers: Managers,
  workflow: string,
  force: boolean,
  ctx: TypeContext,
): UpdateOutcome {
  const raw = compareValues(oldObj, newObj, ctx.atom);
  const comparison: Comparison = ctx.ignore
    ? {
        added: recursiveDifference(raw.added, ctx.ignore),
        modified: recursiveDifference(raw.modified, ctx.ignore),
        removed: recursiveDifference(raw.removed, ctx.ignore),
      }
    : raw;
  const changed = union(comparison.modified, comparison.added);
  const conflicts = new Map<string, FieldSet>();
  if (changed.size > 0) {
    for (const [id, state] of managers) {
      if (id === workflow) continue;
      const c = intersection(state.set, changed);
      if (c.size > 0) conflicts.set(id, c);
    }
  }
  if (!force && conflicts.size > 0) return { ok: false, conflicts };
  const out: Managers = new Map();
  for (const [id, state] of managers) {
    let set = state.set;
    if (id !== workflow) {
      set = difference(set, conflicts.get(id));
      set = difference(set, comparison.removed);
    }
    if (set.size === 0) continue;
    out.set(id, set === state.set ? state : { ...state, set });
  }
  return { ok: true, managers: out, comparison };
}

/**
 * Removes from merged what the applier owned last time (lastSet) and no longer applies, unless
 * another manager (or the applier's new configuration) owns it (Updater.prune).
 */
export function prune(
  merged: unknown,
  managers: Managers,
  lastSet: FieldSet | undefined,
  ctx: TypeContext,
): unknown {
  if (!lastSet || isEmpty(lastSet)) return merged;
  const { atom } = ctx;
  const lenient = { path: [], strict: false };
  const named = (s: FieldSet): FieldSet => ensureNamedFieldsAreMembers(s, atom);
  const last = named(lastSet);
  // Intermediate objects keep emptied maps as nulls: they still count as present fields.
  let pruned = removeItems(merged, last, atom, true) ?? {};
  // Add back what someone owns (addBackOwnedItems).
  let managed: FieldSet = new Map();
  for (const state of managers.values()) managed = union(managed, state.set);
  const mergedSet = named(fieldSetOf(merged, atom, lenient));
  const prunedSet = named(fieldSetOf(pruned, atom, lenient));
  pruned = removeItems(merged, difference(mergedSet, union(prunedSet, named(managed))), atom, true) ?? {};
  // Add back what the applier never owned (addBackDanglingItems).
  const prunedSet2 = named(fieldSetOf(pruned, atom, lenient));
  return removeItems(merged, intersection(difference(mergedSet, prunedSet2), last), atom) ?? {};
}

export type ApplyOutcome =
  | { ok: true; object: unknown; managers: Managers }
  | { ok: false; conflicts: Map<string, FieldSet> };

/**
 * Server-side apply of config by the manager identified by applierId (Updater.apply). The
 * applier's set becomes exactly the fields of config (minus ignored ones).
 */
export function applyConfig(
  live: unknown,
  config: unknown,
  managers: Managers,
  applierId: string,
  applier: { manager: string; apiVersion: string },
  force: boolean,
  ctx: TypeContext,
): ApplyOutcome {
  // Validates the configuration against the schema (throws ApplyError) before anything else.
  let set = fieldSetOf(config, ctx.atom, { path: [], strict: true });
  if (ctx.ignore) set = recursiveDifference(set, ctx.ignore);
  const previous = managers.get(applierId);
  const lastSet = previous?.set;
  // What the entry will hold once identity and system metadata are stripped (stripMetaManager,
  // which runs after the merge: during the merge the applier owns metadata.name, and so the
  // metadata struct, which prune must not remove). An unchanged set keeps its identity, whose
  // FieldsV1 encoding is cached.
  let stripped = difference(set, STRIPPED);
  const unchanged = lastSet !== undefined && setsEqual(lastSet, stripped);
  if (unchanged) stripped = lastSet;
  // A re-apply of what is already there (the common case) skips building the merge.
  let merged: unknown =
    unchanged && mergeIsNoop(live, config, ctx.atom)
      ? live
      : (mergeValues(live, config, ctx.atom, { path: [], strict: true }) ?? {});
  const next: Managers = new Map(managers);
  next.set(applierId, {
    manager: applier.manager,
    operation: 'Apply',
    apiVersion: applier.apiVersion,
    subresource: undefined,
    set,
    time: previous?.time,
  });
  // When the applier still applies everything it applied last time, prune removes nothing: every
  // path it could remove is owned by the new configuration (or lies under an owned one).
  if (lastSet && !unchanged && !isSubset(lastSet, set)) merged = prune(merged, next, lastSet, ctx);
  let result: Managers;
  if (onlyOwner(next, applierId) || deepEqual(live, merged)) {
    // Nothing changes, or nobody else owns anything: no conflicts and nothing to release (the
    // comparison, the costly part of an apply that creates, would be read by no one).
    result = next;
  } else {
    const outcome = updateManagers(live, merged, next, applierId, force, ctx);
    if (!outcome.ok) return outcome;
    result = outcome.managers;
  }
  const mine = result.get(applierId);
  if (mine) result.set(applierId, { ...mine, set: stripped });
  for (const [id, state] of result) if (state.set.size === 0) result.delete(id);
  return { ok: true, object: merged, managers: result };
}

/** Whether no manager other than `id` owns a field. */
function onlyOwner(managers: Managers, id: string): boolean {
  for (const [other, state] of managers) if (other !== id && state.set.size > 0) return false;
  return true;
}

/**
 * The write of one Update manager (ManagedFieldsUpdater over the structured merge): fields the
 * write changed are added to the manager's set (time = now) and taken from everyone else.
 */
export function recordWrite(
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
