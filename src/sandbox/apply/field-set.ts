/**
 * Sets of field paths, as structured-merge-diff keeps them for each manager, and their FieldsV1
 * encoding. A path element is kept in its serialized FieldsV1 form, which is canonical:
 * `f:<field>`, `k:{"name":"app"}` (key fields sorted by name), `v:<json value>`, `i:<index>`.
 * A set is a trie: each node says whether the path itself is a member and holds its children.
 */
import { ApplyError } from './errors.ts';

export interface SetNode {
  member: boolean;
  children: FieldSet | undefined;
}

/** A set of paths: path element -> node. Empty nodes are never stored. */
export type FieldSet = Map<string, SetNode>;

const PLAIN = /^[\w .:/@+=,~-]*$/;

/** JSON as Go's encoder writes it (HTML-safe escapes), for key and value path elements. */
export function goJson(v: unknown): string {
  if (typeof v === 'string' && PLAIN.test(v)) return `"${v}"`;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  const s = JSON.stringify(v);
  return /[<>&\u2028\u2029]/.test(s)
    ? s.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : s;
}

export function fieldPE(name: string): string {
  return `f:${name}`;
}

/** A key path element from key names (already sorted) and their values. */
export function keyPE(names: readonly string[], values: readonly unknown[]): string {
  let s = 'k:{';
  for (let i = 0; i < names.length; i++) {
    if (i > 0) s += ',';
    s += `${goJson(names[i])}:${goJson(values[i])}`;
  }
  return `${s}}`;
}

export function valuePE(v: unknown): string {
  return `v:${goJson(v)}`;
}

export function newSet(): FieldSet {
  return new Map();
}

/** Adds one path (a list of path elements). */
export function insertPath(set: FieldSet, path: readonly string[]): void {
  let cur = set;
  for (let i = 0; i < path.length; i++) {
    const pe = path[i] as string;
    let node = cur.get(pe);
    if (!node) {
      node = { member: false, children: undefined };
      cur.set(pe, node);
    }
    if (i === path.length - 1) {
      node.member = true;
    } else {
      if (!node.children) node.children = new Map();
      cur = node.children;
    }
  }
}

export function hasPath(set: FieldSet, path: readonly string[]): boolean {
  let cur: FieldSet | undefined = set;
  for (let i = 0; i < path.length; i++) {
    const node: SetNode | undefined = cur?.get(path[i] as string);
    if (!node) return false;
    if (i === path.length - 1) return node.member;
    cur = node.children;
  }
  return false;
}

function nonEmpty(s: FieldSet | undefined): FieldSet | undefined {
  return s && s.size > 0 ? s : undefined;
}

export function union(a: FieldSet | undefined, b: FieldSet | undefined): FieldSet {
  if (!a || a.size === 0) return b ? b : new Map();
  if (!b || b.size === 0) return a;
  const out: FieldSet = new Map(a);
  for (const [pe, nb] of b) {
    const na = out.get(pe);
    if (!na) out.set(pe, nb);
    else {
      const children = nonEmpty(union(na.children, nb.children));
      out.set(pe, { member: na.member || nb.member, children });
    }
  }
  return out;
}

/**
 * Paths of a that are not members of b (membership-wise, as fieldpath.Set.Difference). Returns a
 * itself when nothing is removed, so unchanged sets keep their identity (and cached encoding).
 */
export function difference(a: FieldSet, b: FieldSet | undefined): FieldSet {
  if (!b || b.size === 0 || a.size === 0) return a;
  let out: FieldSet | undefined;
  for (const [pe, na] of a) {
    const nb = b.get(pe);
    if (!nb) continue;
    const member = na.member && !nb.member;
    const children = na.children ? difference(na.children, nb.children) : undefined;
    if (member === na.member && children === na.children) continue;
    out ??= new Map(a);
    const kept = nonEmpty(children);
    if (member || kept) out.set(pe, { member, children: kept });
    else out.delete(pe);
  }
  return out ?? a;
}

/** Whether every member of a is a member of b. */
export function isSubset(a: FieldSet, b: FieldSet | undefined): boolean {
  for (const [pe, na] of a) {
    const nb = b?.get(pe);
    if (!nb) return false;
    if (na.member && !nb.member) return false;
    if (na.children && !isSubset(na.children, nb.children)) return false;
  }
  return true;
}

export function intersection(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = new Map();
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const [pe, ns] of small) {
    const nl = large.get(pe);
    if (!nl) continue;
    const member = ns.member && nl.member;
    const children =
      ns.children && nl.children ? nonEmpty(intersection(ns.children, nl.children)) : undefined;
    if (member || children) out.set(pe, { member, children });
  }
  return out;
}

/** Removes from a every path that is a member of b or lies under one (RecursiveDifference). */
export function recursiveDifference(a: FieldSet, b: FieldSet | undefined): FieldSet {
  if (!b || b.size === 0) return a;
  const out: FieldSet = new Map();
  for (const [pe, na] of a) {
    const nb = b.get(pe);
    if (!nb) out.set(pe, na);
    else if (!nb.member) {
      const children = na.children ? nonEmpty(recursiveDifference(na.children, nb.children)) : undefined;
      if (na.member || children) out.set(pe, { member: na.member, children });
    }
  }
  return out;
}

export function isEmpty(s: FieldSet | undefined): boolean {
  return !s || s.size === 0;
}

export function setsEqual(a: FieldSet | undefined, b: FieldSet | undefined): boolean {
  const sa = a?.size ?? 0;
  if (sa !== (b?.size ?? 0)) return false;
  if (sa === 0) return true;
  for (const [pe, na] of a as FieldSet) {
    const nb = (b as FieldSet).get(pe);
    if (!nb || nb.member !== na.member || !setsEqual(na.children, nb.children)) return false;
  }
  return true;
}

const KIND_ORDER: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function typeRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === 'object') return 4;
  return 5;
}

function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (ra === 0) return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  if (ra === 1) return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
  if (ra === 2) return a === b ? 0 : a ? 1 : -1;
  const sa = JSON.stringify(a);
  const sb = JSON.stringify(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

const parsedPE = new Map<string, unknown>();

/** The value of a `v:` element, or the [name, value] pairs of a `k:` element (cached). */
function parsed(pe: string): unknown {
  let p = parsedPE.get(pe);
  if (p === undefined) {
    const v = JSON.parse(pe.slice(2)) as unknown;
    p = pe[0] === 'k' ? Object.entries(v as Record<string, unknown>) : v;
    if (parsedPE.size > 50_000) parsedPE.clear();
    parsedPE.set(pe, p);
  }
  return p;
}

/** The order structured-merge-diff gives path elements (fields, then keys, values, indexes). */
export function comparePE(a: string, b: string): number {
  const ka = KIND_ORDER[a[0] as string] ?? 4;
  const kb = KIND_ORDER[b[0] as string] ?? 4;
  if (ka !== kb) return ka < kb ? -1 : 1;
  if (ka === 0) {
    const na = a.slice(2);
    const nb = b.slice(2);
    return na < nb ? -1 : na > nb ? 1 : 0;
  }
  if (ka === 3) return Number(a.slice(2)) - Number(b.slice(2));
  if (ka === 2) return compareValues(parsed(a), parsed(b));
  const fa = parsed(a) as [string, unknown][];
  const fb = parsed(b) as [string, unknown][];
  for (let i = 0; ; i++) {
    const ea = fa[i];
    const eb = fb[i];
    if (!ea && !eb) return 0;
    if (!ea) return -1;
    if (!eb) return 1;
    if (ea[0] !== eb[0]) return ea[0] < eb[0] ? -1 : 1;
    const c = compareValues(ea[1], eb[1]);
    if (c !== 0) return c;
  }
}

function sortedEntries(set: FieldSet): [string, SetNode][] {
  const entries = [...set];
  if (entries.length < 2) return entries;
  // Field names only: plain string order is the path element order.
  let fieldsOnly = true;
  for (const [pe] of entries) {
    if (pe.charCodeAt(0) !== 102 /* f */) {
      fieldsOnly = false;
      break;
    }
  }
  if (fieldsOnly) entries.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  else entries.sort((x, y) => comparePE(x[0], y[0]));
  return entries;
}

// Encodings of sets already encoded: sets are never mutated once built, so an unchanged
// manager's set encodes to the same (shared, read-only) FieldsV1 object.
const encoded = new WeakMap<FieldSet, Record<string, unknown>>();
const decoded = new WeakMap<object, FieldSet>();

/** Encodes a set as FieldsV1 JSON (object keys in the apiserver's order). Treat as read-only. */
export function toFieldsV1(set: FieldSet): Record<string, unknown> {
  const cached = encoded.get(set);
  if (cached) return cached;
  const out = encode(set);
  encoded.set(set, out);
  decoded.set(out, set);
  return out;
}

function encode(set: FieldSet): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [pe, node] of sortedEntries(set)) {
    if (!node.children || node.children.size === 0) {
      out[pe] = {};
    } else {
      const inner = encode(node.children);
      out[pe] = node.member ? { '.': {}, ...inner } : inner;
    }
  }
  return out;
}

const canonical = new Map<string, string>();

function canonicalPE(raw: string): string {
  if (raw.charCodeAt(0) === 102 /* f */ && raw.charCodeAt(1) === 58 /* : */) return raw;
  let c = canonical.get(raw);
  if (c === undefined) {
    c = canonicalize(raw);
    if (canonical.size > 50_000) canonical.clear();
    canonical.set(raw, c);
  }
  return c;
}

function canonicalize(raw: string): string {
  const kind = raw[0];
  if (raw[1] !== ':' || kind === undefined || !(kind in KIND_ORDER)) {
    throw new ApplyError(`invalid path element ${JSON.stringify(raw)} in managedFields`, 500);
  }
  if (kind === 'k') {
    const fields = JSON.parse(raw.slice(2)) as Record<string, unknown>;
    const names = Object.keys(fields).sort();
    return keyPE(
      names,
      names.map((n) => fields[n]),
    );
  }
  if (kind === 'v') return valuePE(JSON.parse(raw.slice(2)));
  return raw;
}

/** Decodes FieldsV1 JSON into a set; throws ApplyError when it is malformed. */
export function fromFieldsV1(fields: unknown): FieldSet {
  if (fields !== null && typeof fields === 'object') {
    const cached = decoded.get(fields);
    if (cached) return cached;
  }
  const out = decode(fields);
  decoded.set(fields as object, out);
  return out;
}

function decode(fields: unknown): FieldSet {
  const out: FieldSet = new Map();
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) {
    throw new ApplyError('managedFields fieldsV1 must be an object', 500);
  }
  for (const [raw, inner] of Object.entries(fields as Record<string, unknown>)) {
    if (raw === '.') continue;
    const pe = canonicalPE(raw);
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) {
      throw new ApplyError('managedFields fieldsV1 entries must be objects', 500);
    }
    const keys = Object.keys(inner);
    const member = keys.length === 0 || '.' in inner;
    const children = nonEmpty(decode(inner));
    if (member || children) out.set(pe, { member, children });
  }
  return out;
}

function peString(pe: string): string {
  switch (pe[0]) {
    case 'f':
      return `.${pe.slice(2)}`;
    case 'k': {
      const fields = JSON.parse(pe.slice(2)) as Record<string, unknown>;
      return `[${Object.entries(fields)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? JSON.stringify(v) : String(v)}`)
        .join(',')}]`;
    }
    case 'v': {
      const v = JSON.parse(pe.slice(2)) as unknown;
      return `[=${typeof v === 'string' ? JSON.stringify(v) : String(v)}]`;
    }
    default:
      return `[${pe.slice(2)}]`;
  }
}

/** A path in the apiserver's notation: `.spec.template.spec.containers[name="app"].image`. */
export function pathString(path: readonly string[]): string {
  return path.map(peString).join('');
}

/** Calls f with each member path: members of a level first, then deeper levels, all sorted. */
export function iteratePaths(set: FieldSet, f: (path: string[]) => void, prefix: string[] = []): void {
  const entries = sortedEntries(set);
  for (const [pe, node] of entries) if (node.member) f([...prefix, pe]);
  for (const [pe, node] of entries) if (node.children) iteratePaths(node.children, f, [...prefix, pe]);
}
