/**
 * Strategic merge patch (application/strategic-merge-patch+json), after
 * k8s.io/apimachinery `util/strategicpatch`: maps merge key by key (null deletes), lists with
 * merge keys merge item by item (the first list-map key of the schema is the patch merge key,
 * e.g. `name` for containers, `containerPort` for container ports, `port` for Service ports),
 * set lists merge as sets, other lists are replaced. Directives: `$patch: replace | delete` (maps
 * and keyed list items), `$retainKeys`, `$deleteFromPrimitiveList/<field>`,
 * `$setElementOrder/<field>`.
 */
import { ApplyError } from './errors.ts';
import type { KubeObject } from './types.ts';
import { type Atom, DEDUCED, type ListType, rootTypeOf } from './schema.ts';
import { copyJson, deepEqual, isObj } from './typed.ts';

type Obj = Record<string, unknown>;

const DELETE_FROM = '$deleteFromPrimitiveList/';
const ORDER = '$setElementOrder/';

function fieldAtom(atom: Atom, key: string): Atom {
  return atom.map?.fields?.get(key) ?? atom.map?.elem ?? DEDUCED;
}

/** A patch value with its directives removed, for places where it replaces what was there. */
function clean(v: unknown): unknown {
  if (Array.isArray(v))
    return v.filter((x) => !(isObj(x) && x.$patch !== undefined && Object.keys(x).length === 1)).map(clean);
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    if (k.startsWith('$') || x === null) continue;
    out[k] = clean(x);
  }
  return out;
}

function mergeMap(live: Obj | undefined, patch: Obj, atom: Atom, path: string): Obj | undefined {
  const directive = patch.$patch;
  if (directive === 'delete') return undefined;
  if (directive === 'replace') return clean(patch) as Obj;
  if (directive !== undefined && directive !== 'merge') {
    throw new ApplyError(`${path}: unknown patch type ${JSON.stringify(directive)}`, 422);
  }
  const out: Obj = live ? { ...live } : {};
  for (const [key, pv] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys' || key.startsWith(ORDER)) continue;
    if (key.startsWith(DELETE_FROM)) {
      const field = key.slice(DELETE_FROM.length);
      if (!Array.isArray(pv)) throw new ApplyError(`${path}.${field}: ${DELETE_FROM} expects a list`, 422);
      const cur = out[field];
      if (Array.isArray(cur)) out[field] = cur.filter((x) => !pv.some((d) => deepEqual(d, x)));
      continue;
    }
    if (key.startsWith('$')) continue;
    if (pv === null) {
      delete out[key];
      continue;
    }
    const merged = mergeValue(out[key], pv, fieldAtom(atom, key), `${path}.${key}`);
    if (merged === undefined) delete out[key];
    else out[key] = merged;
  }
  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(ORDER) || !Array.isArray(order)) continue;
    const field = key.slice(ORDER.length);
    const list = fieldAtom(atom, field).list;
    const before = Array.isArray(live?.[field]) ? (live?.[field] as unknown[]) : [];
    if (Array.isArray(out[field]) && list)
      out[field] = applyOrder(out[field] as unknown[], order, before, list);
  }
  const retain = patch.$retainKeys;
  if (retain !== undefined) {
    if (!Array.isArray(retain)) throw new ApplyError(`${path}: $retainKeys must be a list`, 422);
    for (const key of Object.keys(out)) if (!retain.includes(key)) delete out[key];
  }
  return out;
}

function mergeValue(live: unknown, patch: unknown, atom: Atom, path: string): unknown {
  if (isObj(patch)) {
    if (!atom.map) throw new ApplyError(`${path}: expected ${atom.list ? 'list' : 'scalar'}, got map`, 422);
    // Strategic merge follows Go struct tags, not map-type markers: atomic structs still merge.
    return mergeMap(isObj(live) ? live : undefined, patch, atom, path);
  }
  if (Array.isArray(patch)) {
    if (!atom.list) throw new ApplyError(`${path}: expected ${atom.map ? 'map' : 'scalar'}, got list`, 422);
    return mergeList(Array.isArray(live) ? live : [], patch, atom.list, path);
  }
  if (!atom.scalar) throw new ApplyError(`${path}: expected ${atom.map ? 'map' : 'list'}, got scalar`, 422);
  return patch;
}

function keyOf(list: ListType, item: unknown): unknown {
  const key = list.keys[0] as string;
  if (!isObj(item)) return undefined;
  return item[key] ?? list.keyDefaults[key];
}

function mergeList(live: unknown[], patch: unknown[], list: ListType, path: string): unknown[] {
  if (list.kind === 'atomic') return clean(patch) as unknown[];
  if (list.kind === 'set') {
    const out = [...live];
    for (const v of patch) if (!out.some((x) => deepEqual(x, v))) out.push(v);
    return normalizeOrder(out, patch, live, (x) => x);
  }
  if (patch.some((x) => isObj(x) && x.$patch === 'replace')) return clean(patch) as unknown[];
  const out = live.map((x) => x);
  for (const item of patch) {
    if (!isObj(item)) throw new ApplyError(`${path}: expected map items, got scalar`, 422);
    const key = keyOf(list, item);
    if (key === undefined) throw new ApplyError(`${path}: item has no merge key ${list.keys[0]}`, 422);
    const i = out.findIndex((x) => deepEqual(keyOf(list, x), key));
    if (item.$patch === 'delete') {
      if (i >= 0) out.splice(i, 1);
      continue;
    }
    const merged = mergeMap(i >= 0 && isObj(out[i]) ? (out[i] as Obj) : undefined, item, list.elem, path);
    if (i >= 0) {
      if (merged === undefined) out.splice(i, 1);
      else out[i] = merged;
    } else if (merged !== undefined) out.push(merged);
  }
  return normalizeOrder(out, patch, live, (x) => keyOf(list, x));
}

/**
 * The order apimachinery's normalizeElementOrder gives a merged list: the items the patch names
 * in the patch's order, the others in the live order, merged so that an item of both keeps its
 * live place relative to the others and an item new to the list goes before the live items that
 * follow it (a new item of a patch that names nothing else comes first).
 */
function normalizeOrder(
  merged: unknown[],
  patchOrder: unknown[],
  live: unknown[],
  idOf: (x: unknown) => unknown,
): unknown[] {
  const patchIds = patchOrder.map(idOf);
  const liveIds = live.map(idOf);
  const at = (ids: unknown[], x: unknown) => ids.findIndex((id) => deepEqual(id, idOf(x)));
  const named = merged.filter((x) => at(patchIds, x) >= 0).sort((a, b) => at(patchIds, a) - at(patchIds, b));
  const serverOnly = merged
    .filter((x) => at(patchIds, x) < 0)
    .sort((a, b) => at(liveIds, a) - at(liveIds, b));
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < named.length) {
    if (j >= named.length) out.push(serverOnly[i++]);
    else if (i >= serverOnly.length) out.push(named[j++]);
    else {
      // mergeSortedSlice: a server-only item goes first only when both are live and it is earlier.
      const l = at(liveIds, serverOnly[i]);
      const r = at(liveIds, named[j]);
      if (l >= 0 && r >= 0 && l < r) out.push(serverOnly[i++]);
      else out.push(named[j++]);
    }
  }
  return out;
}

function applyOrder(items: unknown[], order: unknown[], live: unknown[], list: ListType): unknown[] {
  const keyed = list.kind === 'map';
  return normalizeOrder(items, order, live, (x) => (keyed ? keyOf(list, x) : x));
}

/**
 * Applies a strategic merge patch to a live object and returns the new object (live is not
 * modified). Throws ApplyError (422) when the patch does not fit the kind's schema.
 */
export function strategicMergePatch(live: KubeObject, patch: Record<string, unknown>): KubeObject {
  if (!isObj(patch)) throw new ApplyError('the patch must be a JSON object', 400);
  const atom = rootTypeOf(live.apiVersion, live.kind) ?? DEDUCED;
  const out = mergeMap(copyJson(live) as Obj, patch, atom, '');
  return (out ?? {}) as KubeObject;
}
