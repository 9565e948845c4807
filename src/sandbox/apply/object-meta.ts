/**
 * What every write does around the merge: managedFields taken off and put back, system metadata
 * and reset fields (status on the main resource, spec on /status) kept at their live values, the
 * kind's schema and reset fields chosen, and times in managedFields' second precision.
 */
import { ApplyError } from './errors.ts';
import { encodeManagedFields, type Managers } from './managed-fields.ts';
import { resetPaths, resetSet, restoreReset } from './reset-fields.ts';
import { type Atom, DEDUCED, rootTypeOf } from './schema.ts';
import type { KubeObject } from './types.ts';
import { isObj, type Obj } from './typed.ts';
import type { TypeContext } from './updater.ts';

/** Metadata the system owns: kept from the live object whatever a write sends. */
const SYSTEM_METADATA = [
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'generation',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
];

/** managedFields times have second precision (metav1.Time, RFC 3339). */
export function toKubeTime(now: string): string {
  if (now === lastTime[0]) return lastTime[1];
  const ms = Date.parse(now);
  if (Number.isNaN(ms)) throw new ApplyError(`invalid time ${JSON.stringify(now)}`, 500);
  const t = `${new Date(ms).toISOString().slice(0, 19)}Z`;
  lastTime = [now, t];
  return t;
}

let lastTime: [string, string] = ['', ''];

/** The schema of a kind and the reset fields of the endpoint written to. */
export function typeContext(apiVersion: string, kind: string, subresource: string | undefined): TypeContext {
  const atom: Atom = rootTypeOf(apiVersion, kind) ?? DEDUCED;
  return { atom, ignore: resetSet(kind, subresource) };
}

/** The object without metadata.managedFields (a shallow copy down to metadata). */
export function body(obj: KubeObject | Obj): Obj {
  const meta = (obj as Obj).metadata;
  if (!isObj(meta) || !('managedFields' in meta)) return obj as Obj;
  const { managedFields: _, ...rest } = meta;
  return { ...(obj as Obj), metadata: rest };
}

export function withManagedFields(obj: Obj, managers: Managers): KubeObject {
  const meta = { ...((obj.metadata as Obj | undefined) ?? {}) };
  const encoded = encodeManagedFields(managers);
  if (encoded) meta.managedFields = encoded;
  else delete meta.managedFields;
  return { ...obj, metadata: meta } as KubeObject;
}

/** Keeps system metadata and reset fields (status) at their live values. */
export function settle(obj: Obj, live: Obj | undefined, kind: string, subresource: string | undefined): Obj {
  const meta = { ...((obj.metadata as Obj | undefined) ?? {}) };
  if (live) {
    const liveMeta = (live.metadata as Obj | undefined) ?? {};
    for (const k of SYSTEM_METADATA) {
      if (liveMeta[k] === undefined) delete meta[k];
      else meta[k] = liveMeta[k];
    }
  }
  const out: Obj = { ...obj, metadata: meta };
  const paths = resetPaths(kind, subresource);
  if (paths.length > 0) {
    if (live) restoreReset(out, live, paths);
    else if (subresource === undefined) delete out.status;
  }
  return out;
}
