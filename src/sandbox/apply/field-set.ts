/**
 * Sets of field paths, as structured-merge-diff keeps them for each manager. A path element is
 * kept in its serialized FieldsV1 form, which is canonical: `f:<field>`, `k:{"name":"app"}` (key
 * fields sorted by name), `v:<json value>`, `i:<index>`. A set is a trie: each node says whether
 * the path itself is a member and holds its children. Sets are never mutated once built (except
 * by insertPath while a walk builds a fresh one), so operations share unchanged subtrees.
 */

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
  // Only path elements in both sets matter: walk the smaller one (b is often a few paths).
  for (const pe of (b.size < a.size ? b : a).keys()) {
    const na = a.get(pe);
    const nb = b.get(pe);
    if (!na || !nb) continue;
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
