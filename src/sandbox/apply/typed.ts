/**
 * What the schema-aware walks over plain JSON objects share (after structured-merge-diff's
 * `typed` package): which alternative of a schema node a value takes, schema violations as
 * ApplyError with the field path, list item path elements, and plain JSON copy and equality.
 * The walks themselves are to-field-set.ts, merge.ts, compare.ts and remove.ts; none mutates its
 * inputs.
 */
import { ApplyError } from './errors.ts';
import { keyPE, valuePE } from './field-set.ts';
import { type Atom, DEDUCED, type ListType } from './schema.ts';

export type Obj = Record<string, unknown>;
export type Kind = 'scalar' | 'list' | 'map';

export function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function isEmptyish(v: unknown, kind: Kind): boolean {
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
export function kindOf(atom: Atom, v: unknown): Kind | undefined {
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

export function fail(w: Walk, message: string): never {
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
export function resolve(atom: Atom, v: unknown, w: Walk): Kind | undefined {
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
export function fpe(name: string): string {
  let pe = FIELD_PES.get(name);
  if (pe === undefined) {
    pe = `f:${name}`;
    if (FIELD_PES.size < 20_000) FIELD_PES.set(name, pe);
  }
  return pe;
}

export function childAtom(atom: Atom, key: string, w: Walk): { atom: Atom; declared: boolean } {
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
