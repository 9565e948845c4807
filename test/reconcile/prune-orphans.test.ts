import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrphanCollector } from '../../src/reconcile/orphans.ts';
import { pruneOrphans } from '../../src/reconcile/prune-orphans.ts';
import { reconcileDeployment } from '../../src/reconcile/reconcile.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { depsFor, input, LISTENER_ID, record } from './fixtures.ts';

let api: KubeApi;
beforeAll(async () => {
  api = await startKubeApi({ namespaces: ['apps', 'other'] });
});
afterAll(async () => {
  await api?.close();
});

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const listed = (...ids: string[]) => ({
  complete: true as const,
  deployments: ids.map((id) => ({ id, status: 'READY' })),
});

describe('orphan collection against the sandbox', () => {
  it('listing error → zero deletes; absent once → zero deletes; absent twice → deleted; the cap refuses', async () => {
    const deps = depsFor(api);
    await reconcileDeployment(deps, input(record(A, { name: 'shop-a' })));
    await reconcileDeployment(deps, input(record(B, { name: 'shop-b', namespace: 'other' })));
    const collector = new OrphanCollector();
    const cycle = (listing: Parameters<typeof pruneOrphans>[1]['listing'], c = collector) =>
      pruneOrphans(
        { resources: deps.resources, collector: c, logger: deps.logger },
        { listing, listenerId: LISTENER_ID, namespaces: ['apps', 'other'], deleteVolumes: false },
      );
    const deletes = () => api.requests({ verb: 'delete' }).length;
    api.clearRequests();

    const failed = await cycle({ complete: false, error: new Error('control plane 503') });
    expect(failed.plan.refused?.code).toBe('MOORING_E_PRUNE_LISTING_INCOMPLETE');
    const once = await cycle(listed(A));
    expect(once.plan.absentOnce).toEqual([B]);
    expect(deletes()).toBe(0);

    // A tiny cap: B's objects are over it, so nothing goes and the refusal says why.
    const capped = new OrphanCollector({ capMinObjects: 2, capFraction: 0 });
    await cycle(listed(A), capped);
    const refused = await cycle(listed(A), capped);
    expect(refused.plan.refused?.code).toBe('MOORING_E_PRUNE_CAP_EXCEEDED');
    expect(deletes()).toBe(0);

    const twice = await cycle(listed(A));
    expect(twice.plan.deploymentIds).toEqual([B]);
    expect(twice.changeSet.entries.filter((e) => e.action === 'deleted').length).toBeGreaterThan(5);
    expect(twice.changeSet.entries.every((e) => e.namespace === 'other')).toBe(true);
    const left = await deps.resources.listOwned({ namespaces: ['apps', 'other'], listenerId: LISTENER_ID });
    // Only B's volumes stay (the StatefulSet's claims; deleteVolumes is off).
    expect(left.byDeployment.get(A)?.length).toBeGreaterThan(5);
    expect(
      (left.byDeployment.get(B) ?? []).map((o) => o.kind).filter((k) => k !== 'PersistentVolumeClaim'),
    ).toEqual([]);
  });
});
