/**
 * The OrphanCollector decides, after each listing of the control plane's deployments, which
 * deployments' objects must go. The rules that keep a control-plane outage or a bad answer from
 * emptying the cluster:
 * - a failed, partial or unparsable listing decides nothing (and breaks the run of listings);
 * - a deployment goes when absent from two consecutive complete listings, or AWAITING_DELETE;
 * - objects a listed deployment left in a namespace it moved away from count as absent the same
 *   way, but only while it runs in the namespace it targets now (a workload there and every object
 *   Ready): a move never takes down the only running copy, and the new namespace is never touched;
 * - deletions per cycle are capped (default: the larger of 50 objects and 25% of the inventory);
 *   past the cap nothing is deleted and the refusal is reported loudly;
 * - objects whose delete failed stay tracked and are retried (Flux kustomize-controller #1664).
 */
import type { Logger } from 'pino';
import { MooringError } from '../errors.ts';
import { silentLogger } from '../log.ts';
import type { ChangeSet } from '../objects/change-set.ts';
import { kindInfo } from '../objects/kinds.ts';
import { assessObject, rollUp } from './health.ts';
import { LABELS } from '../labels.ts';
import type { Inventory } from '../kube/list.ts';
import { objectId } from '../objects/object-id.ts';
import type { KubeObject } from '../objects/kube-object.ts';

/** One listing of the control plane's deployments owned by this listener, or its failure. */
export type DeploymentListing =
  | {
      complete: true;
      /**
       * `namespace`: the deployment's target namespace, when known: its objects elsewhere were left
       * behind by a move. Without it the deployment's objects count as present in every namespace.
       */
      deployments: ReadonlyArray<{ id: string; status?: string | null; namespace?: string | null }>;
      /** Records of (possibly) ours refused as malformed without a readable id: the listing then cannot prove absence. */
      rejectedCount?: number;
    }
  | { complete: false; error?: unknown };

export interface PrunePlan {
  /** Deployments whose objects go this cycle (empty when refused). */
  deploymentIds: string[];
  /** Live objects to delete (empty when refused). */
  objects: KubeObject[];
  /** Deployments absent once (or whose objects a move left behind): they go if still so at the next complete listing. */
  absentOnce: string[];
  /** Of the due objects, those a listed deployment left behind in a namespace it moved away from. */
  moved: Array<{ deploymentId: string; from: string; to: string }>;
  /** Set when nothing may be deleted this cycle: LISTING_INCOMPLETE or CAP_EXCEEDED. */
  refused?: MooringError;
  /** Object ids whose earlier delete failed and are tried again. */
  retrying: string[];
}

export interface OrphanCollectorOptions {
  /** The cap is at least this many objects per cycle (default 50). */
  capMinObjects?: number;
  /** ... or this fraction of the inventory when larger (default 0.25). */
  capFraction?: number;
  /** Count PVCs as deletable (they are kept otherwise, so they do not count toward the cap). */
  deleteVolumes?: boolean;
  logger?: Logger;
}

/**
 * Whether a deployment runs in a namespace, from its objects there: a workload, and every object
 * (kept volumes aside) Ready by its live status. Leftover volumes alone are not a running deployment.
 */
function runsIn(objects: readonly KubeObject[]): boolean {
  const live = objects.filter((o) => kindInfo(o.kind)?.volume !== true);
  const workload = live.some((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');
  return workload && rollUp(live.map(assessObject)).state === 'Ready';
}

/**
 * A per-cycle deletion cap: the larger of `minObjects` and `fraction` of `size` (objects of the
 * inventory for pruning; deployments of the listener for AWAITING_DELETE, reconcile/delete-cap.ts).
 */
export function pruneCap(size: number, minObjects = 50, fraction = 0.25): number {
  return Math.max(minObjects, Math.floor(size * fraction));
}

export class OrphanCollector {
  readonly #absent = new Map<string, number>();
  readonly #failed = new Map<string, string>(); // object id -> deployment id
  readonly #capMin: number;
  readonly #capFraction: number;
  readonly #deleteVolumes: boolean;
  readonly #logger: Logger;

  constructor(opts: OrphanCollectorOptions = {}) {
    this.#capMin = opts.capMinObjects ?? 50;
    this.#capFraction = opts.capFraction ?? 0.25;
    this.#deleteVolumes = opts.deleteVolumes ?? false;
    this.#logger = opts.logger ?? silentLogger();
  }

  /** Feeds one listing and the cluster inventory of this listener; returns what to delete now. */
  observe(listing: DeploymentListing, inventory: Inventory): PrunePlan {
    const plan: PrunePlan = { deploymentIds: [], objects: [], absentOnce: [], moved: [], retrying: [] };
    if (!listing.complete || (listing.rejectedCount ?? 0) > 0) {
      // Evidence of absence must come from consecutive complete listings: start over.
      this.#absent.clear();
      const why = listing.complete
        ? `${listing.rejectedCount} records could not be parsed`
        : 'the listing failed';
      plan.refused = new MooringError(
        'MOORING_E_PRUNE_LISTING_INCOMPLETE',
        `deployment listing incomplete (${why}): nothing pruned`,
      );
      this.#logger.warn({ code: plan.refused.code }, plan.refused.message);
      return plan;
    }
    const listed = new Map(listing.deployments.map((d) => [d.id, d]));
    // One group per deployment and namespace: a deployment that moved to another namespace left
    // its old objects behind, and those are absent even though the deployment is listed.
    const groups = new Map<string, { id: string; objects: KubeObject[] }>();
    for (const [id, objs] of inventory.byDeployment) {
      for (const o of objs) {
        const key = `${id}/${o.metadata.namespace ?? ''}`;
        const g = groups.get(key) ?? { id, objects: [] };
        g.objects.push(o);
        groups.set(key, g);
      }
    }
    const dueGroups: string[] = [];
    const absentOnce = new Set<string>();
    const moved: PrunePlan['moved'] = [];
    for (const [key, group] of groups) {
      const entry = listed.get(group.id);
      const ns = key.slice(group.id.length + 1);
      if (entry?.status === 'AWAITING_DELETE') {
        this.#absent.delete(key);
        dueGroups.push(key);
        continue;
      }
      const to = entry?.namespace;
      const leftBehind =
        entry !== undefined && !!to && to !== ns && runsIn(groups.get(`${group.id}/${to}`)?.objects ?? []);
      if (entry && !leftBehind) {
        // Listed, and either here or not yet running where it moved: present.
        this.#absent.delete(key);
        continue;
      }
      const count = (this.#absent.get(key) ?? 0) + 1;
      this.#absent.set(key, count);
      if (count >= 2) {
        dueGroups.push(key);
        if (leftBehind && to) moved.push({ deploymentId: group.id, from: ns, to });
      } else absentOnce.add(group.id);
    }
    for (const key of this.#absent.keys()) if (!groups.has(key)) this.#absent.delete(key);
    const due = [...new Set(dueGroups.map((k) => groups.get(k)?.id ?? ''))];
    plan.absentOnce = [...absentOnce];
    for (const [objId, depId] of this.#failed) {
      if (!inventory.byId.has(objId) || !due.includes(depId)) this.#failed.delete(objId);
    }
    const objects = dueGroups
      .flatMap((key) => groups.get(key)?.objects ?? [])
      .filter((o) => this.#deleteVolumes || kindInfo(o.kind)?.volume !== true);
    const cap = pruneCap(inventory.objects.length, this.#capMin, this.#capFraction);
    if (objects.length > cap) {
      plan.refused = new MooringError(
        'MOORING_E_PRUNE_CAP_EXCEEDED',
        `prune refused: ${objects.length} objects of ${due.length} deployments are due for deletion, over the cap of ${cap} per cycle; nothing deleted (check the control plane, or delete by hand)`,
        { details: { due: objects.length, cap, deploymentIds: due } },
      );
      this.#logger.error(
        { code: plan.refused.code, due: objects.length, cap, deploymentIds: due },
        plan.refused.message,
      );
      plan.deploymentIds = due;
      return plan;
    }
    plan.deploymentIds = due;
    plan.objects = objects;
    plan.moved = moved;
    plan.retrying = objects.map(objectId).filter((id) => this.#failed.has(id));
    return plan;
  }

  /** Remembers which deletes failed, so they are retried and reported until they succeed. */
  recordDeletes(cs: ChangeSet, inventory: Inventory): void {
    for (const e of cs.entries) {
      if (e.error) {
        const dep = inventory.byId.get(e.id)?.metadata.labels?.[LABELS.deploymentId];
        if (dep) this.#failed.set(e.id, dep);
      } else if (e.action === 'deleted' || e.detail === 'replaced') {
        // Replaced: what was due is gone; its successor is judged by the next listing.
        this.#failed.delete(e.id);
      }
    }
  }

  /** Object ids whose delete failed and is still due. */
  get failedDeletes(): string[] {
    return [...this.#failed.keys()];
  }
}
