/** Enough of resource.Quantity to compare two quantities (requests against limits). */

const BINARY: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const DECIMAL: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};
const FORM = /^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

/** The value of a quantity as a number, or undefined when it does not parse. */
export function quantityValue(q: unknown): number | undefined {
  if (typeof q === 'number') return q;
  if (typeof q !== 'string') return undefined;
  const m = FORM.exec(q.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const suffix = m[2] ?? '';
  if (suffix in BINARY) return n * (BINARY[suffix] as number);
  if (suffix in DECIMAL) return n * (DECIMAL[suffix] as number);
  return n * 10 ** Number(suffix.slice(1));
}

/** A quantity as the server prints it in a message: the stored string, numbers as written. */
export function quantityText(q: unknown): string {
  return typeof q === 'string' ? q : String(q);
}
