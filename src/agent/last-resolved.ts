/**
 * The desired deployments of the last complete poll, by id. A record listed again unchanged (the
 * very record the poller holds) whose revisions are final and cached resolves to what it resolved
 * to before: that is taken as it is, so an idle poll at 10,000 deployments neither hashes each
 * again nor makes a new desired deployment for each (each poll's garbage, with most of the old
 * generation live, set off V8's full collections: bench/README.md, "An idle cycle at 10,000").
 */
import type { DeploymentRecord } from '../contract/index.ts';
import type { DesiredResolver } from '../reconcile/desired-resolver.ts';
import type { DesiredDeployment } from './poll-cycle.ts';

export class LastResolved {
  #byId = new Map<string, DesiredDeployment>();

  /**
   * The last poll's desired state of `deployment` when it still stands, else undefined. Never
   * while the listing refuses the record (unsupported, a collision): that is resolved again.
   */
  reuse(
    deployment: DeploymentRecord,
    refusedByListing: boolean,
    resolver: Pick<DesiredResolver, 'stillResolves'>,
  ): DesiredDeployment | undefined {
    if (refusedByListing) return undefined;
    const prev = this.#byId.get(deployment.id);
    return prev?.deployment === deployment && resolver.stillResolves(prev) ? prev : undefined;
  }

  /** The desired deployments of a poll that completed, those `retains` keeps (none refused). */
  keep(deployments: readonly DesiredDeployment[], retains: (id: string) => boolean): void {
    this.#byId = new Map(
      deployments.filter((d) => !d.refused && retains(d.deployment.id)).map((d) => [d.deployment.id, d]),
    );
  }
}
