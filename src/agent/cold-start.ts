/**
 * The judge of a cold start's listing (ADR 0008): each page of whole objects is compared with
 * what the objects' deployments render, and what is converged enters the apply memo, so that a
 * restart on a converged cluster reads nothing but its listing. A deployment is rendered the
 * first time one of its objects is listed, and each rendered object is let go once its live
 * counterpart has been compared. The listing goes kind by kind, so a deployment's other objects
 * come pages later: once more than `heldLimit` rendered objects wait so, every one is let go after
 * the page (only the ids still to compare are kept) and a deployment is rendered again at its next
 * listed object. Holding them all until the listing ended took a replica whose cold listing ran on
 * a cluster the other replicas had filled (thousands of deployments rendered at once) out of heap.
 * A deployment whose every rendered object was found converged is handed on as a converged pass,
 * so that its first reconcile takes the resync's shortcut instead of rendering it again. Objects
 * the memo already holds at their version (a restart memo, ADR 0010) are not compared, and a
 * deployment none of whose objects needs comparing is not rendered.
 */
import { LABELS } from '../labels.ts';
import { objectId } from '../objects/object-id.ts';
import type { DeploymentRecord, RevisionRecord } from '../contract/index.ts';
import type { PageJudge } from '../kube/observed-state.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import type { ConvergedPass } from '../reconcile/converged.ts';
import { claimPrefixes } from '../reconcile/steps.ts';
import type { ColdPasses } from './cold-passes.ts';
import type { DesiredDeployment } from './poller.ts';

export interface ColdStartJudgeOptions {
  /**
   * The deployment's desired state, once the poll has it (a promise while it is being resolved);
   * undefined when there is none.
   */
  desiredOf(deploymentId: string): Promise<DesiredDeployment | undefined> | DesiredDeployment | undefined;
  /** The objects the deployment renders (throws when it cannot be rendered); may first read its revision. */
  render(d: DesiredDeployment): readonly KubeObject[] | Promise<readonly KubeObject[]>;
  /** `verifyListed`: whether `live` holds what `desired` applies, recording it in the memo. */
  verify(live: KubeObject, desired: KubeObject, key: string): boolean;
  /**
   * Whether `live` needs no comparison for `key`: the memo holds it at this version (a restart
   * memo filled it), or it is a volume claim of the deployment's StatefulSets, never rendered. A
   * deployment none of whose objects needs comparing is not rendered.
   */
  known?(deploymentId: string, live: KubeObject, key: string): boolean;
  /** Told of a deployment all of whose rendered objects were found converged (`ColdPasses`). */
  onConverged?(deploymentId: string, pass: ColdPass): void;
  /** Rendered objects held past a page before all are let go (default COLD_JUDGE_HELD_OBJECTS). */
  heldLimit?: number;
  /** Told, after each page, how many rendered objects the judge still holds. */
  onHeld?(objects: number): void;
}

/**
 * Rendered objects a cold listing's judge holds past a page at most (a few MB): past it, they are
 * let go and rendered again as their deployments' next objects are listed.
 */
export const COLD_JUDGE_HELD_OBJECTS = 2000;

/** A converged pass found by a cold listing, with the one namespace its objects are in. */
export interface ColdPass extends ConvergedPass {
  namespace: string;
}

interface Rendered {
  key: string;
  desired: DesiredDeployment;
  /**
   * Its rendered objects not yet compared, made at the first object the memo does not hold and
   * again after being let go (undefined meanwhile); null when it cannot be rendered.
   */
  byId: Map<string, KubeObject> | null | undefined;
  /** The ids of its rendered objects not yet compared, from its first render on (kept when `byId` is let go). */
  left: Set<string> | undefined;
  /** The pass to hand on once `left` is empty, or undefined once any comparison failed. */
  pass: ColdPass | undefined;
  /** Its render under way: pages judged side by side wait for one render, not one each. */
  rendering?: Promise<Map<string, KubeObject> | null> | undefined;
}

/** The pass a deployment's rendered objects make, when they all share one namespace. */
function passOf(key: string, objects: readonly KubeObject[]): ColdPass | undefined {
  const namespace = objects[0]?.metadata.namespace;
  if (namespace === undefined || objects.some((o) => o.metadata.namespace !== namespace)) return undefined;
  return { key, objects: objects.length, claimPrefixes: claimPrefixes(objects), namespace };
}

/** A judge for one cold listing; make a new one per listing. */
export function coldStartJudge(o: ColdStartJudgeOptions): PageJudge {
  const limit = o.heldLimit ?? COLD_JUDGE_HELD_OBJECTS;
  // Per deployment: what to compare its objects with, or null (nothing to compare it with).
  const rendered = new Map<string, Promise<Rendered | null>>();
  // The deployments whose rendered objects are held now, and how many objects that is.
  const holding = new Set<Rendered>();
  let held = 0;
  const renderedOf = (id: string): Promise<Rendered | null> => {
    let r = rendered.get(id);
    if (!r) {
      r = Promise.resolve(o.desiredOf(id)).then((d) =>
        // Refused or being deleted: its reconcile decides, nothing is compared.
        !d || d.refused || d.deployment.status === 'AWAITING_DELETE'
          ? null
          : { key: d.hash, desired: d, byId: undefined, left: undefined, pass: undefined },
      );
      rendered.set(id, r);
    }
    return r;
  };
  const objectsOf = (r: Rendered): Promise<Map<string, KubeObject> | null> => {
    if (r.byId !== undefined) return Promise.resolve(r.byId);
    r.rendering ??= renderOf(r).finally(() => {
      r.rendering = undefined;
    });
    return r.rendering;
  };
  const renderOf = async (r: Rendered): Promise<Map<string, KubeObject> | null> => {
    try {
      const objects = await o.render(r.desired);
      const byId = new Map(objects.map((obj) => [objectId(obj), obj]));
      if (r.left === undefined) {
        r.left = new Set(byId.keys());
        r.pass = byId.size === objects.length ? passOf(r.key, objects) : undefined;
      } else {
        // Rendered again after being let go: only what is still to compare is held.
        for (const id of byId.keys()) if (!r.left.has(id)) byId.delete(id);
      }
      r.byId = byId;
      holding.add(r);
      held += byId.size;
    } catch {
      // A render error is its reconcile's to report.
      r.byId = null;
    }
    return r.byId;
  };
  return async (items) => {
    const ids = new Set<string>();
    for (const item of items) {
      const id = item.metadata?.labels?.[LABELS.deploymentId];
      if (typeof id === 'string' && id !== '') ids.add(id);
    }
    const ready = new Map<string, Rendered | null>();
    await Promise.all([...ids].map(async (id) => ready.set(id, await renderedOf(id))));
    for (const item of items) {
      const deploymentId = item.metadata?.labels?.[LABELS.deploymentId] ?? '';
      const r = ready.get(deploymentId);
      if (!r || typeof item.metadata.name !== 'string') continue;
      if (o.known?.(deploymentId, item, r.key)) continue;
      const id = objectId(item);
      // Compared already (listed again after its list started over): no new render for it.
      if (r.left !== undefined && !r.left.has(id)) continue;
      const byId = await objectsOf(r);
      const desired = byId?.get(id);
      if (!byId || !desired || !r.left) continue;
      byId.delete(id);
      r.left.delete(id);
      // A page judged beside this one may have let the render go meanwhile (uncounted then).
      if (r.byId === byId) {
        held -= 1;
        if (byId.size === 0) holding.delete(r);
      }
      if (!o.verify(item, desired, r.key)) r.pass = undefined;
      else if (r.left.size === 0 && r.pass) o.onConverged?.(deploymentId, r.pass);
    }
    if (held > limit) {
      for (const r of holding) r.byId = undefined;
      holding.clear();
      held = 0;
    }
    o.onHeld?.(held);
  };
}

/** What the judge of each cold listing is made of (see `coldListingJudge`). */
export interface ColdListingOptions extends Pick<ColdStartJudgeOptions, 'desiredOf' | 'verify'> {
  /** The objects a deployment renders at `revision` (throws when it cannot be rendered). */
  render(deployment: DeploymentRecord, revision: RevisionRecord | undefined): readonly KubeObject[];
  /** Reads a revision the poll resolved without it (`DesiredDeployment.pendingRevision`). */
  loadRevision(deploymentId: string, revisionId: string): Promise<RevisionRecord>;
  /** The converged passes found, for the first reconciles to take. */
  passes: ColdPasses;
  /** Whether the memo holds `live` at its version for `key` (`isListedVerified`). */
  listedVerified(live: KubeObject, key: string): boolean;
  /** Fills the memo and `passes` before the first page is judged (the restart memo's `load`). */
  beforeFirstPage(passes: ColdPasses): Promise<void>;
}

/**
 * The judge of a new cold listing: the passes of the previous one are forgotten, the memo is
 * filled before the first page is judged, and an object the memo holds, or a volume claim of a
 * pass found, is not compared.
 */
export function coldListingJudge(o: ColdListingOptions): PageJudge {
  o.passes.clear();
  const judge = coldStartJudge({
    desiredOf: o.desiredOf,
    // A revision the restart memo knew is read only when its deployment must be compared.
    render: async (d) =>
      o.render(
        d.deployment,
        d.revision ??
          (d.pendingRevision === undefined
            ? undefined
            : await o.loadRevision(d.deployment.id, d.pendingRevision)),
      ),
    verify: o.verify,
    known: (id, live, key) => {
      if (o.passes.holdsClaim(id, key, live)) return true;
      const verified = o.listedVerified(live, key);
      o.passes.found(id, key, live, verified);
      return verified;
    },
    onConverged: (id, pass) => o.passes.set(id, pass),
  });
  const loaded = o.beforeFirstPage(o.passes);
  return async (items) => {
    await loaded;
    return judge(items);
  };
}
