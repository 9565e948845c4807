/**
 * The numbered changes the watch cache has told (watch-cache.ts): a counter of the events that
 * changed an entry, and per deployment the number of the latest that changed one of its objects,
 * what rule 8 of observed-state.ts reads to leave a quiet deployment alone.
 */
import { LABELS } from '../labels.ts';
import type { KubeObject } from '../objects/kube-object.ts';

export class TouchLog {
  #seq = 0;
  readonly #touched = new Map<string, number>();

  /** The number of the latest change (0 before any). */
  get seq(): number {
    return this.#seq;
  }

  /** The number of the latest change of an object of `deploymentId` (0: none). */
  touchedAt(deploymentId: string): number {
    return this.#touched.get(deploymentId) ?? 0;
  }

  /** Numbers a change, marking the deployment the object belonged to and the one it does. */
  touch(before: KubeObject | undefined, after: KubeObject): void {
    this.#seq += 1;
    for (const o of [before, after]) {
      const id = o?.metadata.labels?.[LABELS.deploymentId];
      if (id) this.#touched.set(id, this.#seq);
    }
  }
}
