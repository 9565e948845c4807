/**
 * The merge of an applied configuration into a live object (structured-merge-diff's merging
 * walker): scalars, atomic lists and atomic structs are replaced; maps merge key by key;
 * associative lists merge item by item, keeping the live order around the applied items.
 */
import type { Atom, ListType } from './schema.ts';
import {
  childAtom,
  copyJson,
  fail,
  fpe,
  isEmptyish,
  itemPE,
  kindOf,
  type Obj,
  resolve,
  type Walk,
} from './typed.ts';

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
