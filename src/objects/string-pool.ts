/**
 * One pool of short strings and frozen values per listing or poll: JSON.parse makes a new string
 * for every value, and listed objects and deployment records repeat the same ones thousands of
 * times. Shared by the Kubernetes listings (kube/compact-live.ts) and the poller's records.
 */

/** Strings up to this length are shared through the pool; longer ones are rarely repeated. */
export const SHARED_MAX_LENGTH = 64;

/**
 * What the entries of one listing share: short strings, and (slim entries) frozen values that
 * repeat from object to object, such as the ownership labels every object of a deployment carries
 * and the conditions of healthy workloads: at 10,000 deployments, a large part of the heap
 * (bench/README.md, "Measured decisions").
 */
export class ListingPool {
  readonly strings = new Map<string, string>();
  readonly frozen = new Map<string, object>();

  /** The pool's frozen copy of a value known by `key` (made by `make` the first time). */
  intern<T extends object>(key: string, make: () => T): Readonly<T> {
    let value = this.frozen.get(key) as T | undefined;
    if (value === undefined) {
      value = Object.freeze(make());
      this.frozen.set(key, value);
    }
    return value;
  }
}

/** The pool's copy of `text` (which becomes the copy when the pool has none). */
export function shared(text: string, pool: ListingPool): string {
  const copy = pool.strings.get(text);
  if (copy !== undefined) return copy;
  pool.strings.set(text, text);
  return text;
}

/**
 * Replaces short strings in `value` (in place) by the pool's copy of the same text; returns how
 * many it replaced (a string the pool already held, now held once).
 */
export function shareStrings(value: unknown, pool: ListingPool): number {
  if (value === null || typeof value !== 'object') return 0;
  let replaced = 0;
  // Indexes and for-in rather than an iterator or a list of keys per object: every record of a
  // poll and every listed object is walked, and those were most of the walk's garbage.
  if (Array.isArray(value)) {
    const list = value as unknown[] as Record<number, unknown>;
    for (let i = 0; i < value.length; i++) replaced += shareMember(list, i, pool);
    return replaced;
  }
  const container = value as Record<string, unknown>;
  for (const key in container) {
    if (Object.hasOwn(container, key)) replaced += shareMember(container, key, pool);
  }
  return replaced;
}

/** `shareStrings` of one member of `container`: 1 when its string was replaced by the pool's. */
function shareMember(
  container: Record<string | number, unknown>,
  key: string | number,
  pool: ListingPool,
): number {
  const v = container[key];
  if (typeof v === 'string') {
    if (v.length > SHARED_MAX_LENGTH) return 0;
    const known = pool.strings.get(v);
    if (known === undefined) {
      pool.strings.set(v, v);
      return 0;
    }
    container[key] = known;
    return 1;
  }
  return v !== null && typeof v === 'object' ? shareStrings(v, pool) : 0;
}
