/**
 * The apiserver's bridge between kubectl client-side apply and server-side apply, for the field
 * manager `kubectl` only (lastAppliedManager and lastAppliedUpdater): conflicts on fields whose
 * live value still matches the `kubectl.kubernetes.io/last-applied-configuration` annotation are
 * tolerated, and an object carrying that annotation gets it rewritten to the new configuration,
 * so that switching between the two kinds of apply does not fight.
 */
import { compareValues } from './compare.ts';
import { type FieldSet, difference, union } from './field-set.ts';
import { goJson } from './field-set.ts';
import type { Atom } from './schema.ts';
import { fieldSetOf } from './to-field-set.ts';
import { isObj, type Obj } from './typed.ts';

export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** The field manager the bridge applies to (kubectl's default for server-side apply). */
export const KUBECTL = 'kubectl';

function annotationOf(obj: Obj): string | undefined {
  const annotations = (obj.metadata as Obj | undefined)?.annotations;
  const v = isObj(annotations) ? annotations[LAST_APPLIED] : undefined;
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/**
 * Fields of the last-applied configuration whose live value it still matches: conflicts on them
 * are allowed. Undefined when the object has no usable annotation.
 */
export function allowedByLastApplied(live: Obj, apiVersion: string, atom: Atom): FieldSet | undefined {
  const text = annotationOf(live);
  if (text === undefined) return undefined;
  let last: unknown;
  try {
    last = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObj(last) || last.apiVersion !== apiVersion) return undefined;
  try {
    const set = fieldSetOf(last, atom, { path: [], strict: true });
    const c = compareValues(last, live, atom);
    return difference(set, union(union(c.modified, c.added), c.removed));
  } catch {
    return undefined;
  }
}

/** JSON as Go encodes an unstructured object: keys sorted, HTML-safe, newline-terminated. */
function encodeSorted(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(encodeSorted).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v as Obj)
      .filter((k) => (v as Obj)[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${goJson(k)}:${encodeSorted((v as Obj)[k])}`).join(',')}}`;
  }
  return goJson(v);
}

/**
 * When the object carries the annotation, sets it to the applied configuration (without the
 * annotation itself), as lastAppliedUpdater does after a successful apply by `kubectl`.
 * Mutates obj, a fresh copy the caller owns.
 */
export function refreshLastApplied(obj: Obj, applied: Obj): void {
  if (annotationOf(obj) === undefined) return;
  const meta = (applied.metadata as Obj | undefined) ?? {};
  const annotations = { ...((isObj(meta.annotations) ? meta.annotations : {}) as Obj) };
  delete annotations[LAST_APPLIED];
  const config: Obj = { ...applied, metadata: { ...meta, annotations } };
  if (Object.keys(annotations).length === 0) delete (config.metadata as Obj).annotations;
  const objMeta = { ...(obj.metadata as Obj) };
  objMeta.annotations = { ...(objMeta.annotations as Obj), [LAST_APPLIED]: `${encodeSorted(config)}\n` };
  obj.metadata = objMeta;
}
