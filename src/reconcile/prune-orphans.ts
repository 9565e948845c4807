/**
 * One orphan-collection cycle for the agent: list everything this listener owns, let the
 * OrphanCollector decide from the latest control-plane listing, delete what it allows, and remember
 * failed deletes. A refusal (incomplete listing, cap exceeded) deletes nothing and is returned for
 * the caller to report (metrics, /status); the collector has already logged it.
 */
import type { Logger } from 'pino';
import { type ChangeSet, summarize } from '../kube/change-set.ts';
import type { EventRecorder } from './events.ts';
import type { DeploymentListing, OrphanCollector, PrunePlan } from './orphans.ts';
import type { Resources } from './reconcile.ts';

export interface PruneOrphansDeps {
  resources: Resources;
  collector: OrphanCollector;
  logger: Logger;
  events?: EventRecorder;
}

export interface PruneOrphansInput {
  listing: DeploymentListing;
  listenerId: string;
  namespaces: readonly string[];
  deleteVolumes: boolean;
  dryRun?: boolean;
}

export interface PruneOrphansResult {
  plan: PrunePlan;
  changeSet: ChangeSet;
}

export async function pruneOrphans(
  deps: PruneOrphansDeps,
  input: PruneOrphansInput,
): Promise<PruneOrphansResult> {
  const dryRun = input.dryRun ?? false;
  // A failed cluster listing throws MOORING_E_PRUNE_LISTING_INCOMPLETE: nothing is decided.
  const inventory = await deps.resources.listOwned({
    namespaces: input.namespaces,
    listenerId: input.listenerId,
  });
  const plan = deps.collector.observe(input.listing, inventory);
  const changeSet: ChangeSet = { entries: [], dryRun };
  if (plan.refused || plan.objects.length === 0) return { plan, changeSet };
  const cs = await deps.resources.deleteAll(plan.objects, {
    deleteVolumes: input.deleteVolumes,
    listenerId: input.listenerId,
    dryRun,
  });
  deps.collector.recordDeletes(cs, inventory);
  deps.logger.warn(
    { deploymentIds: plan.deploymentIds, changes: summarize(cs), dryRun },
    `orphans pruned: ${summarize(cs)}`,
  );
  if (!dryRun && deps.events) {
    const byNamespace = new Map<string, string[]>();
    for (const e of cs.entries)
      if (e.action === 'deleted' && e.namespace)
        byNamespace.set(e.namespace, [...(byNamespace.get(e.namespace) ?? []), e.id]);
    for (const [ns, ids] of byNamespace) {
      await deps.events.record({
        target: { apiVersion: 'v1', kind: 'Namespace', namespace: ns, name: ns },
        reason: 'Pruned',
        type: 'Normal',
        message: `pruned objects of deployments no longer listed: ${ids.join(', ')}`,
      });
    }
  }
  return { plan, changeSet: cs };
}
