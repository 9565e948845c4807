/** Quantities for validation (requests against limits, signs), read by the one quantity parser. */
import { compareQuantities, type Exact, parseQuantity } from '../../quantity.ts';

/** A quantity's exact signed value, or undefined when it does not parse. */
export function quantityValue(q: unknown): Exact | undefined {
  if (typeof q !== 'string' && typeof q !== 'number') return undefined;
  const text = String(q).trim();
  const negative = text.startsWith('-');
  const parsed = parseQuantity(negative ? text.slice(1) : text);
  if (!parsed) return undefined;
  const { mantissa, exponent } = parsed.value;
  return negative ? { mantissa: -mantissa, exponent } : parsed.value;
}

/** Whether an exact value is below zero. */
export function isNegative(v: Exact): boolean {
  return v.mantissa < 0n;
}

/** Whether `a` is greater than `b`. */
export function exceeds(a: Exact, b: Exact): boolean {
  return compareQuantities(a, b) > 0;
}

/** A quantity as the server prints it in a message: the stored string, numbers as written. */
export function quantityText(q: unknown): string {
  return typeof q === 'string' ? q : String(q);
}
