/**
 * What V8 says of its heap, as the memory budget (memory-budget.ts) reads it: the old
 * generation's live bytes after its latest full collection, and its ceiling.
 */
import { constants, PerformanceObserver, performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';

const MIB = 1024 * 1024;

/**
 * V8's heap as the budget reads it: the old generation's live bytes (after its latest full
 * collection, when one happened) and the old generation's ceiling. The young generation is left
 * out of both: it is emptied by every collection, and its reserve is no room for data.
 */
export interface HeapReading {
  liveBytes: number;
  limitBytes: number;
}

/**
 * A reading younger than this is given again. The budget is asked several times for each
 * reconcile it starts or ends (the runner's limit, a deployment's admission), and V8's space
 * figures cost a native call and a dozen objects each time; in a few milliseconds the old
 * generation moves by what a scavenge or two promote, far inside the levels' margins.
 */
export const REREAD_AFTER_MS = 10;

/** The young generation's spaces: emptied by every collection, no room for data. */
const YOUNG_SPACES: ReadonlySet<string> = new Set(['new_space', 'new_large_object_space']);

/** Bytes used in the old generation's spaces now (garbage since the last full collection included). */
function oldGenerationUsed(): { used: number; newSpace: number } {
  let used = 0;
  let newSpace = 0;
  for (const s of getHeapSpaceStatistics()) {
    if (s.space_name === 'new_space') newSpace = s.space_size;
    if (!YOUNG_SPACES.has(s.space_name)) used += s.space_used_size;
  }
  return { used, newSpace };
}

/**
 * The largest semi-space `--max-semi-space-size` gives V8 (MiB, the image sets it), from Node's
 * arguments or NODE_OPTIONS, the last one winning; undefined when neither sets it.
 */
export function semiSpaceFlagBytes(
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): number | undefined {
  let mib: number | undefined;
  for (const arg of [...(nodeOptions ?? '').split(/\s+/), ...execArgv]) {
    const m = /^--max[-_]semi[-_]space[-_]size=(\d+)$/.exec(arg);
    if (m) mib = Number(m[1]);
  }
  return mib === undefined ? undefined : mib * MIB;
}

/**
 * V8's figures (see HeapReading), read by one owner (the memory budget). The live bytes after a
 * full collection are the ones this watch saw: it starts with none (the heap's use now stands in)
 * and keeps the latest until it is closed, which stops the watching.
 */
export class HeapWatch {
  /** Old-generation bytes live after the latest full collection seen, once one has been. */
  #liveAfterFullGc: number | undefined;
  #watching: PerformanceObserver | undefined;
  /** The latest reading and when it was taken (`performance.now()`). */
  #last: { reading: HeapReading; atMs: number } | undefined;
  /** `semiSpaceFlagBytes` of this process, read once: its flags do not change. */
  readonly #semiSpace = semiSpaceFlagBytes(process.execArgv, process.env.NODE_OPTIONS);

  /** Old-generation bytes live after the latest full collection this watch saw, if any. */
  get liveAfterFullGcBytes(): number | undefined {
    return this.#liveAfterFullGc;
  }

  /** V8's figures now; watches full collections from the first call until `close`. */
  read(): HeapReading {
    if (!this.#watching) {
      this.#watching = new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
          if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) this.#liveAfterFullGc = oldGenerationUsed().used;
        }
      });
      this.#watching.observe({ entryTypes: ['gc'] });
    }
    const now = performance.now();
    if (this.#last !== undefined && now - this.#last.atMs < REREAD_AFTER_MS) return this.#last.reading;
    const { used, newSpace } = oldGenerationUsed();
    const { heap_size_limit: limit } = getHeapStatistics();
    // The young generation's reserve is three semi-spaces; the new space, grown, is two of them.
    const semiSpace = this.#semiSpace;
    const youngReserve = semiSpace === undefined ? Math.ceil(newSpace * 1.5) : 3 * semiSpace;
    const limitBytes = Math.max(1, limit - youngReserve);
    const reading = { liveBytes: Math.min(used, this.#liveAfterFullGc ?? used), limitBytes };
    this.#last = { reading, atMs: now };
    return reading;
  }

  /** Stops watching; the figure seen so far stays (a later `read` watches again). */
  close(): void {
    this.#watching?.disconnect();
    this.#watching = undefined;
  }
}
