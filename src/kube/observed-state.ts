/**
 * The one owner of what the agent knows of the cluster between calls: the cycle's listing, the
 * entries carried from one listing to the next, the memo of objects found converged, and the
 * writes that make a listing stale. Zero idle writes and drift repair rest on these rules, which
 * hold here and nowhere else (each with the test that shows it):
 *
 * 1. One listing per poll cycle, shared by every reconcile of the cycle and its orphan pass; a
 *    failed listing is not kept, and reconciles then list for themselves
 *    (test/kube/observed-state.test.ts). A cycle begun while the last one's listing runs shares
 *    it: two at once held two sets of pages (bench/README.md, "A limit far too small").
 * 2. A deployment's slice of the listing is used only while it is current: once this agent writes
 *    (or tries to write) an object of that deployment after the listing began, the deployment
 *    lists its own objects until the next listing; a second reconcile of it in one cycle (a
 *    rollout being watched) lists for itself (test/kube/observed-state.test.ts).
 * 3. An entry of the previous successful listing stands for an object while its uid and
 *    resourceVersion are unchanged; anything else is read whole (slim-listing.ts;
 *    test/kube/carried-entries.test.ts). A (kind, namespace) listed again gives its new entries
 *    in place of the previous ones at once, so that two listings are never held whole
 *    (test/kube/listing-scopes.test.ts).
 * 4. The memo: an object found converged (or left so by an apply) for an input key holds while
 *    the key and the object's version (object-version.ts) are unchanged; deleting the object
 *    forgets it; a dry run never enters it (test/kube/verified-memo.test.ts,
 *    test/kube/observed-state.test.ts).
 * 5. Until a listing has succeeded, the listing comes whole and is judged page by page: what is
 *    found converged enters the memo (ADR 0008; test/agent/cold-start-listing.test.ts); judge-only
 *    (no entry kept; ends as a failed one, its verdicts aside; ADR 0010) when its entries would not
 *    fit or the heap is short before its first page; given up, as a failed one (rule 1), when short
 *    after keeping some (test/kube/observed-state.test.ts).
 * 6. A census of names (census.ts, ADR 0007) is taken for the cold listing's cycle, and for each
 *    next cycle while the one before created objects from its census: what it finds absent is
 *    created without a read. Otherwise an object the listing does not hold is read first
 *    (test/kube/census.test.ts).
 * 7. As soon as a listing has succeeded, the owned kinds are watched (`watched`, watch-cache.ts,
 *    ADR 0014). While every watch is synced, a cycle's listing is the watches' entries as they stand
 *    at the cycle's start, made with no request; rules 2-6 hold for it as for a listed one (its
 *    slices are as current as a listing begun then). While any watch has expired or broken and
 *    not yet listed again, cycles list as in rule 1 (test/kube/observed-state-watched.test.ts).
 * 8. A resync from the watches leaves alone a deployment nothing has changed since it was verified
 *    (`quiet`, quiet-deployments.ts; test/kube/observed-state-watched.test.ts).
 * 9. A sharded replica's listing keeps entries of the held shards' deployments only (`keeps`,
 *    fixed when the listing starts; shard-entries.ts): a deployment it did not keep is served no
 *    slice (it lists for itself) and is not said to own objects or not (unknown)
 *    (test/kube/observed-state-shards.test.ts).
 *
 * Changes made by others are seen at the next listing, or with watches as events before the next
 * cycle: drift is repaired within one resync. One listing per cycle is ADR 0002.
 */
import type { ApplyOptions } from './apply.ts';
import type { Census } from './census.ts';
import type {
  CycleListing as Listing,
  InventoryResources,
  ObjectFinder,
  ObservedStateOptions,
} from './observed-state-options.ts';
import { type ChangeSet, hasChanges } from '../objects/change-set.ts';
import { type Inventory, inventoryOf, type ListOwnedOptions } from './list.ts';
import { LABELS } from '../labels.ts';
import { coldListing, deploymentsWithObjects } from './listing-guards.ts';
import { ApplyMemo } from './memo.ts';
import { type PreviousEntries, previousEntries, previousEntry, replaceScope } from './slim-listing.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import type { Keeps } from './shard-entries.ts';
import { QuietDeployments } from './quiet-deployments.ts';
import { scopeKey } from './watch-scope.ts';

export { FULL_RESYNC_EVERY, type WatchedObjects } from './quiet-deployments.ts';

export type { InventoryResources, ObjectFinder, ObservedStateOptions } from './observed-state-options.ts';
export type { PageJudge } from './slim-listing.ts';
export type { Verified } from './apply-context.ts';
export type { ApplyMemo } from './memo.ts';

export class ObservedState {
  /**
   * The memo (rule 4): object id -> the input key and version it was found converged at. The
   * resource manager's applies read and fill it (`ResourceManagerOptions.memo`).
   */
  readonly memo = new ApplyMemo();
  readonly #opts: ObservedStateOptions;
  #listing: Listing | undefined;
  /**
   * The entries of the latest listing that succeeded, for the next one (slim-listing.ts). An index
   * of their own, not that inventory: looking entries up in its `byId` (an id string made per
   * listed object) and holding the whole inventory through the next listing cost more CPU per
   * idle cycle (bench/README.md, "Measured decisions").
   */
  #previous: PreviousEntries | undefined;
  #seq = 0;
  /** Deployment id -> sequence number of our latest write to its objects. */
  readonly #writes = new Map<string, number>();
  /** Deployments already served from the current listing: a second reconcile in one cycle (a
   * rollout being watched) must see fresh status, so it lists for itself. */
  readonly #served = new Set<string>();
  #hits = 0;
  #misses = 0;
  /** Rule 8's bookkeeping. */
  readonly #quiet = new QuietDeployments();
  /** Deployments owning objects other than volumes, by the latest listing that succeeded. */
  #owners: ReadonlySet<string> | undefined;
  /** Whose objects that listing kept (rule 9). */
  #ownersKept: Keeps | undefined;
  /** This cycle's census (rule 6), taken at its first use; whether this cycle takes one. */
  #census: Census | undefined;
  #censusWanted = false;

  constructor(opts: ObservedStateOptions) {
    this.#opts = opts;
  }

  /** Starts this cycle's listing through `list` (not awaited); one that fails is not cached (rule 1). */
  refresh(
    list: (opts: ListOwnedOptions) => Promise<Inventory>,
    onError: (err: unknown) => void = () => {},
  ): Promise<Inventory | undefined> {
    if (this.#listing !== undefined && !this.#listing.settled) return this.#listing.result;
    this.#seq += 1;
    const startSeq = this.#seq;
    // Slim: a cycle's listing of everything is held while the cycle runs; the resync of a converged
    // deployment needs no more than a slim entry holds (`slim` in compact-live.ts).
    const cold = coldListing(this.#previous === undefined ? this.#opts.coldJudge?.() : undefined, this.#opts);
    const opts: ListOwnedOptions = {
      namespaces: this.#opts.namespaces,
      listenerId: this.#opts.listenerId,
      slim: true,
      previous: this.#previous,
      ...cold.options,
    };
    const keeps = this.#opts.keeps?.();
    if (keeps) opts.keeps = keeps;
    // Never two listings at once: each scope's previous entries give way to its new ones as soon
    // as it is listed (the finder then sees them, as current as the listing's), not at the end.
    if (this.#previous !== undefined) {
      const previous = new Map(this.#previous);
      opts.previous = previous;
      opts.onScope = (kind, namespace, entries) => replaceScope(previous, kind, namespace, entries);
      this.#previous = previous;
    }
    // Watches start from a listing with nothing written since the last (not a cold start's creates).
    const versions = new Map<string, string>();
    const seeds = this.#previous && this.#writes.size === 0 && this.#opts.watched?.started === false;
    // A shard taken while this listing runs (rule 9) moves the epoch: its entries do not cover it.
    const epoch = this.#opts.watched?.epoch;
    if (seeds) opts.onVersion = (kind, namespace, v) => versions.set(scopeKey(kind, namespace), v);
    this.#censusWanted = this.#previous === undefined || (this.#census?.absentFound ?? 0) > 0;
    this.#census = undefined;
    // Rule 7: once synced, the watches stand for the listing, and their index for its entries.
    const watched = this.#opts.watched;
    const cached = this.#previous === undefined ? undefined : watched?.inventory();
    const carried = cached ? watched?.entries() : undefined;
    const mark = this.#quiet.cycle(watched, cached !== undefined);
    const result = (cached ? Promise.resolve(cached) : list(opts)).then(
      (inventory): Inventory | undefined => {
        // Writes before the listing began are in it: forget them.
        for (const [id, seq] of this.#writes) if (seq < startSeq) this.#writes.delete(id);
        if (cold.ended()) return undefined; // judge-only: its verdicts are in the memo and cold passes
        if (!cached) this.#opts.onCounted?.(inventory.objects.length);
        this.#previous = carried ?? previousEntries(inventory);
        this.#owners = deploymentsWithObjects(inventory);
        this.#ownersKept = keeps;
        if (seeds && this.#opts.watched?.epoch === epoch)
          this.#opts.watched?.start({ entries: this.#previous, versions });
        return inventory;
      },
      (err: unknown) => void onError(err),
    );
    const listing: Listing = {
      startSeq,
      namespaces: new Set(this.#opts.namespaces),
      keeps,
      result,
      watched: mark,
      settled: false,
    };
    this.#listing = listing;
    void result.finally(() => {
      listing.settled = true;
    });
    this.#served.clear();
    return result;
  }

  /** The latest listing when it succeeded, for the orphan pass. */
  async latest(): Promise<Inventory | undefined> {
    return this.#listing?.result;
  }

  /**
   * Whether a deployment owns objects (volumes aside) by the latest listing that succeeded;
   * undefined before one has, or when that listing kept no entries for it (rule 9).
   */
  ownsObjects(deploymentId: string): boolean | undefined {
    if (this.#ownersKept && !this.#ownersKept(deploymentId)) return undefined;
    return this.#owners?.has(deploymentId);
  }

  /**
   * Looks objects up by kind, namespace and name in the latest listing that succeeded, each
   * (kind, namespace) as last listed (waiting for the current listing when none has succeeded yet;
   * from the watches, the entries as they now stand); undefined when no listing has succeeded.
   * Its entries keep the ownership labels: what reconcile/identity.ts reads. No request, no copy.
   */
  async finder(): Promise<ObjectFinder | undefined> {
    if (this.#previous === undefined) await this.#listing?.result;
    const previous = this.#previous;
    return previous && ((kind, namespace, name) => previousEntry(previous, kind, namespace, name));
  }

  /**
   * Rule 8: whether a resync may leave `deploymentId` alone this cycle: the cycle is not a full
   * one, its latest reconcile took its slice from the watches, no watch has stopped being synced
   * since, and no event has changed any object of it since then (this agent's own writes come
   * back as events, so a deployment written is reconciled once more).
   */
  quiet(deploymentId: string): boolean {
    return this.#quiet.quiet(deploymentId, this.#opts.watched);
  }

  /** Ends the watches (rule 7) for good: a shutdown. */
  stopWatching(): void {
    this.#opts.watched?.stop();
  }

  /** Cache hits and misses of per-deployment listings so far (for tests and benchmarks). */
  get stats(): { hits: number; misses: number } {
    return { hits: this.#hits, misses: this.#misses };
  }

  /**
   * Wraps `resources`: per-deployment listings come from the cycle's listing when it is current.
   * With `listDirectly` (a deployment whose desired state just changed) the reconcile lists its own
   * objects at once instead of waiting for the cycle's listing; its writes are tracked either way.
   */
  wrap(resources: InventoryResources, opts: { listDirectly?: boolean } = {}): InventoryResources {
    return {
      findOwned: (obj, listenerId, o) => resources.findOwned(obj, listenerId, o),
      applyAll: (objects, o) =>
        this.#tracked(objects, () => resources.applyAll(objects, this.#withCensus(o))),
      deleteAll: (objects, o) => this.#tracked(objects, () => resources.deleteAll(objects, o)),
      listOwned: async (o) => {
        if (opts.listDirectly && o.deploymentId !== undefined) this.#quiet.read(o.deploymentId, undefined);
        return (opts.listDirectly ? undefined : await this.#slice(o)) ?? resources.listOwned(o);
      },
    };
  }

  async #slice(opts: ListOwnedOptions): Promise<Inventory | undefined> {
    const listing = this.#listing;
    const id = opts.deploymentId;
    const usable =
      listing !== undefined &&
      id !== undefined &&
      opts.kinds === undefined &&
      opts.listenerId === this.#opts.listenerId &&
      opts.namespaces.every((ns) => listing.namespaces.has(ns)) &&
      (listing.keeps === undefined || listing.keeps(id));
    if (!usable) return undefined;
    const inventory = await listing.result;
    const wrote = this.#writes.get(id);
    if (!inventory || (wrote !== undefined && wrote > listing.startSeq) || this.#served.has(id)) {
      this.#misses += 1;
      this.#quiet.read(id, undefined);
      return undefined;
    }
    this.#hits += 1;
    this.#served.add(id);
    this.#quiet.read(id, listing.watched);
    const wanted = new Set(opts.namespaces);
    return inventoryOf(
      (inventory.byDeployment.get(id) ?? []).filter((o) => wanted.has(o.metadata.namespace ?? '')),
    );
  }

  /** `o` with this cycle's census, when the cycle takes one and the call has a listing (rule 6). */
  #withCensus(o: ApplyOptions | undefined): ApplyOptions | undefined {
    if (!o?.live || o.census || !this.#censusWanted || !this.#opts.census) return o;
    if (this.#census === undefined && this.#opts.censusFits?.() === false) return o;
    this.#census ??= this.#opts.census();
    return { ...o, census: this.#census };
  }

  /** Runs a write call; any deployment it touched (or may have touched) lists for itself until the next listing. */
  async #tracked(objects: readonly KubeObject[], call: () => Promise<ChangeSet>): Promise<ChangeSet> {
    let touched = true;
    try {
      const cs = await call();
      touched = hasChanges(cs) || cs.entries.some((e) => e.error !== undefined);
      return cs;
    } finally {
      if (touched) {
        this.#seq += 1;
        for (const o of objects) {
          const id = o.metadata.labels?.[LABELS.deploymentId];
          if (id) this.#writes.set(id, this.#seq);
        }
      }
    }
  }
}
