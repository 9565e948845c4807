/**
 * The parts of the watch cache (watch-cache.ts) its users name: its options, the seed it may start
 * from, the key of a scope (a kind in a namespace), its counters, the expiry it relists on, and
 * one watch of a scope.
 */
import type { BackoffPolicy } from '../backoff.ts';
import type { KindInfo } from '../objects/kinds.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import type { ObjectClient } from './object-client.ts';
import type { Keeps } from './shard-entries.ts';
import type { PreviousEntries } from './slim-listing.ts';
import type { WatchEvent } from './watch-events.ts';
import { slimKeepsMoreThanMetadata } from './compact-live.ts';

/** What the cache needs of the Kubernetes client. */
export type WatchClient = Pick<ObjectClient, 'list' | 'watch'>;

export interface WatchCacheOptions {
  client: WatchClient;
  namespaces: readonly string[];
  listenerId: string;
  /** Kinds watched (default LISTED_KINDS, what a cycle's listing lists). */
  kinds?: readonly KindInfo[];
  fieldManager?: string;
  /** How long each watch asks the server to stay open (default 300 s; jittered up to 10% longer). */
  timeoutSeconds?: number;
  /** Told of each failed list or watch of a scope (its next list follows a backoff). */
  onFailure?: (kind: KindInfo, namespace: string, err: unknown) => void;
  /**
   * A cheap request made each time the cache stands for a cycle's listing: an idle cycle asks the
   * API server nothing else, and a watch stream open before it became unreachable can go on
   * looking healthy, so this is what tells readiness (through the client's results) it is gone.
   */
  probe?: () => Promise<unknown>;
  /**
   * Whose objects get entries, asked as each object arrives (a sharded replica's held shards now,
   * shard-entries.ts); another shard's get a stub or none. Default: every object. Tell the cache
   * of each change of it (`WatchCache.reshard`).
   */
  keeps?: Keeps | undefined;
  /** The wait before a failed scope lists again (default WATCH_BACKOFF). */
  backoff?: BackoffPolicy;
  random?: () => number;
}

/** A listing to start from (`WatchCache.start`): its entries, and each scope's list version by `scopeKey`. */
export interface WatchSeed {
  entries: PreviousEntries;
  versions: ReadonlyMap<string, string>;
}

/** The key of a kind in a namespace in `WatchSeed.versions`. */
export function scopeKey(kind: string, namespace: string): string {
  return `${kind}/${namespace}`;
}

/** The 410 Gone of an expired resourceVersion: the scope must list again. */
export class WatchExpiredError extends Error {
  constructor(kind: string, namespace: string) {
    super(`watch of ${kind} in ${namespace} expired (410 Gone)`);
    this.name = 'WatchExpiredError';
  }
}

/** One kind in one namespace. */
export interface Scope {
  kind: KindInfo;
  namespace: string;
  /** Slim entries by name. */
  entries: Map<string, KubeObject>;
  /** Where the next watch starts: the list's resourceVersion, then each event's. */
  version: string | undefined;
  synced: boolean;
}

/** Counts since start, for tests, the bench and the debug log. */
export interface WatchCacheStats {
  lists: number;
  watches: number;
  events: number;
  /** Lists made again after an expiry or a failure. */
  relists: number;
  failures: number;
}

/**
 * One watch of `scope` from its resourceVersion until the server ends it (after the options'
 * timeout, jittered up to 10% longer so a fleet's watches do not end together) or `signal` aborts;
 * each event goes to `onEvent`. Returns the number of events it brought.
 */
export async function watchScope(
  o: Pick<WatchCacheOptions, 'client' | 'timeoutSeconds' | 'random'>,
  scope: Scope,
  selector: string,
  signal: AbortSignal,
  onEvent: (event: WatchEvent) => void,
): Promise<number> {
  const { kind, namespace } = scope;
  const random = o.random ?? Math.random;
  const timeoutSeconds = Math.round((o.timeoutSeconds ?? 300) * (1 + 0.1 * random()));
  let events = 0;
  await o.client.watch(
    kind.apiVersion,
    kind.kind,
    namespace,
    selector,
    scope.version ?? '',
    (event) => {
      events += 1;
      onEvent(event);
    },
    { metadataOnly: !slimKeepsMoreThanMetadata(kind.kind), timeoutSeconds, signal },
  );
  return events;
}
