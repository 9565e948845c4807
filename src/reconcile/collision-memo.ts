/**
 * `collisionsOf` given again without work when a poll lists the very records of the poll before
 * (the same objects, in the same order: the poller keeps a record listed unchanged). An idle poll
 * of 10,000 deployments spent a fifth of its CPU deriving every object name of every deployment
 * to find the same collisions (bench/README.md). Not while a deployment is being deleted: whether
 * it still holds its names is read from the cluster, which may have changed since.
 */
import type { DeploymentRecord } from '../contract/index.ts';
import type { CustomUrls } from '../render/url-claims.ts';
import { type CollisionRules, collisionsOf } from './desired-resolver.ts';

type Collisions = ReturnType<typeof collisionsOf>;

export class CollisionMemo {
  #last: { records: readonly DeploymentRecord[]; urls: boolean; result: Collisions } | undefined;

  /** `collisionsOf(records, rules, urlHolders, customUrls)`, the last result when it must be the same. */
  of(
    records: readonly DeploymentRecord[],
    rules: CollisionRules,
    urlHolders: ReadonlyMap<string, string>,
    customUrls: CustomUrls,
  ): Collisions {
    const urls = rules.urls?.() === true;
    const last = this.#last;
    // The URL holders given are the last result's own: a holder keeps its URL while it claims it,
    // so the same records give the same holders and refusals again.
    if (
      last !== undefined &&
      last.urls === urls &&
      last.result.urlHolders === urlHolders &&
      sameRecords(last.records, records) &&
      !records.some((d) => d.status === 'AWAITING_DELETE')
    ) {
      return last.result;
    }
    const result = collisionsOf(records, rules, urlHolders, customUrls);
    this.#last = { records, urls, result };
    return result;
  }

  /** Lets the last records go: the next judgement is made anew. */
  forget(): void {
    this.#last = undefined;
  }
}

function sameRecords(a: readonly DeploymentRecord[], b: readonly DeploymentRecord[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}
