/**
 * The no-op check's second half: does the live object still hold every field we apply, with our
 * value? A subset comparison, robust to what the server adds (defaults, status, fields other
 * managers own): extra live fields are ignored, keyed lists are matched by key, and quantity
 * fields are compared by value ("0.5" equals "500m").
 */

import { sameQuantity } from '../quantity.ts';

const LIST_KEYS = ['name', 'containerPort', 'port', 'mountPath', 'devicePath', 'ip'];

function scalarEqual(d: unknown, l: unknown, quantity: boolean): boolean {
  if (d === l) return true;
  if (d === null && l === undefined) return true;
  return quantity && sameQuantity(d, l);
}

/**
 * Fields the server canonicalizes as quantities ("0.5" comes back as "500m"): container and claim
 * resources, emptyDir size limits, HPA metric targets. Only there is the value compared rather
 * than the text; anywhere else ("1.10" in an env value or a label) a different text is drift.
 * `a`, `b`, `c` are the last three keys on the way to the field, `c` its own.
 */
function isQuantityField(a: string | undefined, b: string | undefined, c: string | undefined): boolean {
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
  const drift = driftAt(desired, live, undefined, undefined, undefined);
  return drift === undefined ? undefined : drift || '.';
}

/**
 * Where below this point `live` does not hold `desired`, as a path relative to it ('' for here);
 * undefined when it does. It runs for every field of every object an apply or a cold start
 * compares, so the path is only built on the way out of a drift, and only the last three keys
 * (`a`, `b`, `c`; list items as `[]`) are carried down for `isQuantityField`.
 */
function driftAt(
  desired: unknown,
  live: unknown,
  a: string | undefined,
  b: string | undefined,
  c: string | undefined,
): string | undefined {
  if (desired === undefined) return undefined;
  // The API server omits zero values of `omitempty` fields (false, 0, "", {}, []): absent is equal.
  if ((live === undefined || live === null) && isZeroValue(desired)) return undefined;
  if (Array.isArray(desired)) {
    if (!Array.isArray(live)) return '';
    const key = listKey(desired);
    if (key) {
      for (const d of desired as Record<string, unknown>[]) {
        const match = live.find((l) => isObject(l) && scalarEqual(d[key], l[key], false));
        if (match === undefined) return `[${key}=${String(d[key])}]`;
        const drift = driftAt(d, match, b, c, '[]');
        if (drift !== undefined) return `[${key}=${String(d[key])}]${drift}`;
      }
      return undefined;
    }
    if (desired.length !== live.length) return '';
    for (let i = 0; i < desired.length; i++) {
      const drift = driftAt(desired[i], live[i], b, c, '[]');
      if (drift !== undefined) return `[${i}]${drift}`;
    }
    return undefined;
  }
  if (isObject(desired)) {
    if (!isObject(live)) return '';
    for (const k of Object.keys(desired)) {
      const drift = driftAt(desired[k], live[k], b, c, k);
      if (drift !== undefined) return `.${k}${drift}`;
    }
    return undefined;
  }
  if (desired === live) return undefined;
  return isQuantityField(a, b, c) && sameQuantity(desired, live) ? undefined : '';
}
