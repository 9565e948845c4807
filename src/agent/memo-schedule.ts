/**
 * When a leader saves its restart memo besides at shutdown (ADR 0010): every
 * RESTART_MEMO_SAVE_INTERVAL_MS after its first poll, so that an agent that dies (killed, out of
 * memory) leaves what it had verified to the next start; never while the heap is short, where the
 * snapshot's text would take what is left.
 */
import type { MemoryLevel } from './memory-levels.ts';

export const RESTART_MEMO_SAVE_INTERVAL_MS = 5 * 60_000;

export class MemoSchedule {
  #lastMs: number | undefined;

  /** Whether a save is due at `nowMs`; the first call starts the count. */
  due(nowMs: number, level: MemoryLevel = 'ok'): boolean {
    if (level === 'short') return false;
    if (this.#lastMs === undefined) this.#lastMs = nowMs;
    if (nowMs - this.#lastMs < RESTART_MEMO_SAVE_INTERVAL_MS) return false;
    this.#lastMs = nowMs;
    return true;
  }
}
