/**
 * The judge of a cold start's listing (ADR 0008): each page of whole objects is compared with
 * what the objects' deployments render, and what is converged enters the apply memo, so that a
 * restart on a converged cluster reads nothing but its listing. A deployment is rendered once, the
 * first time one of its objects is listed, and each rendered object is let go once its live
 * counterpart has been compared; what is left is let go with the judge when the listing ends.
 */
import { LABELS } from '../labels.ts';
import { objectId } from '../objects/object-id.ts';
import type { PageJudge } from '../kube/slim-listing.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import type { DesiredDeployment } from './poller.ts';

export interface ColdStartJudgeOptions {
  /**
   * The deployment's desired state, once the poll has it (a promise while it is being resolved);
   * undefined when there is none.
   */
  desiredOf(deploymentId: string): Promise<DesiredDeployment | undefined> | DesiredDeployment | undefined;
  /** The objects the deployment renders (throws when it cannot be rendered). */
  render(d: DesiredDeployment): readonly KubeObject[];
  /** `verifyListed`: whether `live` holds what `desired` applies, recording it in the memo. */
  verify(live: KubeObject, desired: KubeObject, key: string): boolean;
}

interface Rendered {
  key: string;
  byId: Map<string, KubeObject>;
}

/** A judge for one cold listing; make a new one per listing. */
export function coldStartJudge(o: ColdStartJudgeOptions): PageJudge {
  // Per deployment: its rendered objects not yet compared, or null (nothing to compare it with).
  const rendered = new Map<string, Promise<Rendered | null>>();
  const renderedOf = (id: string): Promise<Rendered | null> => {
    let r = rendered.get(id);
    if (!r) {
      r = Promise.resolve(o.desiredOf(id)).then((d) => {
        // Refused or being deleted: its reconcile decides, nothing is compared.
        if (!d || d.refused || d.deployment.status === 'AWAITING_DELETE') return null;
        try {
          const byId = new Map(o.render(d).map((obj) => [objectId(obj), obj]));
          return { key: d.hash, byId };
        } catch {
          // A render error is its reconcile's to report.
          return null;
        }
      });
      rendered.set(id, r);
    }
    return r;
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
      const r = ready.get(item.metadata?.labels?.[LABELS.deploymentId] ?? '');
      if (!r || typeof item.metadata.name !== 'string') continue;
      const id = objectId(item);
      const desired = r.byId.get(id);
      if (!desired) continue;
      r.byId.delete(id);
      o.verify(item, desired, r.key);
    }
  };
}
