/**
 * The set of fields a value sets (structured-merge-diff `ToFieldSet`): leaves, atomic lists and
 * structs, list items (the `.` of FieldsV1), empty or null maps, and keys of maps that are not
 * struct fields. Also prune's view of a set with named struct fields as members.
 */
import type { FieldSet, SetNode } from './field-set.ts';
import { type Atom, DEDUCED, type ListType } from './schema.ts';
import { childAtom, fail, fpe, isEmptyish, isObj, itemPE, resolve, type Walk } from './typed.ts';

/** The set of fields a value sets, as ToFieldSet computes it. */
export function fieldSetOf(v: unknown, atom: Atom, w: Walk): FieldSet {
  return collect(v, atom, w) ?? new Map();
}

/**
 * What a value contributes: null for a leaf (a member with nothing below), else its children
 * (undefined when none). No tuple: this runs for every node of every applied object.
 */
function collect(v: unknown, atom: Atom, w: Walk): FieldSet | undefined | null {
  const kind = resolve(atom, v, w);
  if (kind === undefined || kind === 'scalar') return null;
  if (kind === 'list') {
    const list = atom.list as ListType;
    if (list.kind === 'atomic') return null;
    if (!Array.isArray(v)) return undefined;
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
      const children = collect(v[i], list.elem, w);
      w.path.pop();
      if (children && children.size > 0) (out.get(pe) as SetNode).children = children;
    }
    return out;
  }
  const map = atom.map;
  if (map?.atomic) return null;
  if (!isObj(v)) return undefined;
  const out: FieldSet = new Map();
  for (const key in v) {
    const val = v[key];
    if (val === undefined) continue;
    const c = childAtom(atom, key, w);
    w.path.push(fpe(key));
    const result = collect(val, c.atom, w);
    const leaf = result === null;
    const children = result ?? undefined;
    w.path.pop();
    const member = leaf || !c.declared || val === null || isEmptyish(val, 'map');
    if (member || (children && children.size > 0)) {
      out.set(fpe(key), { member, children: children && children.size > 0 ? children : undefined });
    }
  }
  return out;
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
