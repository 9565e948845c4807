/**
 * `metadata.managedFields` as the apiserver keeps it: one entry per manager identity (name,
 * operation, apiVersion for updates, subresource), decoded into field sets and encoded back in
 * the apiserver's order. After k8s.io/apimachinery `managedfields/internal` (managedfields.go,
 * capmanagers.go, stripmeta.go).
 */
import { ApplyError } from './errors.ts';
import { type FieldSet, difference, goJson, insertPath, union } from './field-set.ts';
import { fromFieldsV1, toFieldsV1 } from './fields-v1.ts';

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

/** One manager's decoded entry. */
export interface ManagerState {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource: string | undefined;
  set: FieldSet;
  time: string | undefined;
}

/** Manager identity (BuildManagerIdentifier) -> state. */
export type Managers = Map<string, ManagerState>;

/** The identity the apiserver keys managers by: apply managers are one entry across versions. */
export function managerId(
  manager: string,
  operation: 'Apply' | 'Update',
  apiVersion: string,
  subresource: string | undefined,
): string {
  let s = `{"manager":${goJson(manager)},"operation":"${operation}"`;
  if (operation !== 'Apply' && apiVersion) s += `,"apiVersion":${goJson(apiVersion)}`;
  if (subresource) s += `,"subresource":${goJson(subresource)}`;
  return `${s}}`;
}

/** Decodes managedFields; throws ApplyError (as DecodeManagedFields errors) on a bad entry. */
export function decodeManagedFields(entries: unknown): Managers {
  const out: Managers = new Map();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) throw new ApplyError('metadata.managedFields must be a list', 400);
  entries.forEach((raw, i) => {
    const e = (raw ?? {}) as Partial<ManagedFieldsEntry> & Record<string, unknown>;
    if (e.operation !== 'Apply' && e.operation !== 'Update') {
      throw new ApplyError('operation must be `Apply` or `Update`', 400);
    }
    if (typeof e.apiVersion !== 'string' || e.apiVersion.length < 1) {
      throw new ApplyError('apiVersion must not be empty', 400);
    }
    if (e.fieldsType !== 'FieldsV1') {
      throw new ApplyError(
        e.fieldsType
          ? `invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`
          : `missing fieldsType in managed fields entry ${i}`,
        400,
      );
    }
    const manager = typeof e.manager === 'string' ? e.manager : '';
    const subresource = typeof e.subresource === 'string' && e.subresource !== '' ? e.subresource : undefined;
    const set = e.fieldsV1 === undefined ? new Map() : fromFieldsV1(e.fieldsV1);
    out.set(managerId(manager, e.operation, e.apiVersion, subresource), {
      manager,
      operation: e.operation,
      apiVersion: e.apiVersion,
      subresource,
      set,
      time: typeof e.time === 'string' ? e.time : undefined,
    });
  });
  return out;
}

function seconds(time: string | undefined): number {
  if (time === undefined) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Encodes managers as managedFields, sorted as sortEncodedManagedFields does. */
export function encodeManagedFields(managers: Managers): ManagedFieldsEntry[] | undefined {
  if (managers.size === 0) return undefined;
  const states = [...managers.values()];
  states.sort(
    (p, q) =>
      cmpStr(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      cmpStr(p.manager, q.manager) ||
      cmpStr(p.apiVersion, q.apiVersion) ||
      cmpStr(p.subresource ?? '', q.subresource ?? ''),
  );
  return states.map((s) => {
    const e = {
      manager: s.manager,
      operation: s.operation,
      apiVersion: s.apiVersion,
      time: s.time,
      fieldsType: 'FieldsV1',
      fieldsV1: toFieldsV1(s.set),
    } as ManagedFieldsEntry;
    if (s.time === undefined) delete (e as Partial<ManagedFieldsEntry>).time;
    if (s.subresource !== undefined) e.subresource = s.subresource;
    return e;
  });
}

/** Fields never tracked for anyone: identity and system metadata (stripMetaManager). */
export const STRIPPED: FieldSet = (() => {
  const s: FieldSet = new Map();
  for (const p of [
    ['f:apiVersion'],
    ['f:kind'],
    ['f:metadata'],
    ['f:metadata', 'f:name'],
    ['f:metadata', 'f:namespace'],
    ['f:metadata', 'f:creationTimestamp'],
    ['f:metadata', 'f:selfLink'],
    ['f:metadata', 'f:uid'],
    ['f:metadata', 'f:clusterName'],
    ['f:metadata', 'f:generation'],
    ['f:metadata', 'f:managedFields'],
    ['f:metadata', 'f:resourceVersion'],
  ]) {
    insertPath(s, p);
  }
  return s;
})();

/** The apiserver keeps at most this many Update managers (DefaultMaxUpdateManagers). */
export const MAX_UPDATE_MANAGERS = 10;

/** Folds the oldest Update managers into `ancient-changes` per apiVersion (capManagersManager). */
export function capUpdateManagers(managers: Managers, max = MAX_UPDATE_MANAGERS): Managers {
  const updaters = [...managers.entries()].filter(([, s]) => s.operation === 'Update').map(([id]) => id);
  if (updaters.length <= max) return managers;
  const out = new Map(managers);
  updaters.sort((a, b) => seconds(out.get(a)?.time) - seconds(out.get(b)?.time) || cmpStr(a, b));
  const firstPerVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i] as string;
    const state = out.get(id) as ManagerState;
    const bucket = managerId('ancient-changes', 'Update', state.apiVersion, undefined);
    const first = firstPerVersion.get(state.apiVersion);
    if (first === undefined) {
      firstPerVersion.set(state.apiVersion, id);
      continue;
    }
    if (!out.has(bucket)) {
      const s = out.get(first) as ManagerState;
      out.delete(first);
      out.set(bucket, { ...s, manager: 'ancient-changes', subresource: undefined });
    }
    const b = out.get(bucket) as ManagerState;
    out.set(bucket, { ...b, set: union(state.set, b.set), time: state.time });
    out.delete(id);
    length--;
  }
  return out;
}

/** Removes the stripped metadata fields from one manager's set; drops it when empty. */
export function stripMeta(managers: Managers, id: string): void {
  const s = managers.get(id);
  if (!s) return;
  const set = difference(s.set, STRIPPED);
  if (set.size === 0) managers.delete(id);
  else managers.set(id, { ...s, set });
}
