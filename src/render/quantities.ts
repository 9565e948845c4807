/**
 * Quantities mooring renders from ResourceSpec numbers (cores, MiB, GiB), written in the canonical
 * form of `../quantity.ts`, so every string we emit is a fixed point: the server prints it back
 * unchanged and a live object compares equal to what we render.
 */
import { formatBinary, formatDecimal } from '../quantity.ts';

/** CPU cores as a quantity: whole millicores, rounded up (Kubernetes' finest CPU precision). */
export function cpuQuantity(cores: number): string {
  const millis = cpuMillis(cores);
  if (millis % 1000 !== 0) return `${millis}m`;
  return formatDecimal({ mantissa: BigInt(millis), exponent: -3 });
}

/** Cores to whole millicores, rounded up, at least 1 for a positive number. */
export function cpuMillis(cores: number): number {
  // Round to whole microcores first: 0.007 * 1000 is 7.000000000000001 in binary floating point.
  const millis = Math.ceil(Math.round(cores * 1e6) / 1000);
  return cores > 0 ? Math.max(1, millis) : 0;
}

/** MiB as a quantity (`512Mi`, `1Gi`); a fraction of a byte is rounded up. */
export function memoryQuantity(mib: number): string {
  // Multiplying by a power of two is exact in binary floating point.
  return formatBinary(BigInt(Math.ceil(mib * 1_048_576)));
}

/** GiB as a quantity (`10Gi`); a fraction of a byte is rounded up. */
export function storageQuantity(gib: number): string {
  return formatBinary(BigInt(Math.ceil(gib * 1_073_741_824)));
}
