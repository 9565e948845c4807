/** Removal of a set of fields from a value (structured-merge-diff's removing walker). */
import type { FieldSet } from './field-set.ts';
import type { Atom, ListType } from './schema.ts';
import { childAtom, fpe, isObj, itemPE, kindOf, type Obj, type Walk } from './typed.ts';

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
