/**
 * The no-op check's second half: does the live object still hold every field we apply, with our
 * value? A subset comparison, robust to what the server adds (defaults, status, fields other
 * managers own): extra live fields are ignored, keyed lists are matched by key, quantities are
 * compared by value ("0.5" equals "500m").
 */

const LIST_KEYS = ['name', 'containerPort', 'port', 'mountPath', 'devicePath', 'ip'];

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+)?$/;
const FACTORS: Record<string, number> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The numeric value of a Kubernetes quantity ("500m", "1Gi", 2), or undefined. */
export function quantityValue(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return undefined;
  const m = QUANTITY.exec(v.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const suffix = m[2] ?? '';
  if (/^[eE]/.test(suffix)) return n * 10 ** Number(suffix.slice(1));
  const f = FACTORS[suffix];
  return f === undefined ? undefined : n * f;
}

function scalarEqual(d: unknown, l: unknown): boolean {
  if (d === l) return true;
  if (d === null && l === undefined) return true;
  if (typeof d === 'string' && typeof l === 'string' && !/\d/.test(d)) return false;
  const a = quantityValue(d);
  const b = quantityValue(l);
  return a !== undefined && b !== undefined && Math.abs(a - b) <= Math.abs(a) * 1e-9;
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
export function findDrift(desired: unknown, live: unknown, path = ''): string | undefined {
  if (desired === undefined) return undefined;
  // The API server omits zero values of `omitempty` fields (false, 0, "", {}, []): absent is equal.
  if ((live === undefined || live === null) && isZeroValue(desired)) return undefined;
  if (Array.isArray(desired)) {
    if (!Array.isArray(live)) return path || '.';
    const key = listKey(desired);
    if (key) {
      for (const d of desired as Record<string, unknown>[]) {
        const match = live.find((l) => isObject(l) && scalarEqual(d[key], l[key]));
        const p = `${path}[${key}=${String(d[key])}]`;
        if (match === undefined) return p;
        const drift = findDrift(d, match, p);
        if (drift) return drift;
      }
      return undefined;
    }
    if (desired.length !== live.length) return path || '.';
    for (let i = 0; i < desired.length; i++) {
      const drift = findDrift(desired[i], live[i], `${path}[${i}]`);
      if (drift) return drift;
    }
    return undefined;
  }
  if (isObject(desired)) {
    if (!isObject(live)) return path || '.';
    for (const [k, v] of Object.entries(desired)) {
      const drift = findDrift(v, live[k], `${path}.${k}`);
      if (drift) return drift;
    }
    return undefined;
  }
  return scalarEqual(desired, live) ? undefined : path || '.';
}
