/**
 * Rule 8 of observed-state.ts: which deployments a resync from the watches may leave alone. A
 * deployment is quiet when its latest reconcile read its slice from the watches, no watch has lost
 * sync since (the cache's epoch), and no event has changed any of its objects since (the cache's
 * event numbers); every FULL_RESYNC_EVERY cycles from the watches, and every cycle that lists, none
 * is.
 */
import type { Inventory } from './list.ts';
import type { PreviousEntries } from './slim-listing.ts';
import type { WatchSeed } from './watch-scope.ts';

/** What rules 7 and 8 need of the watch cache (watch-cache.ts). */
export interface WatchedObjects {
  /** Starts the watches (once; later calls do nothing), from `seed` where it has a version. */
  start(seed?: WatchSeed): void;
  /** Whether `start` was called. */
  readonly started: boolean;
  /** Ends them for good. */
  stop(): void;
  /** The entries as a listing, while every watch is synced; else undefined. */
  inventory(): Inventory | undefined;
  /** The same entries by kind and namespace, then name (they go on changing); else undefined. */
  entries(): PreviousEntries | undefined;
  /** The number of the latest event that changed an entry. */
  readonly seq: number;
  /** Moves each time a watch stops being synced. */
  readonly epoch: number;
  /** The number of the latest event that changed an object of the deployment (0: none). */
  touchedAt(deploymentId: string): number;
}

/** Every this many cycles from the watches, a resync reconciles every deployment (rule 8). */
export const FULL_RESYNC_EVERY = 10;

/** Where the watches stood when a listing was taken from them. */
export interface WatchMark {
  seq: number;
  epoch: number;
}

export class QuietDeployments {
  /** Deployment id -> where the watches stood when its latest slice was taken. */
  readonly #readAt = new Map<string, WatchMark>();
  #fromWatches = 0;
  /** Whether this cycle reconciles every deployment; undefined mark: the cycle listed. */
  #full = true;
  #mark: WatchMark | undefined;

  /** A cycle begins; `from` is set when its listing comes from `watched`. */
  cycle(watched: WatchedObjects | undefined, fromWatches: boolean): WatchMark | undefined {
    if (fromWatches) this.#fromWatches += 1;
    this.#full = !fromWatches || this.#fromWatches % FULL_RESYNC_EVERY === 0;
    this.#mark = fromWatches && watched ? { seq: watched.seq, epoch: watched.epoch } : undefined;
    return this.#mark;
  }

  /** A deployment's slice was taken from a listing marked `mark` (undefined: not from the watches). */
  read(deploymentId: string, mark: WatchMark | undefined): void {
    if (mark) this.#readAt.set(deploymentId, mark);
    else this.#readAt.delete(deploymentId);
  }

  /** Whether a resync may leave `deploymentId` alone this cycle (see the module comment). */
  quiet(deploymentId: string, watched: WatchedObjects | undefined): boolean {
    const read = this.#readAt.get(deploymentId);
    if (this.#full || !watched || !read || !this.#mark) return false;
    return read.epoch === watched.epoch && watched.touchedAt(deploymentId) <= read.seq;
  }
}
