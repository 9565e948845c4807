import type { MooringError } from '../errors.ts';

/** What happened to one object (Flux ssa's closed set). */
export type ChangeAction = 'created' | 'configured' | 'unchanged' | 'deleted' | 'skipped' | 'unknown';

/** Fields another manager owned before our forced apply took them. */
export interface TakenFields {
  manager: string;
  fields: string[];
}

/**
 * What code may branch on beyond an entry's action; its `note` is for people and may be reworded.
 * - `terminating`: deleted, but finalizers hold the object until their controllers release it;
 * - `already-terminating`: found marked for deletion already: no request was made;
 * - `already-gone`: the object was gone when the delete came (404);
 * - `volume-kept`: a volume claim left in place (deleteVolumes is off);
 * - `replaced`: not deleted: the name holds another object than the one listed (its uid differs).
 */
export type EntryDetail = 'terminating' | 'already-terminating' | 'already-gone' | 'volume-kept' | 'replaced';

/** One object's outcome. `error` is set when the operation on this object failed. */
export interface ChangeSetEntry {
  /** `Kind/namespace/name`. */
  id: string;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  action: ChangeAction;
  /** Why it was skipped or what it did beyond the action (secret-free), for people. */
  note?: string;
  /** The same, typed, for code (see EntryDetail). */
  detail?: EntryDetail;
  /** Set when a forced apply took fields another field manager owned. */
  conflicts?: TakenFields[];
  /** The object was deleted and created again (immutable-field change). */
  recreated?: boolean;
  error?: MooringError;
}

/** The outcome of one operation: an entry per object, also when the operation failed halfway. */
export interface ChangeSet {
  entries: ChangeSetEntry[];
  dryRun: boolean;
  /**
   * Objects found unchanged without an entry each: a judge-only cold listing let them go as it
   * judged them (ADR 0010), counting them only. Counted as `unchanged` by `countActions`.
   */
  unchangedUnlisted?: number;
}

/** The errors of a change set, in entry order. */
export function changeSetErrors(cs: ChangeSet): MooringError[] {
  return cs.entries.flatMap((e) => (e.error ? [e.error] : []));
}

/** True when anything was written (or would be, in dry-run). */
export function hasChanges(cs: ChangeSet): boolean {
  return cs.entries.some(
    (e) => e.action === 'created' || e.action === 'configured' || e.action === 'deleted',
  );
}

/** Whether every object was found as desired: nothing written, pruned, skipped, refused or failed. */
export function allUnchanged(cs: ChangeSet): boolean {
  return cs.entries.every((e) => e.action === 'unchanged');
}

/** Counts per action, e.g. `{ created: 1, unchanged: 7 }`. */
export function countActions(cs: ChangeSet): Partial<Record<ChangeAction, number>> {
  const out: Partial<Record<ChangeAction, number>> = {};
  for (const e of cs.entries) out[e.action] = (out[e.action] ?? 0) + 1;
  if (cs.unchangedUnlisted) out.unchanged = (out.unchanged ?? 0) + cs.unchangedUnlisted;
  return out;
}

/** `created 1, configured 2, unchanged 7`: a secret-free one-line summary for logs and events. */
export function summarize(cs: ChangeSet): string {
  const counts = countActions(cs);
  const order: ChangeAction[] = ['created', 'configured', 'deleted', 'unchanged', 'skipped', 'unknown'];
  const parts = order.filter((a) => counts[a]).map((a) => `${a} ${counts[a]}`);
  return parts.length > 0 ? parts.join(', ') : 'no objects';
}

/** Merges change sets in order (apply then prune). */
export function mergeChangeSets(...sets: ChangeSet[]): ChangeSet {
  return { entries: sets.flatMap((s) => s.entries), dryRun: sets.some((s) => s.dryRun) };
}

/** A secret-free plain view of a change set, for logs, status and error details. */
export function changeSetView(cs: ChangeSet): Array<Record<string, unknown>> {
  return cs.entries.map((e) => {
    const v: Record<string, unknown> = { id: e.id, action: e.action };
    if (e.note) v.note = e.note;
    if (e.conflicts) v.conflicts = e.conflicts;
    if (e.recreated) v.recreated = true;
    if (e.error) v.error = { code: e.error.code, message: e.error.message };
    return v;
  });
}
