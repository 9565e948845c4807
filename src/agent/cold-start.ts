/**
 * The judge of a cold start's listing (ADR 0008): each page of whole objects is compared with
 * what the objects' deployments render, and what is converged enters the apply memo, so that a
 * restart on a converged cluster reads nothing but its listing. A deployment is rendered once, the
 * first time one of its objects is listed, and each rendered object is let go once its live
 * counterpart has been compared; what is left is let go with the judge when the listing ends.
 * A deployment whose every rendered object was found converged is handed on as a converged pass,
 * so that its first reconcile takes the resync's shortcut instead of rendering it again.
 */
import { LABELS } from '../labels.ts';
import { objectId } from '../objects/object-id.ts';
import type { PageJudge } from '../kube/observed-state.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import type { ConvergedPass } from '../reconcile/converged.ts';
import { claimPrefixes } from '../reconcile/steps.ts';
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
  /** Told of a deployment all of whose rendered objects were found converged (`ColdPasses`). */
  onConverged?(deploymentId: string, pass: ColdPass): void;
}

/** A converged pass found by a cold listing, with the one namespace its objects are in. */
export interface ColdPass extends ConvergedPass {
  namespace: string;
}

interface Rendered {
  key: string;
  byId: Map<string, KubeObject>;
  /** The pass to hand on once `byId` is empty, or undefined once any comparison failed. */
  pass: ColdPass | undefined;
}

/** The pass a deployment's rendered objects make, when they all share one namespace. */
function passOf(key: string, objects: readonly KubeObject[]): ColdPass | undefined {
  const namespace = objects[0]?.metadata.namespace;
  if (namespace === undefined || objects.some((o) => o.metadata.namespace !== namespace)) return undefined;
  return { key, objects: objects.length, claimPrefixes: claimPrefixes(objects), namespace };
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
          const objects = o.render(d);
          const byId = new Map(objects.map((obj) => [objectId(obj), obj]));
          return {
            key: d.hash,
            byId,
            pass: byId.size === objects.length ? passOf(d.hash, objects) : undefined,
          };
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
      const deploymentId = item.metadata?.labels?.[LABELS.deploymentId] ?? '';
      const r = ready.get(deploymentId);
      if (!r || typeof item.metadata.name !== 'string') continue;
      const id = objectId(item);
      const desired = r.byId.get(id);
      if (!desired) continue;
      r.byId.delete(id);
      if (!o.verify(item, desired, r.key)) r.pass = undefined;
      else if (r.byId.size === 0 && r.pass) o.onConverged?.(deploymentId, r.pass);
    }
  };
}

/**
 * The converged passes of the latest cold listing, each taken at most once, by its deployment's
 * first reconcile, and only for the key and namespace it was found for. A pass only lets that
 * reconcile skip rendering: the shortcut still checks each listed object against the memo.
 */
export class ColdPasses {
  readonly #passes = new Map<string, ColdPass>();

  /** Forgets every pass (a new cold listing starts). */
  clear(): void {
    this.#passes.clear();
  }

  set(deploymentId: string, pass: ColdPass): void {
    this.#passes.set(deploymentId, pass);
  }

  /** The deployment's pass when it was found for `key` in `namespace`; forgotten either way. */
  take(deploymentId: string, key: string, namespace: string): ConvergedPass | undefined {
    const pass = this.#passes.get(deploymentId);
    this.#passes.delete(deploymentId);
    if (!pass || pass.key !== key || pass.namespace !== namespace) return undefined;
    return { key: pass.key, objects: pass.objects, claimPrefixes: pass.claimPrefixes };
  }
}
