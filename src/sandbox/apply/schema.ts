/**
 * The typed view of an object that server-side apply works on: which parts are structs (one
 * field per key), granular maps (labels, data), atomic structs (a LabelSelector is replaced whole),
 * and which lists are atomic, sets (`x-kubernetes-list-type: set`) or maps keyed by fields
 * (`x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys`). The data comes from
 * `schema-data.ts`, generated from the schema Kubernetes itself uses.
 */
import { ROOT_TYPES, TYPES } from './schema-data.ts';

/** The compact encoding of `schema-data.ts` (see its header). */
export type RawAtom =
  | string
  | {
      s?: string;
      f?: Record<string, RawAtom>;
      e?: RawAtom;
      m?: string;
      l?: RawAtom;
      r?: string;
      k?: string[];
      kd?: Record<string, unknown>;
    };

export type ScalarType = 'string' | 'numeric' | 'boolean' | 'untyped';

/** How the items of a list are identified. */
export type ListKind = 'atomic' | 'set' | 'map';

export interface MapType {
  /** Declared struct fields; undefined for a pure map (`map[string]T`). */
  fields: Map<string, Atom> | undefined;
  /** Type of keys that are not declared fields (the map's element type). */
  elem: Atom | undefined;
  /** Atomic structs/maps are owned and replaced as a whole. */
  atomic: boolean;
}

export interface ListType {
  elem: Atom;
  kind: ListKind;
  /** Key field names of a `map` list, sorted as in the path element (`k:{...}`). */
  keys: string[];
  /** Values used for key fields an item omits (e.g. `protocol: TCP` for ports). */
  keyDefaults: Record<string, unknown>;
}

/** A resolved schema node. A deduced (untyped) node has all three alternatives. */
export interface Atom {
  scalar?: ScalarType;
  map?: MapType;
  list?: ListType;
}

const named = new Map<string, Atom>();

function compile(raw: RawAtom): Atom {
  if (typeof raw === 'string') {
    const n = named.get(raw);
    if (n) return n;
    return { scalar: raw as ScalarType };
  }
  const atom: Atom = {};
  fill(atom, raw);
  return atom;
}

function fill(atom: Atom, raw: Exclude<RawAtom, string>): void {
  if (raw.s) atom.scalar = raw.s as ScalarType;
  if (raw.f || raw.e) {
    atom.map = {
      fields: raw.f ? new Map(Object.entries(raw.f).map(([k, v]) => [k, compile(v)])) : undefined,
      elem: raw.e === undefined ? undefined : compile(raw.e),
      atomic: raw.m === 'atomic',
    };
  }
  if (raw.l !== undefined) {
    const keys = raw.k ? [...raw.k].sort() : [];
    const kind: ListKind = raw.r === 'associative' ? (keys.length > 0 ? 'map' : 'set') : 'atomic';
    atom.list = { elem: compile(raw.l), kind, keys, keyDefaults: raw.kd ?? {} };
  }
}

// Two passes so that recursive named types (the untyped deduced type) resolve to one object.
for (const name of Object.keys(TYPES)) named.set(name, {});
for (const [name, raw] of Object.entries(TYPES)) {
  const shell = named.get(name) as Atom;
  if (typeof raw === 'string') Object.assign(shell, compile(raw));
  else fill(shell, raw);
}

/** The type of anything the schema does not describe: maps are granular, lists atomic. */
export const DEDUCED: Atom = named.get('__untyped_deduced_') as Atom;

/** The root type of a served kind, or undefined when the kind is not in the schema. */
export function rootTypeOf(apiVersion: string, kind: string): Atom | undefined {
  const name = ROOT_TYPES[`${apiVersion}/${kind}`];
  return name === undefined ? undefined : named.get(name);
}

/** The `apiVersion/Kind` pairs the schema describes. */
export function servedKinds(): string[] {
  return Object.keys(ROOT_TYPES);
}

/** One row of the list table: where a non-atomic or atomic list sits and how it merges. */
export interface ListRule {
  /** Dotted path with `[]` for list items, e.g. `spec.template.spec.containers[].ports`. */
  path: string;
  kind: ListKind;
  keys: string[];
}

/**
 * Flattens the schema of a kind into its list table (every list path with its type and keys),
 * stopping at atomic structs. This is the readable form of what the engine uses.
 */
export function listTable(apiVersion: string, kind: string): ListRule[] {
  const root = rootTypeOf(apiVersion, kind);
  const rows: ListRule[] = [];
  const walk = (atom: Atom, path: string, depth: number): void => {
    if (depth > 12) return;
    if (atom.list && !atom.map) {
      rows.push({ path, kind: atom.list.kind, keys: atom.list.keys });
      if (atom.list.kind !== 'atomic') walk(atom.list.elem, `${path}[]`, depth + 1);
      return;
    }
    if (atom.map && !atom.map.atomic && atom.map.fields && !atom.scalar) {
      for (const [name, child] of atom.map.fields) walk(child, path ? `${path}.${name}` : name, depth + 1);
    }
  };
  if (root) walk(root, '', 0);
  return rows;
}
