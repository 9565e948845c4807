/** Structural equality of JSON values, ignoring object key order (cheap no-op detection). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let count = 0;
  for (const key in x) {
    if (x[key] === undefined) continue;
    count++;
    if (!jsonEqual(x[key], y[key])) return false;
  }
  for (const key in y) if (y[key] !== undefined) count--;
  return count === 0;
}

/**
 * A deep copy of a JSON value (every key kept, null and undefined included). A plain walk: several
 * times cheaper than `structuredClone`, which serializes, for the sandbox's JSON-only objects.
 */
export function clone<T>(value: T): T {
  return copy(value) as T;
}

function copy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i]);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key in value as Record<string, unknown>)
    out[key] = copy((value as Record<string, unknown>)[key]);
  return out;
}
