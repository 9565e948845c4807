/**
 * The orphan pass, once per complete poll: the OrphanCollector decides from the control plane's
 * listing and the cycle's shared inventory listing (ADR 0002: no listing of its own) which objects
 * go, this deletes them, remembers failed deletes, and reports: a `Pruned` event per namespace, a
 * log line naming the deployments, and the refusal (incomplete listing, cap exceeded) for metrics
 * and `/status`. A refusal deletes nothing; the collector has already logged it.
 */
import type { Logger } from 'pino';
import type { DeploymentRecord, RejectedRecord } from '../contract/index.ts';
import { type ChangeSet, summarize } from '../objects/change-set.ts';
import type { Inventory } from '../kube/list.ts';
import { shardInventory } from '../kube/shard-inventory.ts';
import type { EventRecorder } from './events.ts';
import type { DeploymentListing, OrphanCollector, PrunePlan } from './orphans.ts';
import { namespaceOf } from './steps.ts';
import type { Resources } from './types.ts';

export interface OrphanPassDeps {
  resources: Pick<Resources, 'deleteAll'>;
  collector: OrphanCollector;
  logger: Logger;
  events?: EventRecorder | undefined;
}

export interface OrphanPassInput {
  listing: DeploymentListing;
  /** A complete listing of everything the listener owns: the cycle's shared one. */
  inventory: Inventory;
  listenerId: string;
  deleteVolumes: boolean;
  /** Preview: deletes are sent with dryRun=All and no event is recorded. */
  dryRun?: boolean;
  /** Aborted when leadership ends: a deposed leader decides but deletes nothing more (one in flight is cut). */
  signal?: AbortSignal;
}

export interface OrphanPassOutcome {
  plan: PrunePlan;
  /** The deletions made (empty when refused, nothing was due, or the pass was aborted). */
  changeSet: ChangeSet;
}

/** One deployment of a complete poll, as the orphan pass needs it. */
export interface PolledDeployment {
  deployment: DeploymentRecord;
  /** Set when the agent does not act on this deployment (the poller refused it). */
  refused?: unknown;
}

/**
 * The collector's view of one complete poll. Every polled deployment is present; its target
 * namespace is given (so what it left in another namespace can go) only when the agent acts on it
 * there: not for a refused record, and not for AWAITING_DELETE, whose own reconcile removes
 * everything it owns (through the runner, so it never races an apply). For the same reason no
 * status is passed: AWAITING_DELETE is not the orphan pass's to act on. A namespace that is not
 * the agent's has no objects of the deployment in the inventory, so nothing is left behind for it.
 */
export function orphanListing(
  deployments: readonly PolledDeployment[],
  rejected: readonly Pick<RejectedRecord, 'id' | 'listenerId'>[],
  listenerId: string,
): DeploymentListing {
  // An unparsable record of another listener says nothing about ours. One of ours (or of no
  // readable listener) whose id is a deployment id (a uuid) is a deployment that exists: its
  // objects count as present everywhere, and only those are kept. One without such an id could be
  // any deployment's: the listing then proves nobody's absence.
  const mayBeOurs = rejected.filter((r) => r.listenerId === undefined || r.listenerId === listenerId);
  const identified = (r: (typeof rejected)[number]) => r.id !== undefined && DEPLOYMENT_ID.test(r.id);
  const unknown = mayBeOurs.filter((r) => !identified(r)).length;
  const present = mayBeOurs.flatMap((r) => (identified(r) ? [{ id: r.id as string }] : []));
  return {
    complete: true,
    rejectedCount: unknown,
    deployments: [
      ...deployments.map(({ deployment, refused }) => {
        const namespace = namespaceOf(deployment);
        const acted = refused === undefined && deployment.status !== 'AWAITING_DELETE';
        return acted && namespace ? { id: deployment.id, namespace } : { id: deployment.id };
      }),
      ...present,
    ],
  };
}

const DEPLOYMENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Runs one orphan pass; see the module comment. Throws only when a delete call itself throws. */
export async function runOrphanPass(
  deps: OrphanPassDeps,
  input: OrphanPassInput,
): Promise<OrphanPassOutcome> {
  const dryRun = input.dryRun ?? false;
  const plan = deps.collector.observe(input.listing, input.inventory);
  const empty: ChangeSet = { entries: [], dryRun };
  if (plan.refused || plan.objects.length === 0 || input.signal?.aborted) return { plan, changeSet: empty };
  const cs = await deps.resources.deleteAll(plan.objects, {
    deleteVolumes: input.deleteVolumes,
    listenerId: input.listenerId,
    dryRun,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  deps.collector.recordDeletes(cs, input.inventory);
  deps.logger.warn(
    { deploymentIds: plan.deploymentIds, moved: plan.moved, changes: summarize(cs), dryRun },
    `orphans pruned: ${summarize(cs)}`,
  );
  if (!dryRun && deps.events) await recordPruned(deps.events, cs, plan);
  return { plan, changeSet: cs };
}

/** One `Pruned` event per namespace, naming the objects deleted there (not those already terminating). */
async function recordPruned(events: EventRecorder, cs: ChangeSet, plan: PrunePlan): Promise<void> {
  const byNamespace = new Map<string, string[]>();
  for (const e of cs.entries) {
    if (e.action !== 'deleted' || e.detail === 'already-terminating' || !e.namespace) continue;
    byNamespace.set(e.namespace, [...(byNamespace.get(e.namespace) ?? []), e.id]);
  }
  for (const [ns, ids] of byNamespace) {
    const moves = plan.moved
      .filter((m) => m.from === ns)
      .map((m) => `; deployment ${m.deploymentId} moved to namespace ${m.to}`)
      .join('');
    events.record({
      target: { apiVersion: 'v1', kind: 'Namespace', namespace: ns, name: ns },
      reason: 'Pruned',
      type: 'Normal',
      message: `pruned objects of deployments no longer listed or moved away: ${ids.join(', ')}${moves}`,
    });
  }
}

/** What one cycle's orphan collection needs beyond the pass's own parts. */
export interface OrphanCollectionDeps extends OrphanPassDeps {
  /** The cycle's shared inventory listing; undefined when it failed. */
  latest(): Promise<Inventory | undefined>;
  /** Lists what the listener owns, for the pass alone (only when the cycle's listing failed). */
  listOwned(opts: { namespaces: readonly string[]; listenerId: string }): Promise<Inventory>;
  /**
   * Whether a listing of every owned object, whole, fits the heap now (`MemoryBudget.listingFits`). When
   * the cycle's listing failed and one does not, the pass is refused instead: a restart under too
   * small a limit ran out of heap listing for it, after its first cycle had given its own up.
   */
  listingFits?: () => boolean;
  namespaces: readonly string[];
  listenerId: string;
  deleteVolumes: boolean;
  dryRun: boolean;
}

/**
 * One cycle's orphan pass over a complete poll: on the cycle's shared listing, and only when that
 * failed on a listing of its own. Returns the refusal, or the deletions when there were any.
 * Leadership may end during the listing: `signal` makes a deposed leader delete nothing. With
 * shards, `holds` cuts the listing to the held shards' deployments: another shard's are never pruned.
 */
export async function collectOrphans(
  deps: OrphanCollectionDeps,
  poll: {
    deployments: readonly PolledDeployment[];
    rejected: readonly Pick<RejectedRecord, 'id' | 'listenerId'>[];
  },
  signal: AbortSignal,
  holds?: (deploymentId: string) => boolean,
): Promise<{ refused?: { code: string; message: string }; changeSet?: ChangeSet }> {
  const { listenerId } = deps;
  const shared = await deps.latest();
  if (!shared && deps.listingFits?.() === false) {
    return {
      refused: {
        code: 'MOORING_E_PRUNE_LISTING_INCOMPLETE',
        message:
          "the cycle's listing failed and one for the orphan pass would not fit the heap: nothing pruned this cycle",
      },
    };
  }
  const inventory = shardInventory(
    shared ?? (await deps.listOwned({ namespaces: deps.namespaces, listenerId })),
    holds,
  );
  const { plan, changeSet } = await runOrphanPass(deps, {
    listing: orphanListing(poll.deployments, poll.rejected, listenerId),
    inventory,
    listenerId,
    deleteVolumes: deps.deleteVolumes,
    dryRun: deps.dryRun,
    signal,
  });
  if (plan.refused) return { refused: { code: plan.refused.code, message: plan.refused.message } };
  return changeSet.entries.length > 0 ? { changeSet } : {};
}
