/**
 * The no-op check's second half: does the live object still hold every field we apply, with our
 * value? A subset comparison, robust to what the server adds (defaults, status, fields other
 * managers own): extra live fields are ignored, keyed lists are matched by key, and quantity
 * fields are compared by value ("0.5" equals "500m").
 */

import { sameQuantity } from '../quantity.ts';

const LIST_KEYS = ['name', 'containerPort', 'port', 'mountPath', 'devicePath', 'ip'];

function scalarEqual(d: unknown, l: unknown, keys: readonly string[]): boolean {
  if (d === l) return true;
  if (d === null && l === undefined) return true;
  return isQuantityField(keys) && sameQuantity(d, l);
}

/**
 * Fields the server canonicalizes as quantities ("0.5" comes back as "500m"): container and claim
 * resources, emptyDir size limits, HPA metric targets. Only there is the value compared rather
 * than the text; anywhere else ("1.10" in an env value or a label) a different text is drift.
 */
function isQuantityField(keys: readonly string[]): boolean {
  const n = keys.length;
  const [a, b, c] = [keys[n - 3], keys[n - 2], keys[n - 1]];
  if (a === 'resources' && (b === 'requests' || b === 'limits')) return true;
  if (b === 'emptyDir' && c === 'sizeLimit') return true;
  return b === 'target' && (c === 'averageValue' || c === 'value');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function isZeroValue(v: unknown): boolean {
  if (v === false || v === 0 || v === '' || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}

function listKey(items: unknown[]): string | undefined {
  if (items.length === 0 || !items.every(isObject)) return undefined;
  return LIST_KEYS.find((k) => items.every((i) => (i as Record<string, unknown>)[k] !== undefined));
}

/**
 * The first path (e.g. `.spec.template.spec.containers[name=api].image`) where `live` does not
 * hold `desired`; undefined when every desired field is present with an equal value.
 */
export function findDrift(desired: unknown, live: unknown): string | undefined {
  return driftAt(desired, live, '', []);
}

/** `findDrift` below `path`; `keys` are the object keys on the way there (list items as `[]`). */
function driftAt(desired: unknown, live: unknown, path: string, keys: readonly string[]): string | undefined {
  if (desired === undefined) return undefined;
  // The API server omits zero values of `omitempty` fields (false, 0, "", {}, []): absent is equal.
  if ((live === undefined || live === null) && isZeroValue(desired)) return undefined;
  if (Array.isArray(desired)) {
    if (!Array.isArray(live)) return path || '.';
    const key = listKey(desired);
    if (key) {
      for (const d of desired as Record<string, unknown>[]) {
        const match = live.find((l) => isObject(l) && scalarEqual(d[key], l[key], []));
        const p = `${path}[${key}=${String(d[key])}]`;
        if (match === undefined) return p;
        const drift = driftAt(d, match, p, [...keys, '[]']);
        if (drift) return drift;
      }
      return undefined;
    }
    if (desired.length !== live.length) return path || '.';
    for (let i = 0; i < desired.length; i++) {
      const drift = driftAt(desired[i], live[i], `${path}[${i}]`, [...keys, '[]']);
      if (drift) return drift;
    }
    return undefined;
  }
  if (isObject(desired)) {
    if (!isObject(live)) return path || '.';
    for (const [k, v] of Object.entries(desired)) {
      const drift = driftAt(v, live[k], `${path}.${k}`, [...keys, k]);
      if (drift) return drift;
    }
    return undefined;
  }
  return scalarEqual(desired, live, keys) ? undefined : path || '.';
}
