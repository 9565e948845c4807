/**
 * What changed between two objects as three sets of paths (structured-merge-diff `Compare`):
 * added, modified and removed. A changed atomic value is one modified path; an added or removed
 * map or list item counts with everything under it.
 */
import { type FieldSet, insertPath } from './field-set.ts';
import type { Atom, ListType } from './schema.ts';
import { childAtom, deepEqual, fpe, isEmptyish, isObj, itemPE, kindOf, type Walk } from './typed.ts';

/** What changed from lhs to rhs, as three sets of paths (typed.Comparison). */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

export function compareValues(lhs: unknown, rhs: unknown, atom: Atom): Comparison {
  const c: Comparison = { added: new Map(), modified: new Map(), removed: new Map() };
  cmp(lhs, rhs, atom, { path: [], strict: false }, c);
  return c;
}

function cmp(l: unknown, r: unknown, atom: Atom, w: Walk, c: Comparison): void {
  // The same value on both sides (writes share unchanged subtrees with live): nothing changed.
  if (l === r && l !== undefined) return;
  const kr = r === undefined ? undefined : kindOf(atom, r);
  const kl = l === undefined ? undefined : kindOf(atom, l);
  const kind = r === undefined ? kl : kr;
  if (kind === undefined || kind === 'scalar' || (kl !== undefined && kr !== undefined && kl !== kr)) {
    leaf(l, r, w, c);
    return;
  }
  if (kind === 'list') {
    const list = atom.list as ListType;
    if (list.kind === 'atomic' || (isEmptyish(l, 'list') && isEmptyish(r, 'list'))) {
      leaf(l, r, w, c);
      return;
    }
    cmpList(Array.isArray(l) ? l : [], Array.isArray(r) ? r : [], list, w, c);
  } else {
    if (atom.map?.atomic || (isEmptyish(l, 'map') && isEmptyish(r, 'map'))) {
      leaf(l, r, w, c);
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

/** A value compared whole (a scalar, an atomic value, or one whose kind changed). */
function leaf(l: unknown, r: unknown, w: Walk, c: Comparison): void {
  if (l === undefined) insertPath(c.added, w.path);
  else if (r === undefined) insertPath(c.removed, w.path);
  else if (!deepEqual(l, r)) insertPath(c.modified, w.path);
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
