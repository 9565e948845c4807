/**
 * The agent's memory budget: how much of V8's heap its data takes, what the listener's size needs,
 * and what the agent does when the two do not fit. Dying of "JavaScript heap out of memory" in a
 * container is a crash loop: every restart is a cold start that dies at the same place. So when
 * the heap runs short the agent degrades instead: fewer reconciles at a time, and deployments it
 * has never reconciled wait (Pending, `MOORING_E_MEMORY_SHORT`) while those it holds are kept.
 * It says so in the log, in `/readyz`'s `memory` check and in metrics, with the memory the
 * listener would need. Estimates come from heap snapshots of the bench (bench/README.md).
 */
import type { Logger } from '../log.ts';
import { type HeapReading, HeapWatch } from './heap-reading.ts';
import { actionOf, describe, noResyncLine, tooLargeLine } from './memory-words.ts';
import {
  BENCH_OBJECTS_PER_DEPLOYMENT,
  HEAP_PER_DEPLOYMENT_BYTES,
  HEAP_PER_RECORD_BYTES,
  HEAP_TAKEN_BACK_BYTES,
  LISTING_BYTES_PER_OBJECT,
  LIVE_SHARE,
  RESTART_HEADROOM_BYTES,
  heapNeeded,
  memoryLimitFor,
} from './memory-estimate.ts';
import { levelOf, type MemoryLevel, SHORT_AT } from './memory-levels.ts';

const MIB = 1024 * 1024;

/** What the budget knows now. */
export interface MemoryVerdict {
  level: MemoryLevel;
  liveBytes: number;
  limitBytes: number;
  /** Deployments and objects of the listener as last counted. */
  deployments: number;
  objects: number;
  /** The container memory limit the listener's size needs (estimate; 0 before it is known). */
  neededLimitBytes: number;
  /** Whether that estimate is above what this agent has (the old generation's ceiling). */
  tooLarge: boolean;
  /** Deployments held back because the heap is short, or waiting still to be taken back. */
  deferred: number;
}

export interface MemoryBudgetOptions {
  /** Reads the heap; default V8's own figures (a `HeapWatch` of the budget's own). */
  read?: () => HeapReading;
  /** Deployments a restart memo vouched for not taken yet (ColdPasses.restoring), held whatever the heap says. */
  restoring?: () => number;
  logger: Logger;
}

export class MemoryBudget {
  readonly #read: () => HeapReading;
  readonly #logger: Logger;
  readonly #restoring: () => number;
  #deployments = 0;
  #objects = 0;
  #deferred = new Set<string>();
  #level: MemoryLevel = 'ok';
  #toldTooLarge = false;
  #toldNoResync = false;
  /** Deployments waiting with their records dropped (`parked`). */
  #parked = 0;
  /** How many may still be taken before the next poll (`#returnsAt`), those that were, and `restoring` then. */
  #returns: { left: number; ids: Set<string>; restoring: number } | undefined;
  /** The last reason given: every deferred deployment's status shares one string. */
  #reason = '';

  constructor(o: MemoryBudgetOptions) {
    const watch = o.read ? undefined : new HeapWatch();
    this.#read = o.read ?? (() => (watch as HeapWatch).read());
    this.#logger = o.logger;
    this.#restoring = o.restoring ?? (() => 0);
  }

  /**
   * The listener's size, from a complete listing (objects: 0 until the cluster's listing is known:
   * the bench's per deployment then). Logs once when the listener is larger than the heap holds.
   */
  sized(deployments: number, objects?: number): void {
    this.#deployments = deployments;
    if (objects !== undefined) this.#objects = objects;
    const v = this.verdict();
    if (v.tooLarge && !this.#toldTooLarge) this.#logger.warn(...tooLargeLine(v));
    this.#toldTooLarge = v.tooLarge;
  }

  /** The objects a complete listing of the cluster found (the estimate's per-object part). */
  listed(objects: number): void {
    this.#objects = objects;
  }

  /**
   * How many deployments wait with their records dropped (the poller keeps a sketch of each), told
   * once per poll: what may come back of them is judged anew for the next one.
   */
  parked(count: number): void {
    this.#parked = count;
    this.#returns = undefined;
  }

  /**
   * How many deployments not held yet (new ones, and waiting ones taken back) may be taken until
   * the next poll: as many as the room below the short level and RESTART_HEADROOM_BYTES under the
   * ceiling (read at the first question after a poll), less what the restart memo's deployments
   * not taken yet will take, would hold taken. A reading sees one taken only once V8 has collected:
   * judged at each reading, the same room went out again and again, and a restart's first listing
   * took every record whole before its heap read short (bench/README.md, "A limit far too small").
   */
  #returnsAt(reading: HeapReading): { left: number; ids: Set<string> } {
    const restoring = this.#restoring();
    // Anew when a restart memo vouched for more since (it is read before the first listing).
    if (this.#returns === undefined || restoring > this.#returns.restoring) {
      const room = Math.max(
        0,
        this.#cap(reading) - reading.liveBytes - restoring * HEAP_PER_DEPLOYMENT_BYTES,
      );
      const taken = this.#returns?.ids ?? new Set<string>();
      this.#returns = { left: Math.floor(room / HEAP_TAKEN_BACK_BYTES) - taken.size, ids: taken, restoring };
    }
    return this.#returns;
  }

  /** The room kept for waiting records that may still be parsed whole again (`#returnsAt`). */
  #returning(reading: HeapReading): number {
    return Math.max(0, Math.min(this.#parked, this.#returnsAt(reading).left)) * HEAP_PER_RECORD_BYTES;
  }

  /** Reads the heap again and returns the level (logged when it changes). */
  update(): MemoryLevel {
    const reading = this.#read();
    const level = levelOf(reading, this.#returning(reading));
    if (level !== this.#level) {
      const fields = {
        level,
        liveMib: Math.round(reading.liveBytes / MIB),
        heapLimitMib: Math.round(reading.limitBytes / MIB),
      };
      if (level === 'ok')
        this.#logger.info(fields, 'memory: enough again; deployments are taken as the heap has room');
      else this.#logger.warn(fields, `memory ${level}: ${actionOf(level)}`);
      this.#level = level;
    }
    if (level !== 'short') this.#deferred.clear();
    return level;
  }

  /** The level now (the heap read again). */
  get level(): MemoryLevel {
    return this.update();
  }

  /** Whether the heap is short now (the heap read again): what gives a cold listing up. */
  isShort(): boolean {
    return this.update() === 'short';
  }

  /**
   * Whether a start's listing of every owned object can keep its entries to its end, `listed`
   * objects in: the cluster's objects being known (`listed`, at a restart the objects its memo
   * holds), the rest of the listing (LISTING_BYTES_PER_OBJECT for each object not listed yet)
   * leaves the heap under the short level. When it does not, the listing is judged page by page
   * and keeps no entries (observed-state.ts, rule 5): at 10,000 deployments under 256 MiB a
   * restart's entries (about 52 MB) did not fit beside what a start holds (about 106 MB). A first
   * start, its objects not known (most not made yet), keeps them.
   */
  coldListingEntriesFit(listed: number): boolean {
    if (this.#objects === 0) return true;
    const rest = Math.max(0, this.#objects - listed) * LISTING_BYTES_PER_OBJECT;
    const reading = this.#read();
    const fits = levelOf(reading, this.#returning(reading) + rest) !== 'short';
    if (!fits) {
      this.#logger.info(
        { liveMib: Math.round(reading.liveBytes / MIB), listingMib: Math.round(rest / MIB) },
        "memory: the cold listing's entries would not fit; it is judged page by page and keeps none",
      );
    }
    return fits;
  }

  /**
   * Whether a full resync fits now: its listing of every object the agent owns, beside the live
   * data and the records of waiting deployments, stays under the short level. At 10,000
   * deployments under 256 MiB the first resync after convergence (131 MiB live, and about 52 MiB
   * of listing) ran V8 out of heap; without it, changes still go, and the cluster's drift waits.
   */
  get resyncFits(): boolean {
    const fits = this.listingFits(LISTING_BYTES_PER_OBJECT);
    if (!fits && !this.#toldNoResync) {
      this.#logger.warn(...noResyncLine(this.#read(), this.#objectsKnown() * LISTING_BYTES_PER_OBJECT));
    }
    this.#toldNoResync = !fits;
    return fits;
  }

  /**
   * Whether a listing of every owned object, `bytesPerObject` each, fits beside the live data
   * (`#cap`): a resync that fitted only under the short level went judge-only, and its pages in
   * flight took a restart under a limit far too small past V8's ceiling, every few polls.
   */
  listingFits(bytesPerObject: number): boolean {
    const reading = this.#read();
    return (
      reading.liveBytes + this.#returning(reading) + this.#objectsKnown() * bytesPerObject <
      this.#cap(reading)
    );
  }

  /** Below the short level, with RESTART_HEADROOM_BYTES free under the ceiling: what new work may fill. */
  #cap(reading: HeapReading): number {
    return Math.min(SHORT_AT * reading.limitBytes, reading.limitBytes - RESTART_HEADROOM_BYTES);
  }

  /** The objects last counted, or the bench's per deployment before a listing has counted them. */
  #objectsKnown(): number {
    return this.#objects > 0 ? this.#objects : this.#deployments * BENCH_OBJECTS_PER_DEPLOYMENT;
  }

  /**
   * Whether a deployment that has never been reconciled may be taken now. One refused is counted
   * as deferred until the heap has room again.
   */
  admits(id: string): boolean {
    if (this.#level !== 'short') return true;
    this.#deferred.add(id);
    return false;
  }

  /**
   * The reason a deployment not `held` (reconciled once, being deleted, or vouched for by the
   * restart memo) waits now, or undefined: the heap is short, or no more may be taken before the
   * next poll (`#returnsAt`). That allowance binds a `parked` one always, a new one only while a
   * restart takes its memo's deployments back or the heap is past ok: at a first start under the
   * chart's limit the heap reads its start-up garbage until V8 first collects, and 7,131 of 10,000
   * deployments waited a poll or more, Pending, for memory there was.
   */
  defers(id: string, held: boolean, parked = false): string | undefined {
    if (held) return undefined;
    const level = this.update();
    const bound = parked || level !== 'ok' || this.#restoring() > 0;
    if (this.admits(id) && (!bound || this.#mayTake(id))) {
      this.forget(id);
      return undefined;
    }
    this.#deferred.add(id);
    return this.deferralReason();
  }

  /** Whether `id` may be taken now, counted once against what may (`#returnsAt`). */
  #mayTake(id: string): boolean {
    const returns = this.#returnsAt(this.#read());
    if (returns.ids.has(id)) return true;
    if (returns.left <= 0) return false;
    returns.left -= 1;
    returns.ids.add(id);
    return true;
  }

  /** Forgets a deployment (it left the listing, or was taken after all). */
  forget(id: string): void {
    this.#deferred.delete(id);
  }

  /** The reason a deferred deployment carries in the status. */
  deferralReason(): string {
    // Without the count of those waiting, which each one deferred moves.
    const v = { ...this.verdict(), deferred: 0 };
    const reason = `MOORING_E_MEMORY_SHORT: ${describe(v)}; this deployment waits until the heap has room`;
    if (reason !== this.#reason) this.#reason = reason;
    return this.#reason;
  }

  verdict(): MemoryVerdict {
    const reading = this.#read();
    const objects = this.#objectsKnown();
    const needed = this.#deployments > 0 ? heapNeeded(this.#deployments, objects) : 0;
    return {
      level: this.#level,
      liveBytes: reading.liveBytes,
      limitBytes: reading.limitBytes,
      deployments: this.#deployments,
      objects,
      neededLimitBytes: needed > 0 ? memoryLimitFor(needed) : 0,
      tooLarge: needed > reading.limitBytes * LIVE_SHARE,
      deferred: Math.max(this.#deferred.size, this.#parked), // parked ones wait in any level
    };
  }

  /** `/readyz`'s `memory` check: informative (readiness gates rollouts, which must go on). */
  check(): { ok: boolean; detail: string } {
    this.update();
    const v = this.verdict();
    return { ok: v.level !== 'short' && !v.tooLarge, detail: describe(v) };
  }
}
