/** What ObservedState (observed-state.ts) is given: its options, and the resource calls it wraps. */
import type { ApplyOptions } from './apply.ts';
import type { Census } from './census.ts';
import type { ChangeSet } from '../objects/change-set.ts';
import type { DeleteAllOptions } from './delete.ts';
import type { Inventory, ListOwnedOptions } from './list.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import type { WatchedObjects, WatchMark } from './quiet-deployments.ts';
import type { Keeps } from './shard-entries.ts';
import type { PageJudge } from './slim-listing.ts';

/** The resource calls the cache wraps (the ResourceManager has them). */
export interface InventoryResources {
  applyAll(objects: readonly KubeObject[], opts?: ApplyOptions): Promise<ChangeSet>;
  listOwned(opts: ListOwnedOptions): Promise<Inventory>;
  deleteAll(objects: readonly KubeObject[], opts: DeleteAllOptions): Promise<ChangeSet>;
  /**
   * This listener's object of a kind, namespace and name, metadata only (one list call selecting
   * it), undefined when there is none: what a reconcile with no listing to read looks up.
   */
  findOwned(
    obj: KubeObject,
    listenerId: string,
    opts?: { signal?: AbortSignal },
  ): Promise<KubeObject | undefined>;
}

export interface ObservedStateOptions {
  namespaces: readonly string[];
  listenerId: string;
  /**
   * Makes the judge of a cold listing (the first, or any while none has succeeded yet): that
   * listing comes whole and is compared page by page (ADR 0008). One judge per listing.
   */
  coldJudge?: (() => PageJudge) | undefined;
  /** Takes a census of names (rule 6); without it, objects the listing does not hold are read. */
  census?: (() => Census) | undefined;
  /**
   * Whether a census of every object's name fits the heap now (memory-budget.ts, `listingFits`);
   * when not, the cycle takes none and reads what its listing does not hold, one at a time.
   */
  censusFits?: (() => boolean) | undefined;
  /** The watches of owned objects (rule 7); without them, every cycle lists. */
  watched?: WatchedObjects | undefined;
  /**
   * Whether the heap is short now (memory-budget.ts, `isShort`), asked before each page of a cold
   * listing: one that has kept entries is then given up (it fails, rule 1) instead of running V8
   * out of heap (a restart under too small a limit died so, every time); one that has kept none
   * goes on judge-only (rule 5).
   */
  memoryShort?: (() => boolean) | undefined;
  /**
   * Whether a cold listing's entries fit to its end, given the objects it has listed so far
   * (memory-budget.ts, `coldListingEntriesFit`), asked after each judged page. Once they do not,
   * the listing is judge-only (rule 5): each page is judged and let go, no entry is kept, and the
   * listing serves no slice.
   */
  entriesFit?: ((listed: number) => boolean) | undefined;
  /**
   * Told when a cold listing has ended (not when it failed): whether it was judge-only, and
   * whether it handed every object once (none of its lists started over).
   */
  onColdListed?: ((judgeOnly: boolean, complete: boolean) => void) | undefined;
  /**
   * Told how many objects a listing that succeeded and kept its entries holds (not one from the
   * watches, nor a judge-only one): the memory budget's count of the cluster's objects.
   */
  onCounted?: ((objects: number) => void) | undefined;
  /**
   * Whose objects a listing keeps entries for, asked as each listing starts (rule 9): a sharded
   * replica's held shards. Undefined (or answering undefined): everyone's.
   */
  keeps?: (() => Keeps | undefined) | undefined;
}

/** An object of the listing by kind, namespace and name (`ObservedState.finder`). */
export type ObjectFinder = (kind: string, namespace: string, name: string) => KubeObject | undefined;

/** A cycle's listing of every owned object (ObservedState, rule 1). */
export interface CycleListing {
  /** Sequence number of the listing's start: writes marked before it are in the listing. */
  startSeq: number;
  /** For a listing from the watches: where they stood when it was taken. */
  watched: WatchMark | undefined;
  namespaces: ReadonlySet<string>;
  /** Whose objects the listing kept (rule 9); undefined: everyone's. */
  keeps: Keeps | undefined;
  result: Promise<Inventory | undefined>;
  /** Whether `result` has settled. */
  settled: boolean;
}
