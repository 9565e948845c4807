/**
 * Reading free-form members of a ResourceSpec (securityContext, volume sources, pod templates)
 * without trusting their shape: a member of anything but a plain object is absent.
 */

export type Obj = Record<string, unknown>;

/** A plain object: not null, not an array. */
export function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `o[key]` when `o` is a plain object, else undefined. */
export function member(o: unknown, key: string): unknown {
  return isObj(o) ? o[key] : undefined;
}
