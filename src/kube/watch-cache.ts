/**
 * The owned objects kept current by watches (ADR 0014), so that a cycle's listing can come from
 * memory: per namespace and listed kind, one list (the agent's first listing, whose entries and
 * versions seed the cache), then a watch with bookmarks from the list's resourceVersion, as
 * controller-runtime's informers and Argo CD's cluster cache do. Each event
 * updates the scope's slim entries (the same entries a slim listing makes, compact-live.ts):
 * ADDED and MODIFIED replace the entry, DELETED removes it, BOOKMARK moves the resourceVersion.
 *
 * A scope is *synced* from its list until its watch expires (an ERROR event with 410 Gone) or
 * breaks (an error, or a stream that will not stay open): it then lists again after a backoff
 * (WATCH_BACKOFF). A watch the server ends in the ordinary way (its timeout) is opened again from
 * the latest resourceVersion, with no list. `inventory()` answers only while every scope is
 * synced; otherwise the cycle lists as it did without watches (observed-state.ts).
 *
 * Each event that changes an entry is numbered, and the latest number per deployment kept
 * (`touchedAt`), with an `epoch` that moves whenever a scope loses sync: what rule 8 of
 * observed-state.ts reads to leave a quiet deployment alone.
 *
 * Workloads are watched whole (their slim entries keep replica counts and conditions); every
 * other kind as metadata only, so a Secret's data never reaches the agent through a watch.
 *
 * A sharded replica's cache keeps entries of the held shards' deployments only (`keeps`,
 * shard-entries.ts): another shard's objects are dropped as they are listed or told. When a shard
 * is taken (`reshard`), its objects were never kept, so every scope lists again (cycles list
 * meanwhile); when one is given up, its entries go at once.
 */
import { setTimeout as delay } from 'node:timers/promises';
import pMap from 'p-map';
import { backoffDelay, WATCH_BACKOFF } from '../backoff.ts';
import { LISTED_KINDS } from '../objects/kinds.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import { ListingPool, slim, slimKeepsMoreThanMetadata } from './compact-live.ts';
import { FIELD_MANAGER, ownedSelector } from './labels.ts';
import { type Inventory, inventoryOf, LIST_CONCURRENCY } from './list.ts';
import { TouchLog } from './touch-log.ts';
import type { WatchEvent } from './watch-events.ts';
import { dropOtherShards, kept, otherShardEntry } from './shard-entries.ts';
import { type PreviousEntries, previousScope, unchanged } from './slim-listing.ts';
import {
  type Scope,
  scopeKey,
  type WatchCacheOptions,
  type WatchCacheStats,
  WatchExpiredError,
  type WatchSeed,
  watchScope,
} from './watch-scope.ts';

export type { WatchCacheOptions, WatchCacheStats, WatchClient, WatchSeed } from './watch-scope.ts';
export { scopeKey, WatchExpiredError } from './watch-scope.ts';

/** A watch stream that ends this soon after it opened, and brought nothing, counts as broken. */
const SHORTEST_WATCH_MS = 1000;

export class WatchCache {
  readonly #o: WatchCacheOptions;
  readonly #scopes: Scope[];
  readonly #selector: string;
  readonly #fieldManager: string;
  /** Interns the strings and ownership labels every entry shares, for the life of the cache. */
  readonly #pool = new ListingPool();
  readonly #abort = new AbortController();
  #started = false;
  /** The events that changed an entry, numbered, and per deployment the latest. */
  readonly #touches = new TouchLog();
  /** Moves whenever a scope stops being synced: events may have been missed since. */
  #epoch = 0;
  /** Replaced at each shard taken: a list begun before is done again, a watch open before ends. */
  #round = new AbortController();
  readonly #stats: WatchCacheStats = { lists: 0, watches: 0, events: 0, relists: 0, failures: 0 };

  constructor(opts: WatchCacheOptions) {
    this.#o = opts;
    this.#selector = ownedSelector(opts.listenerId);
    this.#fieldManager = opts.fieldManager ?? FIELD_MANAGER;
    const kinds = opts.kinds ?? LISTED_KINDS;
    this.#scopes = opts.namespaces.flatMap((namespace) =>
      kinds.map((kind) => ({ kind, namespace, entries: new Map(), version: undefined, synced: false })),
    );
  }

  /**
   * Lists every scope (LIST_CONCURRENCY at a time) and keeps each current by its watch until
   * `stop`. Once only; never throws (failures are retried and told to `onFailure`). With `seed`,
   * a complete slim listing just made (its entries, and each scope's list resourceVersion), the
   * scopes it has a version for are not listed again: their watches start from that version.
   */
  start(seed?: WatchSeed): void {
    if (this.#started) return;
    this.#started = true;
    const signal = this.#abort.signal;
    for (const scope of this.#scopes) {
      const version = seed?.versions.get(scopeKey(scope.kind.kind, scope.namespace));
      if (version === undefined || !seed) continue;
      const entries = previousScope(seed.entries, scope.kind.kind, scope.namespace);
      scope.entries = new Map(entries);
      scope.version = version;
      scope.synced = true;
    }
    void pMap(
      this.#scopes.filter((scope) => !scope.synced),
      async (scope) => {
        try {
          await this.#list(scope);
        } catch (err) {
          this.#failed(scope, err);
        }
      },
      { concurrency: LIST_CONCURRENCY, signal },
    )
      .then(() => Promise.all(this.#scopes.map((scope) => this.#keep(scope))))
      .catch(() => undefined);
  }

  /**
   * The held shards changed (`keeps` answers differently now): entries of deployments no longer
   * kept go (a stub stays where shard-entries.ts keeps one); when a shard was `gained`, every
   * scope stops being synced and lists again, since its objects were dropped as they came.
   */
  reshard(gained: boolean): void {
    const keeps = this.#o.keeps;
    if (!keeps) return;
    for (const scope of this.#scopes) dropOtherShards(scope.entries, keeps);
    if (!gained) return;
    this.#round.abort();
    this.#round = new AbortController();
    this.#epoch += 1;
    for (const scope of this.#scopes) scope.synced = false;
  }

  /** Ends every watch; the cache then answers no more. */
  stop(): void {
    this.#abort.abort(new Error('watch cache stopped'));
  }

  get started(): boolean {
    return this.#started;
  }

  /** Whether every scope is synced (`inventory()` answers). */
  get synced(): boolean {
    return !this.#abort.signal.aborted && this.#scopes.every((s) => s.synced);
  }

  get stats(): Readonly<WatchCacheStats> {
    return { ...this.#stats };
  }

  /**
   * Every owned object as the watches last told, as a slim listing would hold them (the same
   * entries while their objects are unchanged); undefined unless every scope is synced. No request.
   */
  inventory(): Inventory | undefined {
    if (!this.synced) return undefined;
    // Its failure is the client's to report (readiness); the cycle goes on from the cache.
    this.#o.probe?.().catch(() => {});
    const objects: KubeObject[] = [];
    for (const scope of this.#scopes) for (const entry of scope.entries.values()) objects.push(entry);
    return inventoryOf(objects);
  }

  /**
   * The entries by kind and namespace, then by name, as they stand (they keep changing with the
   * events); undefined unless every scope is synced. What `inventory()` holds, without a copy.
   */
  entries(): PreviousEntries | undefined {
    if (!this.synced) return undefined;
    return new Map(this.#scopes.map((s) => [scopeKey(s.kind.kind, s.namespace), s.entries]));
  }

  /** The number of the latest event that changed an entry (0 before any). */
  get seq(): number {
    return this.#touches.seq;
  }

  /** Moves each time a scope stops being synced (events of it may have been missed). */
  get epoch(): number {
    return this.#epoch;
  }

  /** The number of the latest event that changed an object of `deploymentId` (0: none since start). */
  touchedAt(deploymentId: string): number {
    return this.#touches.touchedAt(deploymentId);
  }

  /** The scope's resourceVersion (for tests: bookmarks move it). */
  versionOf(kind: string, namespace: string): string | undefined {
    return this.#scopes.find((s) => s.kind.kind === kind && s.namespace === namespace)?.version;
  }

  /** Lists one scope whole (metadata only but for workloads), keeping entries still current. */
  async #list(scope: Scope): Promise<void> {
    const { kind, namespace } = scope;
    // A shard taken while it lists (`reshard`): its objects may have been dropped, so list again.
    let round: AbortController;
    do {
      round = this.#round;
      const before = scope.entries;
      let version: string | undefined;
      if (this.#stats.lists >= this.#scopes.length) this.#stats.relists += 1;
      this.#stats.lists += 1;
      const listed = await this.#o.client.list(
        kind.apiVersion,
        kind.kind,
        namespace,
        this.#selector,
        (item) => this.#entryOf(item, before.get(item.metadata.name ?? '')),
        {
          metadataOnly: !slimKeepsMoreThanMetadata(kind.kind),
          onVersion: (v) => {
            version = v;
          },
        },
      );
      if (version === undefined)
        throw new Error(`list of ${kind.kind} in ${namespace} had no resourceVersion`);
      scope.entries = new Map(listed.map((o) => [o.metadata.name ?? '', o]));
      scope.version = version;
    } while (round !== this.#round);
    scope.synced = true;
  }

  /** The entry of a listed or told object: `before` while unchanged, a stub or none for another shard's. */
  #entryOf(item: KubeObject, before: KubeObject | undefined): KubeObject | undefined {
    if (!kept(item, this.#o.keeps)) return otherShardEntry(item);
    return unchanged(item, before) ? before : slim(item, this.#fieldManager, this.#pool);
  }

  /** Watches one scope, and lists it again after a backoff whenever its watch fails, until stopped. */
  async #keep(scope: Scope): Promise<void> {
    const signal = this.#abort.signal;
    let failures = 0;
    while (!signal.aborted) {
      const round = this.#round;
      try {
        if (!scope.synced) await this.#list(scope);
        const openedAt = Date.now();
        const events = await this.#watch(scope);
        if (events > 0 || Date.now() - openedAt >= SHORTEST_WATCH_MS) {
          failures = 0;
          continue;
        }
        // Ended at once with nothing: the server will not keep it open; wait before the next.
        failures += 1;
      } catch (err) {
        if (signal.aborted) return;
        // Ended by a shard taken (`reshard`): no failure, the scope lists again at once.
        if (round.signal.aborted) continue;
        failures += 1;
        this.#failed(scope, err);
      }
      try {
        const wait = backoffDelay(this.#o.backoff ?? WATCH_BACKOFF, failures, this.#o.random);
        await delay(wait, undefined, { signal });
      } catch {
        return;
      }
    }
  }

  /** One watch of a scope from its resourceVersion, until the server ends it; the events it brought. */
  #watch(scope: Scope): Promise<number> {
    this.#stats.watches += 1;
    const signal = AbortSignal.any([this.#abort.signal, this.#round.signal]);
    return watchScope(this.#o, scope, this.#selector, signal, (event) => this.#apply(scope, event));
  }

  /** One event into a scope's entries; an ERROR event throws (410: WatchExpiredError). */
  #apply(scope: Scope, event: WatchEvent): void {
    const { object } = event;
    if (event.type === 'ERROR') {
      if (object?.code === 410) throw new WatchExpiredError(scope.kind.kind, scope.namespace);
      throw new Error(`watch of ${scope.kind.kind} in ${scope.namespace} failed (${object?.code ?? '?'})`);
    }
    const version = object?.metadata?.resourceVersion;
    if (typeof version !== 'string' || version === '') return;
    this.#stats.events += 1;
    if (event.type !== 'BOOKMARK') {
      const name = object.metadata.name ?? '';
      const before = scope.entries.get(name);
      if (event.type === 'DELETED') {
        scope.entries.delete(name);
        this.#touches.touch(before, object);
      } else if (!unchanged(object, before)) {
        const entry = this.#entryOf(object, before);
        if (entry) scope.entries.set(name, entry);
        else scope.entries.delete(name);
        this.#touches.touch(before, object);
      }
    }
    scope.version = version;
  }

  #failed(scope: Scope, err: unknown): void {
    if (scope.synced) this.#epoch += 1;
    scope.synced = false;
    this.#stats.failures += 1;
    this.#o.onFailure?.(scope.kind, scope.namespace, err);
  }
}
