import type { Clock, TimerHandle } from '../../src/agent/clock.ts';

interface Timer {
  id: number;
  dueMs: number;
  fn: () => void;
}

/** A hand-driven clock: `advance` fires due timers in order, letting promises settle between them. */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: Timer[] = [];

  constructor(startMs = 1_700_000_000_000) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, delayMs: number): TimerHandle {
    const timer = { id: ++this.#seq, dueMs: this.#now + Math.max(0, delayMs), fn };
    this.#timers.push(timer);
    return timer;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers = this.#timers.filter((t) => t !== handle);
  }

  /** Due times of pending timers, relative to now. */
  pendingDelays(): number[] {
    return this.#timers.map((t) => t.dueMs - this.#now).sort((a, b) => a - b);
  }

  /** Moves time forward by `ms`, firing each due timer and flushing microtasks after each. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      await flush();
      const due = this.#timers
        .filter((t) => t.dueMs <= target)
        .sort((a, b) => a.dueMs - b.dueMs || a.id - b.id)[0];
      if (!due) break;
      this.#timers = this.#timers.filter((t) => t !== due);
      this.#now = due.dueMs;
      due.fn();
    }
    this.#now = target;
    await flush();
  }
}

/** Lets pending promise callbacks run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
}
