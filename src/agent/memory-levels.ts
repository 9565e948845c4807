/** The memory budget's levels (memory-budget.ts): what a heap reading says, and what each level allows. */
import type { HeapReading } from './heap-reading.ts';

/** ok: room to spare; tight: reconcile fewer at a time; short: take no new deployment. */
export type MemoryLevel = 'ok' | 'tight' | 'short';

/** Fractions of the old generation's ceiling the live data may reach before each level. */
export const TIGHT_AT = 0.7;
export const SHORT_AT = 0.85;

/** The level of a reading, with `reserveBytes` more live (what the next listing brings back). */
export function levelOf(reading: HeapReading, reserveBytes = 0): MemoryLevel {
  const ratio = reading.limitBytes > 0 ? (reading.liveBytes + reserveBytes) / reading.limitBytes : 0;
  if (ratio >= SHORT_AT) return 'short';
  if (ratio >= TIGHT_AT) return 'tight';
  return 'ok';
}

/** Reconciles at a time at each level, given the configured number. */
export function concurrencyAt(level: MemoryLevel, configured: number): number {
  if (level === 'short') return 1;
  if (level === 'tight') return Math.max(1, Math.floor(configured / 2));
  return configured;
}

/**
 * The share of a cold listing's usual page size at each level: each list call holds its page
 * parsed until judged, so a restart under a small limit lists in smaller pages as its heap fills.
 */
export function pageShareAt(level: MemoryLevel): number {
  if (level === 'short') return 0.2;
  if (level === 'tight') return 0.4;
  return 1;
}
