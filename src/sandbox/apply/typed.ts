/**
 * Schema-aware walks over plain JSON objects, after structured-merge-diff's `typed` package:
 * the field set a value owns, the merge of an applied configuration into a live object, the
 * comparison of two objects, and the removal of a set of fields. Containers are rebuilt where a
 * walk changes them and shared where it does not; inputs are never mutated.
 */
import { ApplyError } from './errors.ts';
import { type FieldSet, insertPath, keyPE, type SetNode, valuePE } from './field-set.ts';
import { type Atom, DEDUCED, type ListType } from './schema.ts';

type Obj = Record<string, unknown>;
type Kind = 'scalar' | 'list' | 'map';

export function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isEmptyish(v: unknown, kind: Kind): boolean {
  if (v === undefined || v === null) return true;
  if (kind === 'list') return Array.isArray(v) && v.length === 0;
  if (kind === 'map') {
    if (!isObj(v)) return false;
    for (const _ in v) return false;
    return true;
  }
  return false;
}

/** Which alternative of the atom a value takes (deduceAtom); undefined when none fits. */
function kindOf(atom: Atom, v: unknown): Kind | undefined {
  if (v === null || v === undefined) return atom.map ? 'map' : atom.scalar ? 'scalar' : 'list';
  if (Array.isArray(v)) return atom.list ? 'list' : undefined;
  if (typeof v === 'object') return atom.map ? 'map' : undefined;
  return atom.scalar ? 'scalar' : undefined;
}

function typeName(v: unknown): string {
  if (Array.isArray(v)) return 'list';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'map';
  if (typeof v === 'number') return 'numeric';
  return typeof v;
}

function expected(atom: Atom): string {
  return [atom.map ? 'map' : '', atom.list ? 'list' : '', atom.scalar ?? '']
    .filter((x) => x !== '')
    .join(' or ');
}

/** Walk state: the current path (for messages) and whether schema violations throw. */
export interface Walk {
  path: string[];
  strict: boolean;
}

export function pathText(path: readonly string[]): string {
  return path.map((pe) => (pe.startsWith('f:') ? `.${pe.slice(2)}` : `[${pe.slice(2)}]`)).join('');
}

function fail(w: Walk, message: string): never {
  throw new ApplyError(`${pathText(w.path)}: ${message}`);
}

function scalarFits(atom: Atom, v: unknown): boolean {
  if (v === null || v === undefined) return true;
  switch (atom.scalar) {
    case 'string':
      return typeof v === 'string';
    case 'numeric':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    default:
      return true;
  }
}

/** Resolves the kind of v under atom, throwing in strict walks on a shape the schema refuses. */
function resolve(atom: Atom, v: unknown, w: Walk): Kind | undefined {
  const kind = kindOf(atom, v);
  if (kind === undefined) {
    if (w.strict) fail(w, `expected ${expected(atom)}, got ${typeName(v)}`);
    return undefined;
  }
  if (kind === 'scalar' && !scalarFits(atom, v)) {
    if (w.strict) fail(w, `expected ${atom.scalar}, got ${typeName(v)}`);
    return undefined;
  }
  return kind;
}

function failAt(w: Walk, index: number | undefined, message: string): never {
  if (index !== undefined) w.path.push(`i:${index}`);
  fail(w, message);
}

/** The path element of a list item (`k:{...}` or `v:...`); undefined when it has none. */
export function itemPE(list: ListType, item: unknown, w: Walk, index?: number): string | undefined {
  if (list.kind === 'map') {
    if (!isObj(item)) {
      if (!w.strict) return undefined;
      failAt(
        w,
        index,
        `associative list with keys may not have ${item === null ? 'a null element' : 'non-map elements'}`,
      );
    }
    const names: string[] = [];
    const values: unknown[] = [];
    for (const key of list.keys) {
      const v = item[key];
      if (v !== undefined && v !== null) {
        names.push(key);
        values.push(v);
      } else if (key in list.keyDefaults) {
        names.push(key);
        values.push(list.keyDefaults[key]);
      }
    }
    if (names.length === 0) {
      if (!w.strict) return undefined;
      failAt(
        w,
        index,
        `associative list with keys has an element that omits all key fields ${JSON.stringify(list.keys)} (and doesn't have default values for any key fields)`,
      );
    }
    return keyPE(names, values);
  }
  if (item === null || typeof item === 'object') {
    if (!w.strict) return undefined;
    failAt(w, index, 'associative list without keys has an element that is not a scalar');
  }
  return valuePE(item);
}

const FIELD_PES = new Map<string, string>();

/** The `f:<name>` path element, interned: field names repeat across every object. */
function fpe(name: string): string {
  let pe = FIELD_PES.get(name);
  if (pe === undefined) {
    pe = `f:${name}`;
    if (FIELD_PES.size < 20_000) FIELD_PES.set(name, pe);
  }
  return pe;
}

function childAtom(atom: Atom, key: string, w: Walk): { atom: Atom; declared: boolean } {
  const declared = atom.map?.fields?.get(key);
  if (declared) return { atom: declared, declared: true };
  const elem = atom.map?.elem;
  if (elem) return { atom: elem, declared: false };
  if (w.strict) {
    w.path.push(fpe(key));
    fail(w, 'field not declared in schema');
  }
  return { atom: DEDUCED, declared: false };
}

// ---------------------------------------------------------------------------------------------
// Field sets (ToFieldSet)

/** The set of fields a value sets, as ToFieldSet computes it. */
export function fieldSetOf(v: unknown, atom: Atom, w: Walk): FieldSet {
  return collect(v, atom, w)[1] ?? new Map();
}

function collect(v: unknown, atom: Atom, w: Walk): [leaf: boolean, children: FieldSet | undefined] {
  const kind = resolve(atom, v, w);
  if (kind === undefined || kind === 'scalar') return [true, undefined];
  if (kind === 'list') {
    const list = atom.list as ListType;
    if (list.kind === 'atomic') return [true, undefined];
    if (!Array.isArray(v)) return [false, undefined];
    const out: FieldSet = new Map();
    const pes: (string | undefined)[] = new Array(v.length);
    let dup: Set<string> | undefined;
    for (let i = 0; i < v.length; i++) {
      const pe = itemPE(list, v[i], w, i);
      pes[i] = pe;
      if (pe === undefined) continue;
      if (out.has(pe)) {
        // An applied configuration may not repeat a key; live objects may (AllowDuplicates).
        if (w.strict) {
          w.path.push(pe);
          fail(w, 'duplicate entries for key');
        }
        dup ??= new Set();
        dup.add(pe);
      } else out.set(pe, { member: true, children: undefined });
    }
    for (let i = 0; i < v.length; i++) {
      const pe = pes[i];
      if (pe === undefined || dup?.has(pe)) continue;
      w.path.push(pe);
      const [, children] = collect(v[i], list.elem, w);
      w.path.pop();
      if (children && children.size > 0) (out.get(pe) as SetNode).children = children;
    }
    return [false, out];
  }
  const map = atom.map;
  if (map?.atomic) return [true, undefined];
  if (!isObj(v)) return [false, undefined];
  const out: FieldSet = new Map();
  for (const key in v) {
    const val = v[key];
    if (val === undefined) continue;
    const c = childAtom(atom, key, w);
    w.path.push(fpe(key));
    const [leaf, children] = collect(val, c.atom, w);
    w.path.pop();
    const member = leaf || !c.declared || val === null || isEmptyish(val, 'map');
    if (member || (children && children.size > 0)) {
      out.set(fpe(key), { member, children: children && children.size > 0 ? children : undefined });
    }
  }
  return [false, out];
}

// ---------------------------------------------------------------------------------------------
// Copies

/** A deep copy of JSON data without null map values (the typed round trip drops them). */
export function copyJson(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(copyJson);
  const out: Obj = {};
  for (const k in v as Obj) {
    const x = (v as Obj)[k];
    if (x !== null && x !== undefined) out[k] = copyJson(x);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Merge

/** Merges rhs (an applied configuration) into lhs (the live object). */
export function mergeValues(lhs: unknown, rhs: unknown, atom: Atom, w: Walk): unknown {
  if (rhs === undefined) return copyJson(lhs);
  const kr = resolve(atom, rhs, w);
  if (rhs === null) return null;
  if (lhs === undefined || lhs === null || kr === undefined || kr === 'scalar') return copyJson(rhs);
  const kl = kindOf(atom, lhs);
  if (kl !== kr) return copyJson(rhs);
  if (kr === 'list') {
    const list = atom.list as ListType;
    if (list.kind === 'atomic' || (isEmptyish(lhs, 'list') && isEmptyish(rhs, 'list'))) return copyJson(rhs);
    return mergeList(lhs as unknown[], rhs as unknown[], list, w);
  }
  if (atom.map?.atomic || (isEmptyish(lhs, 'map') && isEmptyish(rhs, 'map'))) return copyJson(rhs);
  const l = lhs as Obj;
  const r = rhs as Obj;
  const out: Obj = {};
  let any = false;
  for (const key in l) {
    const lv = l[key];
    if (lv === undefined) continue;
    const rv = r[key];
    let v: unknown;
    if (rv === undefined) v = copyJson(lv);
    else {
      w.path.push(fpe(key));
      v = mergeValues(lv, rv, childAtom(atom, key, w).atom, w);
      w.path.pop();
    }
    if (v !== undefined && v !== null) {
      out[key] = v;
      any = true;
    }
  }
  for (const key in r) {
    if (key in l && l[key] !== undefined) continue;
    const rv = r[key];
    if (rv === undefined) continue;
    w.path.push(fpe(key));
    const v = mergeValues(undefined, rv, childAtom(atom, key, w).atom, w);
    w.path.pop();
    if (v !== undefined && v !== null) {
      out[key] = v;
      any = true;
    }
  }
  return any ? out : undefined;
}

function indexItems(
  items: unknown[],
  list: ListType,
  w: Walk,
  allowDuplicates: boolean,
): { pes: string[]; observed: Map<string, unknown>; at: number[] } {
  const pes: string[] = [];
  const at: number[] = [];
  const observed = new Map<string, unknown>();
  for (let i = 0; i < items.length; i++) {
    const pe = itemPE(list, items[i], w, i);
    if (pe === undefined) continue;
    if (observed.has(pe)) {
      if (!allowDuplicates) {
        w.path.push(pe);
        fail(w, 'duplicate entries for key');
      }
      // Duplicated live items are not merged with the applied one.
      observed.set(pe, null);
    } else observed.set(pe, items[i]);
    pes.push(pe);
    at.push(i);
  }
  return { pes, observed, at };
}

/** Merges associative lists keeping the live order around applied items (mergingWalker). */
function mergeList(lhs: unknown[], rhs: unknown[], list: ListType, w: Walk): unknown {
  const R = indexItems(rhs, list, w, false);
  const L = indexItems(lhs, list, { path: w.path, strict: false }, true);
  const out: unknown[] = [];
  const sharedOrder = R.pes.filter((pe) => L.observed.has(pe));
  let si = 0;
  let nextShared: string | undefined = sharedOrder[si++];
  const mergedRHS = new Set<string>();
  const push = (pe: string, l: unknown, r: unknown): void => {
    w.path.push(pe);
    const v = mergeValues(l === null ? undefined : l, r, list.elem, w);
    w.path.pop();
    if (v !== undefined && v !== null) out.push(v);
  };
  const lLen = L.pes.length;
  const rLen = R.pes.length;
  for (let lI = 0, rI = 0; lI < lLen || rI < rLen; ) {
    if (lI < lLen && rI < rLen) {
      const pe = L.pes[lI] as string;
      if (pe === R.pes[rI]) {
        mergedRHS.add(pe);
        push(pe, L.observed.get(pe), R.observed.get(pe));
        lI++;
        rI++;
        nextShared = sharedOrder[si++];
        continue;
      }
      if (R.observed.has(pe) && nextShared !== undefined && nextShared !== pe) {
        lI++;
        continue;
      }
    }
    if (lI < lLen) {
      const pe = L.pes[lI] as string;
      if (!R.observed.has(pe)) {
        push(pe, lhs[L.at[lI] as number], undefined);
        lI++;
        continue;
      }
      if (mergedRHS.has(pe)) lI++;
    }
    if (rI < rLen) {
      const pe = R.pes[rI] as string;
      mergedRHS.add(pe);
      push(pe, L.observed.get(pe), R.observed.get(pe));
      rI++;
      if (nextShared !== undefined && nextShared === pe) nextShared = sharedOrder[si++];
    }
  }
  return out.length > 0 ? out : undefined;
}

// ---------------------------------------------------------------------------------------------
// Compare

/** What changed from lhs to rhs, as three sets of paths (typed.Comparison). */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  let n = 0;
  for (const k in a as Obj) {
    const av = (a as Obj)[k];
    if (av === undefined) continue;
    n++;
    if (!deepEqual(av, (b as Obj)[k])) return false;
  }
  for (const k in b as Obj) if ((b as Obj)[k] !== undefined) n--;
  return n === 0;
}

export function compareValues(lhs: unknown, rhs: unknown, atom: Atom): Comparison {
  const c: Comparison = { added: new Map(), modified: new Map(), removed: new Map() };
  cmp(lhs, rhs, atom, { path: [], strict: false }, c);
  return c;
}

function cmp(l: unknown, r: unknown, atom: Atom, w: Walk, c: Comparison): void {
  const kr = r === undefined ? undefined : kindOf(atom, r);
  const kl = l === undefined ? undefined : kindOf(atom, l);
  const kind = r === undefined ? kl : kr;
  const leaf = (): void => {
    if (l === undefined) insertPath(c.added, w.path);
    else if (r === undefined) insertPath(c.removed, w.path);
    else if (!deepEqual(l, r)) insertPath(c.modified, w.path);
  };
  if (kind === undefined || kind === 'scalar' || (kl !== undefined && kr !== undefined && kl !== kr)) {
    leaf();
    return;
  }
  if (kind === 'list') {
    const list = atom.list as ListType;
    if (list.kind === 'atomic' || (isEmptyish(l, 'list') && isEmptyish(r, 'list'))) {
      leaf();
      return;
    }
    cmpList(Array.isArray(l) ? l : [], Array.isArray(r) ? r : [], list, w, c);
  } else {
    if (atom.map?.atomic || (isEmptyish(l, 'map') && isEmptyish(r, 'map'))) {
      leaf();
      return;
    }
    const lo = isObj(l) ? l : undefined;
    const ro = isObj(r) ? r : undefined;
    if (lo) {
      for (const key in lo) {
        if (lo[key] === undefined) continue;
        w.path.push(fpe(key));
        cmp(lo[key], ro?.[key], childAtom(atom, key, w).atom, w, c);
        w.path.pop();
      }
    }
    if (ro) {
      for (const key in ro) {
        if (ro[key] === undefined || (lo && lo[key] !== undefined)) continue;
        w.path.push(fpe(key));
        cmp(undefined, ro[key], childAtom(atom, key, w).atom, w, c);
        w.path.pop();
      }
    }
  }
  if (l === undefined) insertPath(c.added, w.path);
  else if (r === undefined) insertPath(c.removed, w.path);
}

function group(items: unknown[], list: ListType, w: Walk, order: string[], seen: Set<string>) {
  const m = new Map<string, unknown[]>();
  for (const item of items) {
    const pe = itemPE(list, item, w);
    if (pe === undefined) continue;
    const g = m.get(pe);
    if (g) g.push(item);
    else m.set(pe, [item]);
    if (!seen.has(pe)) {
      seen.add(pe);
      order.push(pe);
    }
  }
  return m;
}

function cmpList(l: unknown[], r: unknown[], list: ListType, w: Walk, c: Comparison): void {
  const order: string[] = [];
  const seen = new Set<string>();
  const lv = group(l, list, w, order, seen);
  const rv = group(r, list, w, order, seen);
  for (const pe of order) {
    const ll = lv.get(pe) ?? [];
    const rl = rv.get(pe) ?? [];
    w.path.push(pe);
    if (ll.length <= 1 && rl.length <= 1) cmp(ll[0], rl[0], list.elem, w, c);
    else if (ll.length >= 2 && rl.length >= 2) {
      if (!deepEqual(ll, rl)) insertPath(c.modified, w.path);
    } else if (ll.length >= 2) {
      if (rl.length > 0) cmp(undefined, rl[0], list.elem, w, c);
      insertPath(c.removed, w.path);
    } else {
      if (ll.length > 0) cmp(ll[0], undefined, list.elem, w, c);
      insertPath(c.added, w.path);
    }
    w.path.pop();
  }
}

// ---------------------------------------------------------------------------------------------
// Remove

/**
 * A copy of v without the fields in toRemove (removingWalker). A map emptied by the removal
 * becomes null when `keepNulls` is set, as in structured-merge-diff, where the null still counts
 * as a present (leaf) field for the set arithmetic of prune; otherwise the emptied field is
 * dropped, as the typed round trip of the apiserver drops it. Undefined when nothing is left.
 */
export function removeItems(v: unknown, toRemove: FieldSet, atom: Atom, keepNulls = false): unknown {
  if (toRemove.size === 0) return v;
  const kind = kindOf(atom, v);
  if (kind === undefined || kind === 'scalar') return v;
  const w: Walk = { path: [], strict: false };
  if (kind === 'list') {
    const list = atom.list as ListType;
    if (!Array.isArray(v) || v.length === 0 || list.kind === 'atomic') return undefined;
    const out: unknown[] = [];
    for (const item of v) {
      const pe = itemPE(list, item, w);
      const node = pe === undefined ? undefined : toRemove.get(pe);
      if (node?.member) continue;
      const kept = node?.children ? removeItems(item, node.children, list.elem, keepNulls) : item;
      if (kept !== undefined && kept !== null) out.push(kept);
    }
    return out.length > 0 ? out : undefined;
  }
  if (!isObj(v) || atom.map?.atomic) return undefined;
  const out: Obj = {};
  let any = false;
  for (const key in v) {
    const val = v[key];
    if (val === undefined) continue;
    const node = toRemove.get(fpe(key));
    if (node?.member) continue;
    let kept: unknown = val;
    if (node?.children) {
      kept = removeItems(val, node.children, childAtom(atom, key, w).atom, keepNulls);
      if (kept === undefined && keepNulls) kept = null;
    }
    if (kept === undefined || (kept === null && !keepNulls)) continue;
    out[key] = kept;
    any = true;
  }
  return any ? out : undefined;
}

/** Adds as members the named struct fields that have members below them (prune's view). */
export function ensureNamedFieldsAreMembers(set: FieldSet, atom: Atom): FieldSet {
  const out: FieldSet = new Map();
  for (const [pe, node] of set) {
    let member = node.member;
    let child: Atom = DEDUCED;
    if (pe.startsWith('f:')) {
      const name = pe.slice(2);
      const declared = atom.map?.fields?.get(name);
      if (declared) {
        child = declared;
        if (node.children) member = true;
      } else child = atom.map?.elem ?? DEDUCED;
    } else child = atom.list?.elem ?? DEDUCED;
    const children = node.children ? ensureNamedFieldsAreMembers(node.children, child) : undefined;
    out.set(pe, { member, children });
  }
  return out;
}
