/**
 * A cycle's slim listing of one kind in one namespace, reusing what the previous listing made.
 *
 * The API server moves an object's resourceVersion on every write (a status write's too), so an
 * object listed with the uid and resourceVersion it had in the previous listing is the object
 * that listing saw: its slim entry (compact-live.ts) is the same, and the previous one is used as
 * it is, with no new entry made and no version digested again.
 *
 * Most kinds' slim entries are metadata only, so they are always listed as metadata only. The
 * workloads health reads (Deployment, StatefulSet) keep replica counts and conditions, which a
 * metadata-only listing lacks; they used to be listed whole at every cycle (most of an idle
 * cycle's parsing). Now, where the previous listing
 * had some of a workload kind in a namespace, that kind is listed as metadata only too (about half
 * the bytes: managedFields stay), unchanged objects keep their entries, and the few that changed
 * are read again whole; when more than CARRY_READ_LIMIT changed, listing the kind whole costs less
 * than reading each, and that is done instead. Where the previous listing had none (the first
 * listing, or a cold start's, made before anything was applied) it is listed whole at once.
 *
 * A cold start's listing with a judge (ADR 0008) lists every kind whole, in pages, and hands each
 * page to the judge before its items are slimmed: the judge compares them with what their
 * deployments render and fills the apply memo, so that no object has to be read again.
 */
import pMap from 'p-map';
import { type ListingPool, slim, slimKeepsMoreThanMetadata } from './compact-live.ts';
import type { KindInfo } from '../objects/kinds.ts';
import type { Inventory } from './list.ts';
import { LIST_PAGE_SIZE } from './list-page-size.ts';
import type { ObjectClient } from './object-client.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import { isStub, type Keeps, kept, otherShardEntry } from './shard-entries.ts';

/** A listing's entries by kind and namespace (`scopeOf`), then by name. */
export type PreviousEntries = ReadonlyMap<string, ReadonlyMap<string, KubeObject>>;

function scopeOf(kind: string, namespace: string): string {
  return `${kind}/${namespace}`;
}

/** The entry of one object in `previous`, if the listing held it. */
export function previousEntry(
  previous: PreviousEntries,
  kind: string,
  namespace: string,
  name: string,
): KubeObject | undefined {
  return previous.get(scopeOf(kind, namespace))?.get(name);
}

/** The entries of one kind in one namespace in `previous`, by name (none: empty). */
export function previousScope(
  previous: PreviousEntries,
  kind: string,
  namespace: string,
): ReadonlyMap<string, KubeObject> {
  return previous.get(scopeOf(kind, namespace)) ?? new Map();
}

/**
 * Puts one (kind, namespace)'s entries, just listed, in place of the ones `previous` held for it:
 * the previous entries of a scope are not needed once it is listed again.
 */
export function replaceScope(
  previous: Map<string, ReadonlyMap<string, KubeObject>>,
  kind: string,
  namespace: string,
  entries: readonly KubeObject[],
): void {
  previous.set(scopeOf(kind, namespace), new Map(entries.map((o) => [o.metadata.name ?? '', o])));
}

/** The entries of a complete slim listing, for the next listing of the same namespaces. */
export function previousEntries(inventory: Inventory): PreviousEntries {
  const out = new Map<string, Map<string, KubeObject>>();
  for (const o of inventory.objects) {
    const scope = scopeOf(o.kind, o.metadata.namespace ?? '');
    let entries = out.get(scope);
    if (!entries) {
      entries = new Map();
      out.set(scope, entries);
    }
    entries.set(o.metadata.name ?? '', o);
  }
  return out;
}

/**
 * Sees each page of whole objects of a cold start's listing before it is slimmed (ADR 0008); may
 * wait (for the desired states of the page's deployments).
 */
export type PageJudge = (items: readonly KubeObject[]) => Promise<void> | void;

/** Changed workloads of one (namespace, kind) read one by one; past this the kind is listed whole. */
export const CARRY_READ_LIMIT = 20;

/** Ends a metadata-only list of workloads once more than CARRY_READ_LIMIT changed (`listSlim`). */
class PastCarryLimit extends Error {
  constructor() {
    super('more changed workloads than are read one by one');
  }
}

/** Reads of changed workloads in flight at once (within one list call's turn). */
const READ_CONCURRENCY = 4;

export interface SlimListing {
  client: ObjectClient;
  kind: KindInfo;
  namespace: string;
  selector: string;
  fieldManager: string;
  pool: ListingPool;
  /** The previous complete slim listing of the same namespaces, when there is one. */
  previous: PreviousEntries | undefined;
  /** With no previous entries for this kind and namespace: list whole and judge each page. */
  judge?: PageJudge | undefined;
  /** With `judge`: whether a judged item gets an entry (false: judge-only, nothing kept). */
  keepsEntries?: (() => boolean) | undefined;
  /** With `judge`: told when a list starts over (its pages are judged again). */
  onRestart?: (() => void) | undefined;
  /** With `judge`: the share of the usual page size to ask for now (list.ts). */
  pageShare?: (() => number) | undefined;
  /** Refuses an item the listing cannot use (list.ts: one without a name); throws. */
  check: (item: KubeObject) => void;
  /** Told the resourceVersion of the list the entries come from (the last, when listed twice). */
  onVersion?: ((resourceVersion: string) => void) | undefined;
  /** Whose objects get entries (shard-entries.ts); another shard's get a stub or none. */
  keeps?: Keeps | undefined;
}

/**
 * Whether `before` is the entry of `item` as it still stands (the same uid at the same
 * resourceVersion). A stub of another shard's object (shard-entries.ts) never is: the shard may
 * have been taken since, and then the object needs a whole entry.
 */
export function unchanged(item: KubeObject, before: KubeObject | undefined): before is KubeObject {
  const version = item.metadata.resourceVersion;
  return (
    before !== undefined &&
    !isStub(before) &&
    typeof version === 'string' &&
    version !== '' &&
    before.metadata.resourceVersion === version &&
    before.metadata.uid === item.metadata.uid
  );
}

/** The slim entries of one kind in one namespace (see the module comment). */
export async function listSlim(l: SlimListing): Promise<KubeObject[]> {
  const { client, kind, namespace, selector, fieldManager, pool, keeps } = l;
  const whole = (item: KubeObject) => {
    l.check(item);
    return kept(item, keeps) ? slim(item, fieldManager, pool) : otherShardEntry(item);
  };
  const workload = slimKeepsMoreThanMetadata(kind.kind);
  const before = l.previous?.get(scopeOf(kind.kind, namespace));
  const cold = before === undefined || before.size === 0;
  const versioned = l.onVersion ? { onVersion: l.onVersion } : {};
  if (cold && l.judge) {
    const keeps = l.keepsEntries;
    const judged = keeps
      ? (item: KubeObject) => {
          if (keeps()) return whole(item);
          l.check(item);
          return undefined;
        }
      : whole;
    return client.list(kind.apiVersion, kind.kind, namespace, selector, judged, {
      // A workload is several times the size of the other kinds' objects: pages of it as big.
      pageSize: () =>
        (workload ? LIST_PAGE_SIZE.wholeObjects : LIST_PAGE_SIZE.coldStart) * (l.pageShare?.() ?? 1),
      onPage: l.judge,
      ...(l.onRestart ? { onRestart: l.onRestart } : {}),
      ...versioned,
    });
  }
  if (workload && cold) {
    return client.list(kind.apiVersion, kind.kind, namespace, selector, whole, versioned);
  }
  // Changed workloads, as placeholders naming the object (the listed item itself is let go). Past
  // the limit the metadata-only list stops and the kind is listed whole: its items were once kept
  // to the end of the list, some 14 KB each, which after a cold pass (every workload changed) made
  // a burst of hundreds of MB at 10,000 deployments (bench/README.md, issue 44).
  const changed = new Set<KubeObject>();
  let changes = 0;
  let listed: KubeObject[];
  try {
    listed = await listChanged();
  } catch (err) {
    if (!(err instanceof PastCarryLimit)) throw err;
    return client.list(kind.apiVersion, kind.kind, namespace, selector, whole, versioned);
  }
  if (changes === 0) return listed;
  const read = new Map<KubeObject, KubeObject | undefined>();
  await pMap(
    changed,
    async (placeholder) => {
      const got = await client.get(placeholder);
      // Gone since it was listed: the listing no longer has it (as a later listing would not).
      read.set(placeholder, got === undefined ? undefined : whole(got));
    },
    { concurrency: READ_CONCURRENCY },
  );
  return listed.flatMap((item) => {
    if (!changed.has(item)) return [item];
    const fresh = read.get(item);
    return fresh === undefined ? [] : [fresh];
  });

  function listChanged(): Promise<KubeObject[]> {
    return client.list(
      kind.apiVersion,
      kind.kind,
      namespace,
      selector,
      (item) => {
        l.check(item);
        // Another shard's object: never read again, and no entry but a stub.
        if (!kept(item, keeps)) return otherShardEntry(item);
        const entry = before?.get(item.metadata.name ?? '');
        if (unchanged(item, entry)) return entry;
        // A metadata-only entry, or a server without metadata-only answers sent the object whole.
        if (!workload || item.spec !== undefined || item.status !== undefined) {
          return slim(item, fieldManager, pool);
        }
        changes += 1;
        if (changes > CARRY_READ_LIMIT) throw new PastCarryLimit();
        const placeholder: KubeObject = {
          apiVersion: item.apiVersion,
          kind: item.kind,
          metadata: { name: item.metadata.name, namespace: item.metadata.namespace ?? namespace },
        };
        changed.add(placeholder);
        return placeholder;
      },
      {
        metadataOnly: true,
        ...(workload ? { pageSize: LIST_PAGE_SIZE.workloadMetadata } : {}),
        ...versioned,
      },
    );
  }
}
