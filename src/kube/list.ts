/**
 * Inventory: what mooring owns, found by listing every kind we manage with our labels in each
 * namespace (one list call per page of a kind in a namespace; list-page-size.ts sizes the pages). A listing that
 * fails or returns an unparsable item is refused whole: nothing may be pruned from half a picture.
 */
import pLimit from 'p-limit';
import { MooringError } from '../errors.ts';
import { type PageJudge, type PreviousEntries, listSlim } from './slim-listing.ts';
import { compactLive, ListingPool } from './compact-live.ts';
import { kubeError } from './errors.ts';
import { type KindInfo, LISTED_KINDS } from '../objects/kinds.ts';
import { LABELS } from '../labels.ts';
import { FIELD_MANAGER, ownedSelector } from './labels.ts';
import type { ObjectClient } from './object-client.ts';
import type { Keeps } from './shard-entries.ts';
import { formatObjectId, objectId } from '../objects/object-id.ts';
import type { KubeObject } from '../objects/kube-object.ts';

export interface ListOwnedOptions {
  namespaces: readonly string[];
  listenerId: string;
  /** Only this deployment's objects. */
  deploymentId?: string;
  /** Kinds to list (default: `LISTED_KINDS`, every kind mooring manages but the exposure kinds). */
  kinds?: readonly KindInfo[];
  /**
   * List objects slim (`slim` in compact-live.ts): a cycle's listing of everything, held while the
   * cycle runs. A deployment listing its own objects because they changed gets them whole.
   */
  slim?: boolean;
  /**
   * With `slim`: the entries of the previous complete slim listing of the same namespaces
   * (`previousEntries`). Objects unchanged since keep their entries, and Deployments and
   * StatefulSets are listed as metadata only too (slim-listing.ts).
   */
  previous?: PreviousEntries;
  /**
   * With `slim`: a cold start's judge (ADR 0008). Kinds without previous entries are then listed
   * whole, and each page is compared before it is slimmed (slim-listing.ts).
   */
  judge?: PageJudge;
  /**
   * With `judge`: whether the judged items get entries; once it answers false, items are judged
   * and let go (a judge-only listing, observed-state.ts rule 5).
   */
  keepsEntries?: () => boolean;
  /** With `judge`: told when one of the listing's lists starts over (continue token expired). */
  onRestart?: () => void;
  /**
   * Kinds listed as well where the agent may lack the right to list them: a list call of one of
   * them that fails leaves that kind out (`onOptionalFailure`) instead of refusing the listing.
   * Objects not seen are never pruned, so leaving a kind out loses nothing but its clean-up.
   */
  optionalKinds?: readonly KindInfo[];
  onOptionalFailure?: (kind: KindInfo, namespace: string, err: unknown) => void;
  /** A reconcile's signal (ResourceManager binds the client to it): an abort cuts the listing. */
  signal?: AbortSignal;
  /**
   * List calls in flight at once (default LIST_CONCURRENCY), or a function asked again as each call
   * ends: fewer while the heap is tight, since each holds a page of parsed objects until judged.
   */
  concurrency?: number | (() => number);
  /**
   * With `judge`: the share of the usual page size to ask for, asked again before each page
   * (default 1): smaller pages while the heap is tight, for the same reason.
   */
  pageShare?: () => number;
  /** Told each (kind, namespace)'s list resourceVersion (where a watch of it may start). */
  onVersion?: (kind: string, namespace: string, resourceVersion: string) => void;
  /**
   * Told each (kind, namespace)'s entries as soon as that scope is listed, before the whole listing
   * ends (not for an optional kind whose list failed): the holder of `previous` can let that
   * scope's previous entries go then, instead of holding two listings until the end.
   */
  onScope?: (kind: string, namespace: string, entries: readonly KubeObject[]) => void;
  /**
   * With `slim`: whose objects get entries (a sharded replica's held shards, shard-entries.ts);
   * another shard's objects get a stub or none. Default: every object.
   */
  keeps?: Keeps | undefined;
}

/** A complete listing of owned objects. */
export interface Inventory {
  objects: KubeObject[];
  byId: Map<string, KubeObject>;
  /** Objects per deployment id (from the `mooring.dev/deployment-id` label). */
  byDeployment: Map<string, KubeObject[]>;
}

export function inventoryOf(objects: KubeObject[]): Inventory {
  const byDeployment = new Map<string, KubeObject[]>();
  for (const o of objects) {
    const dep = o.metadata.labels?.[LABELS.deploymentId];
    if (!dep) continue;
    const list = byDeployment.get(dep);
    if (list) list.push(o);
    else byDeployment.set(dep, [o]);
  }
  // Made on first use: the cycle's listing of everything is seldom looked up by id (a failed
  // delete, the orphan pass's deletes), and an id string per object was a large part of its
  // memory at 10,000 deployments (bench/README.md, "Measured decisions").
  let byId: Map<string, KubeObject> | undefined;
  return {
    objects,
    get byId() {
      byId ??= new Map(objects.map((o) => [objectId(o), o]));
      return byId;
    },
    byDeployment,
  };
}

async function listKind(
  client: ObjectClient,
  k: KindInfo,
  namespace: string,
  selector: string,
  fieldManager: string,
  pool: ListingPool,
  slimmed: boolean,
  previous: PreviousEntries | undefined,
  cold: Pick<ListOwnedOptions, 'judge' | 'keepsEntries' | 'onRestart' | 'pageShare'>,
  onVersion: ((resourceVersion: string) => void) | undefined,
  keeps: Keeps | undefined,
): Promise<KubeObject[]> {
  const where = formatObjectId(k.kind, namespace, '*');
  const check = (item: KubeObject): void => {
    if (typeof item.metadata?.name !== 'string' || item.metadata.name === '') {
      throw new MooringError(
        'MOORING_E_PRUNE_LISTING_INCOMPLETE',
        `${where}: list returned an item without a name: inventory refused`,
        { details: { kind: k.kind, namespace } },
      );
    }
  };
  try {
    if (slimmed) {
      return await listSlim({
        client,
        kind: k,
        namespace,
        selector,
        fieldManager,
        pool,
        previous,
        judge: cold.judge,
        keepsEntries: cold.keepsEntries,
        onRestart: cold.onRestart,
        pageShare: cold.pageShare,
        check,
        onVersion,
        keeps,
      });
    }
    return await client.list(
      k.apiVersion,
      k.kind,
      namespace,
      selector,
      (item) => {
        check(item);
        return compactLive(item, fieldManager, pool);
      },
      onVersion ? { onVersion } : {},
    );
  } catch (err) {
    // The refusal `check` raised for a nameless item is already the answer; any other failure
    // (including a MooringError of the client's, e.g. its credentials) is a list that failed.
    if (err instanceof MooringError && err.code === 'MOORING_E_PRUNE_LISTING_INCOMPLETE') throw err;
    const cause = kubeError(err, where, 'list');
    throw new MooringError(
      'MOORING_E_PRUNE_LISTING_INCOMPLETE',
      `${where}: list failed (${cause.code}): inventory incomplete, nothing pruned`,
      { details: { kind: k.kind, namespace, cause: cause.code, status: cause.details.status } },
    );
  }
}

/** List calls of one listing in flight at once. */
export const LIST_CONCURRENCY = 4;

/**
 * Lists owned objects; throws MOORING_E_PRUNE_LISTING_INCOMPLETE when any list call fails. At
 * most LIST_CONCURRENCY list calls at a time over every (namespace, kind), each page held only
 * until `each` has reduced it (list-page-size.ts sizes the pages). Listing every kind of a
 * namespace at once held all their answers together and raised peak memory; one call at a time
 * made a large cycle wait on every round trip in turn (bench/README.md, "Measured decisions").
 */
export async function listOwned(
  client: ObjectClient,
  opts: ListOwnedOptions,
  fieldManager: string = FIELD_MANAGER,
): Promise<Inventory> {
  const selector = ownedSelector(opts.listenerId, opts.deploymentId);
  const pool = new ListingPool();
  const optional = new Set(opts.optionalKinds ?? []);
  const kinds = [...(opts.kinds ?? LISTED_KINDS), ...optional];
  const calls = opts.namespaces.flatMap((namespace) => kinds.map((kind) => ({ namespace, kind })));
  const allowed = (): number => {
    const n = opts.concurrency ?? LIST_CONCURRENCY;
    return Math.max(1, typeof n === 'number' ? n : n());
  };
  const limit = pLimit(allowed());
  const lists = await limit.map(calls, async ({ namespace, kind }) => {
    try {
      const listing = listKind(
        client,
        kind,
        namespace,
        selector,
        fieldManager,
        pool,
        opts.slim ?? false,
        opts.previous,
        opts,
        opts.onVersion && ((v: string) => opts.onVersion?.(kind.kind, namespace, v)),
        opts.slim ? opts.keeps : undefined,
      );
      const told = opts.onScope
        ? listing.then((entries) => {
            opts.onScope?.(kind.kind, namespace, entries);
            return entries;
          })
        : listing;
      if (!optional.has(kind)) return await told;
      return await told.catch((err: unknown) => {
        opts.onOptionalFailure?.(kind, namespace, err);
        return [];
      });
    } catch (err) {
      limit.clearQueue(); // a refused listing starts no more calls (Promise.all has this rejection)
      throw err;
    } finally {
      limit.concurrency = allowed();
    }
  });
  return inventoryOf(lists.flat());
}
