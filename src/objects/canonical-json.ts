/**
 * Canonical JSON: object keys sorted at every level, so equal data gives equal text. Hashes of
 * desired objects (kube/) and digests of control-plane records (agent/) are taken over it.
 */

/**
 * JSON with object keys sorted at every level, so equal objects hash equally. Same text as
 * `JSON.stringify` with sorted keys (undefined members dropped, undefined array items as null).
 * It runs for every deployment on every poll and every object on every resync, so it is a copy
 * with sorted keys serialized natively (a quarter faster than building the string by hand).
 */
export function canonicalJson(value: unknown): string {
  const copy = sortedCopy(value);
  return copy === undefined ? builtCanonicalJson(value) : (JSON.stringify(copy) ?? 'null');
}

/** canonicalJson built by hand, for what sortedCopy cannot hold. */
export function builtCanonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let s = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) s += ',';
      const v: unknown = value[i];
      s += v === undefined ? 'null' : builtCanonicalJson(v);
    }
    return `${s}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = sortedKeys(record);
  let s = '{';
  let first = true;
  for (const k of keys) {
    const v = record[k];
    if (v === undefined) continue;
    if (!first) s += ',';
    first = false;
    s += `${JSON.stringify(k)}:${builtCanonicalJson(v)}`;
  }
  return `${s}}`;
}

/**
 * The keys of `record` in sorted order (as `Object.keys(record).sort()`). Objects have a few keys,
 * often in order already; `Array.prototype.sort` allocated a work array for each, which made it most
 * of a cold start's garbage, so the keys are sorted in place by insertion instead.
 */
export function sortedKeys(record: object): string[] {
  const keys = Object.keys(record);
  if (keys.length > 64) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > k) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = k;
  }
  return keys;
}

/** A key that JavaScript orders before all others, whatever the order it was added in. */
const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;
const isArrayIndex = (k: string) => {
  // Most keys start with a letter: the test of the first character spares them the expression.
  const first = k.charCodeAt(0);
  return first >= 48 && first <= 57 && ARRAY_INDEX.test(k) && Number(k) < 4294967295;
};

/**
 * A plain copy of `value` whose objects hold their keys in sorted order, so that `JSON.stringify`
 * of it is `canonicalJson(value)`; undefined when it cannot be (a key such as "0" is always
 * enumerated first by JavaScript, whatever the order; "__proto__" is no ordinary key).
 */
export function sortedCopy(value: unknown): unknown {
  if (value === null) return null;
  if (typeof value !== 'object') {
    // What canonicalJson writes for a value JSON has no text for (a function, say): null.
    return typeof value === 'function' || typeof value === 'symbol' ? null : value;
  }
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const c = v === undefined ? null : sortedCopy(v);
      if (c === undefined) return undefined;
      out[i] = c;
    }
    return out;
  }
  const record = value as Record<string, unknown>;
  const keys = sortedKeys(record);
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = record[k];
    if (v === undefined) continue;
    // "__proto__" would set the copy's prototype, not a key.
    if (isArrayIndex(k) || k === '__proto__') return undefined;
    const c = sortedCopy(v);
    if (c === undefined) return undefined;
    out[k] = c;
  }
  return out;
}
