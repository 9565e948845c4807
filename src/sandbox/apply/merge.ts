/**
 * The merge of an applied configuration into a live object (structured-merge-diff's merging
 * walker): scalars, atomic lists and atomic structs are replaced; maps merge key by key;
 * associative lists merge item by item, keeping the live order around the applied items.
 */
import type { Atom, ListType } from './schema.ts';
import {
  childAtom,
  copyJson,
  deepEqual,
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

/**
 * Whether merging rhs into lhs would give lhs back unchanged, computed without building the
 * merge: every applied value is already there, and applied list items sit in the live list in the
 * same relative order. Lets a no-op re-apply skip the merge; false whenever unsure.
 */
export function mergeIsNoop(lhs: unknown, rhs: unknown, atom: Atom): boolean {
  if (rhs === undefined) return true;
  if (rhs === null || lhs === undefined || lhs === null) return false;
  const kr = kindOf(atom, rhs);
  if (kr === undefined || kr !== kindOf(atom, lhs)) return false;
  if (kr === 'scalar') return lhs === rhs;
  if (kr === 'list') {
    const list = atom.list as ListType;
    const l = lhs as unknown[];
    const r = rhs as unknown[];
    if (list.kind === 'atomic' || (l.length === 0 && r.length === 0)) return deepEqual(lhs, rhs);
    return listIsNoop(l, r, list);
  }
  if (atom.map?.atomic) return deepEqual(lhs, rhs);
  const l = lhs as Obj;
  const r = rhs as Obj;
  let empty = true;
  for (const key in r) {
    empty = false;
    const fieldAtom = atom.map?.fields?.get(key) ?? atom.map?.elem;
    if (!fieldAtom || !mergeIsNoop(l[key], r[key], fieldAtom)) return false;
  }
  // An empty applied map over an absent or empty live one is written as {}.
  return !empty || !isEmptyish(lhs, 'map') || deepEqual(lhs, rhs);
}

function listIsNoop(l: unknown[], r: unknown[], list: ListType): boolean {
  const lenient: Walk = { path: [], strict: false };
  const livePEs = l.map((item) => itemPE(list, item, lenient));
  const seen = new Set<string>();
  for (const pe of livePEs) {
    // Duplicated live keys are never merged in place: leave those to the full merge.
    if (pe === undefined || seen.has(pe)) return false;
    seen.add(pe);
  }
  let from = 0;
  for (const item of r) {
    const pe = itemPE(list, item, lenient);
    if (pe === undefined) return false;
    const at = livePEs.indexOf(pe, from);
    if (at < 0 || !mergeIsNoop(l[at], item, list.elem)) return false;
    from = at + 1;
  }
  return true;
}
