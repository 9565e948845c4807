/**
 * A keyed work queue with client-go's workqueue semantics: a key is queued at most once, a key
 * being processed is never handed out twice (an `add` during processing marks it dirty and it comes
 * back after `done`), and delayed adds keep only the earliest due time per key.
 */
import type { Clock, TimerHandle } from './clock.ts';

export class WorkQueue {
  readonly #clock: Clock;
  readonly #queue: string[] = [];
  /** Keys waiting in `#queue`. */
  readonly #queued = new Set<string>();
  readonly #processing = new Set<string>();
  /** Keys added while processing: re-queued on `done`. */
  readonly #dirty = new Map<string, boolean>();
  readonly #delayed = new Map<string, { dueMs: number; handle: TimerHandle }>();
  readonly #onReady: () => void;

  /** `onReady` is called whenever a key may have become available to `next()`. */
  constructor(clock: Clock, onReady: () => void) {
    this.#clock = clock;
    this.#onReady = onReady;
  }

  /**
   * Queues `key` now (a pending delayed add for it is dropped: now is earlier). `urgent` puts it
   * ahead of the keys already waiting (or moves it there): a changed deployment must not wait
   * behind a whole resync.
   */
  add(key: string, urgent = false): void {
    this.#cancelDelayed(key);
    if (this.#processing.has(key)) {
      this.#dirty.set(key, urgent || (this.#dirty.get(key) ?? false));
      return;
    }
    if (this.#queued.has(key)) {
      if (urgent && this.#queue[0] !== key) {
        this.#queue.splice(this.#queue.indexOf(key), 1);
        this.#queue.unshift(key);
      }
      return;
    }
    this.#queued.add(key);
    if (urgent) this.#queue.unshift(key);
    else this.#queue.push(key);
    this.#onReady();
  }

  /** Queues `key` after `delayMs`, unless it is already due sooner. */
  addAfter(key: string, delayMs: number): void {
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    if (this.#queued.has(key)) return;
    const dueMs = this.#clock.now() + delayMs;
    const pending = this.#delayed.get(key);
    if (pending && pending.dueMs <= dueMs) return;
    this.#cancelDelayed(key);
    const handle = this.#clock.setTimeout(() => {
      this.#delayed.delete(key);
      this.add(key);
    }, delayMs);
    this.#delayed.set(key, { dueMs, handle });
  }

  /** The next key to process (now marked processing), or undefined when none is ready. */
  next(): string | undefined {
    const key = this.#queue.shift();
    if (key === undefined) return undefined;
    this.#queued.delete(key);
    this.#processing.add(key);
    return key;
  }

  /** Marks `key` finished; if it was added meanwhile it is queued again. */
  done(key: string): void {
    this.#processing.delete(key);
    const urgent = this.#dirty.get(key);
    if (urgent !== undefined) {
      this.#dirty.delete(key);
      this.add(key, urgent);
    }
  }

  /** Drops every trace of `key` except an in-flight run (which finishes normally). */
  remove(key: string): void {
    this.#cancelDelayed(key);
    this.#dirty.delete(key);
    if (this.#queued.delete(key)) this.#queue.splice(this.#queue.indexOf(key), 1);
  }

  /** Whether a delayed add is pending for `key` (a backoff or requeue-after timer). */
  hasDelayed(key: string): boolean {
    return this.#delayed.has(key);
  }

  /** Whether `key` is queued, delayed, dirty or processing. */
  holds(key: string): boolean {
    return (
      this.#queued.has(key) || this.#delayed.has(key) || this.#dirty.has(key) || this.#processing.has(key)
    );
  }

  isProcessing(key: string): boolean {
    return this.#processing.has(key);
  }

  /** Keys ready to process now (the queue-depth metric). */
  get depth(): number {
    return this.#queue.length;
  }

  get processingCount(): number {
    return this.#processing.size;
  }

  /** Cancels every delayed add (shutdown). */
  clearDelayed(): void {
    for (const key of [...this.#delayed.keys()]) this.#cancelDelayed(key);
  }

  #cancelDelayed(key: string): void {
    const pending = this.#delayed.get(key);
    if (!pending) return;
    this.#clock.clearTimeout(pending.handle);
    this.#delayed.delete(key);
  }
}
