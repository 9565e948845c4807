/**
 * Kubernetes resource quantities (`resource.Quantity`): the one parser and formatter of the
 * repository, shared by what renders them and what compares them with live objects. Values are
 * exact (a bigint mantissa and a power of ten), and the canonical form is what an API server
 * serializes: decimal values use the largest SI suffix (n u m "" k M G T P E) whose mantissa is an
 * integer (`1500m`, `2`, `1k`); binary values (`Mi`) use the largest power of 1024 that divides
 * them (`1024Mi` is `1Gi`) and fall back to decimal below 1024, when fractional, or when no power
 * of 1024 divides them.
 */

const DECIMAL_SUFFIXES: Record<number, string> = {
  [-9]: 'n',
  [-6]: 'u',
  [-3]: 'm',
  0: '',
  3: 'k',
  6: 'M',
  9: 'G',
  12: 'T',
  15: 'P',
  18: 'E',
};
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const BINARY_EXPONENTS: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL_EXPONENTS: Record<string, number> = Object.fromEntries(
  Object.entries(DECIMAL_SUFFIXES).map(([e, s]) => [s, Number(e)]),
);

/** An exact non-negative quantity: `mantissa * 10^exponent`. */
export interface Exact {
  mantissa: bigint;
  exponent: number;
}

/** Canonical decimal form of `mantissa * 10^exponent` (DecimalSI, or DecimalExponent beyond E). */
export function formatDecimal({ mantissa, exponent }: Exact, exponentForm = false): string {
  if (mantissa === 0n) return '0';
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent += 1;
  }
  const rem = ((exponent % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(rem);
  exponent -= rem;
  const suffix = DECIMAL_SUFFIXES[exponent];
  if (exponentForm || suffix === undefined) return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  return `${mantissa}${suffix}`;
}

/** Canonical form of a whole number of bytes written with a binary suffix (BinarySI). */
export function formatBinary(bytes: bigint): string {
  if (bytes < 1024n) return formatDecimal({ mantissa: bytes, exponent: 0 });
  let power = 0;
  while (power < 6 && bytes % 1024n === 0n) {
    bytes /= 1024n;
    power += 1;
  }
  // Without a suffix the server would read our string back as decimal (1000000 as "1M"): write
  // it in decimal form, so that what we send is already what the server prints.
  if (power === 0) return formatDecimal({ mantissa: bytes, exponent: 0 });
  return `${bytes}${BINARY_SUFFIXES[power]}`;
}

const QUANTITY = /^\+?(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/;

/** A parsed quantity: exact value and the form it canonicalizes to. */
export interface ParsedQuantity {
  value: Exact;
  /** The canonical form: a fixed point (parsing it gives it back), what mooring renders. */
  canonical: string;
  /**
   * What a kube-apiserver stores and answers (resource.Quantity's CanonicalizeBytes). It equals
   * `canonical` except for a binary-suffixed whole number of bytes of at least 1024 that no power
   * of 1024 divides: the server writes the bare integer (`976.5625Ki` is `1000000`), which it
   * would itself read back as decimal (`1M`), so that form is not a fixed point.
   */
  server: string;
}

/**
 * Parses a user-written quantity (`"0.5"`, `"500m"`, `"1Gi"`, a number) the way an API server
 * does: rounded up to nano precision, then canonicalized. `undefined` when it is not a quantity
 * (or is negative, which no resource accepts).
 */
export function parseQuantity(input: string | number): ParsedQuantity | undefined {
  const text = typeof input === 'number' ? numberText(input) : input;
  if (text === undefined || text.length > 64) return undefined;
  const m = QUANTITY.exec(text);
  if (!m) return undefined;
  const [, num = '', suffix, exp] = m;
  const [intPart = '', fracPart = ''] = num.split('.');
  let mantissa = BigInt((intPart || '0') + fracPart);
  let exponent = -fracPart.length;
  const binaryPower = suffix ? BINARY_EXPONENTS[suffix] : undefined;
  if (binaryPower !== undefined) {
    mantissa *= 1024n ** BigInt(binaryPower);
  } else if (suffix) {
    exponent += DECIMAL_EXPONENTS[suffix] ?? 0;
  } else if (exp !== undefined) {
    const e = Number(exp);
    if (Math.abs(e) > 30) return undefined;
    exponent += e;
  }
  // The API server keeps at most nano precision, rounding up.
  if (exponent < -9) {
    const divisor = 10n ** BigInt(-9 - exponent);
    mantissa = (mantissa + divisor - 1n) / divisor;
    exponent = -9;
  }
  const value = { mantissa, exponent };
  let canonical: string;
  let server: string | undefined;
  if (binaryPower !== undefined) {
    const whole = exponent >= 0 ? mantissa * 10n ** BigInt(exponent) : undefined;
    const exactWhole =
      whole ?? (mantissa % 10n ** BigInt(-exponent) === 0n ? mantissa / 10n ** BigInt(-exponent) : undefined);
    canonical = exactWhole !== undefined ? formatBinary(exactWhole) : formatDecimal(value);
    if (exactWhole !== undefined && exactWhole >= 1024n && exactWhole % 1024n !== 0n)
      server = `${exactWhole}`;
  } else {
    canonical = formatDecimal(value, exp !== undefined);
  }
  return { value, canonical, server: server ?? canonical };
}

function numberText(n: number): string | undefined {
  if (!Number.isFinite(n) || n < 0) return undefined;
  // Plain digits when the number has them; exponent form otherwise ("1e-7").
  return String(n).replace('e+', 'e');
}

/** Compares two exact quantities: negative, zero or positive like a sort comparator. */
export function compareQuantities(a: Exact, b: Exact): number {
  const e = Math.min(a.exponent, b.exponent);
  const x = a.mantissa * 10n ** BigInt(a.exponent - e);
  const y = b.mantissa * 10n ** BigInt(b.exponent - e);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Whether two quantities (strings or numbers) have the same value; false if either is not one. */
export function sameQuantity(a: unknown, b: unknown): boolean {
  if ((typeof a !== 'string' && typeof a !== 'number') || (typeof b !== 'string' && typeof b !== 'number')) {
    return false;
  }
  const x = parseQuantity(a);
  const y = parseQuantity(b);
  return x !== undefined && y !== undefined && compareQuantities(x.value, y.value) === 0;
}
