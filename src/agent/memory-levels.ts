/** The memory budget's levels (memory-budget.ts): what a heap reading says, and what each level allows. */
import type { HeapReading } from './heap-reading.ts';

/** ok: room to spare; tight: reconcile fewer at a time; short: take no new deployment. */
export type MemoryLevel = 'ok' | 'tight' | 'short';

/** Fractions of the old generation's ceiling the live data may reach before each level. */
export const TIGHT_AT = 0.7;
export const SHORT_AT = 0.85;

const MIB = 1024 * 1024;

/**
 * Room under the ceiling each level needs for what it lets run at once: at ok, eight reconciles
 * (about 2 MB each while they list, render and apply) and four cold-listing pages (up to 4 MB of
 * parsed Secrets each); at tight, half as many reconciles and two pages of 40%. Fractions alone
 * left a 96 MiB heap 29 MiB at ok, and a restart there ran out of heap from ok in one burst
 * (bench/README.md, "A limit far too small: the restart lives"). Above a heap of about 120 MiB
 * the fractions are the stricter bound.
 */
export const OK_ROOM_BYTES = 36 * MIB;
export const TIGHT_ROOM_BYTES = 16 * MIB;

/** The level of a reading, with `reserveBytes` more live (what the next listing brings back). */
export function levelOf(reading: HeapReading, reserveBytes = 0): MemoryLevel {
  if (reading.limitBytes <= 0) return 'ok';
  const live = reading.liveBytes + reserveBytes;
  const room = reading.limitBytes - live;
  if (live >= SHORT_AT * reading.limitBytes || room < TIGHT_ROOM_BYTES) return 'short';
  if (live >= TIGHT_AT * reading.limitBytes || room < OK_ROOM_BYTES) return 'tight';
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
