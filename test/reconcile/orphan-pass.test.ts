import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { EventRecorder } from '../../src/reconcile/events.ts';
import { collectOrphans, orphanListing, runOrphanPass } from '../../src/reconcile/orphan-pass.ts';
import { type DeploymentListing, OrphanCollector } from '../../src/reconcile/orphans.ts';
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
const M = '00000000-0000-4000-8000-00000000000c';
const listed = (...ids: string[]) => ({
  complete: true as const,
  deployments: ids.map((id) => ({ id, status: 'READY' })),
});

/** One orphan pass over a fresh listing of the sandbox (the agent shares its cycle's listing instead). */
function passes(collector = new OrphanCollector(), recorded: KubeObject[] = []) {
  const deps = depsFor(api);
  const events = new EventRecorder({
    sink: { create: async (e) => recorded.push(e) },
  });
  return async (listing: DeploymentListing, c = collector) =>
    runOrphanPass(
      { resources: deps.resources, collector: c, logger: deps.logger, events },
      {
        listing,
        inventory: await deps.resources.listOwned({ namespaces: ['apps', 'other'], listenerId: LISTENER_ID }),
        listenerId: LISTENER_ID,
        deleteVolumes: false,
      },
    );
}

describe('orphan pass against the sandbox', () => {
  it('listing error → zero deletes; absent once → zero deletes; absent twice → deleted; the cap refuses', async () => {
    const deps = depsFor(api);
    await reconcileDeployment(deps, input(record(A, { name: 'shop-a' })));
    await reconcileDeployment(deps, input(record(B, { name: 'shop-b', namespace: 'other' })));
    const recorded: KubeObject[] = [];
    const cycle = passes(new OrphanCollector(), recorded);
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
    expect(refused.changeSet.entries).toEqual([]);
    expect(deletes()).toBe(0);
    expect(recorded).toEqual([]);

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
    // One Pruned event, in the namespace the objects were in, naming them.
    expect(recorded.map((e) => [e.metadata.namespace, e.reason])).toEqual([['other', 'Pruned']]);
    expect(String(recorded[0]?.message)).toContain(`Service/other/shop-b`);
  });

  it('an aborted pass (leadership lost) decides but deletes nothing', async () => {
    const deps = depsFor(api);
    await reconcileDeployment(deps, input(record(B, { name: 'shop-b', namespace: 'other' })));
    const collector = new OrphanCollector();
    const inventory = await deps.resources.listOwned({
      namespaces: ['apps', 'other'],
      listenerId: LISTENER_ID,
    });
    const pass = (signal: AbortSignal) =>
      runOrphanPass(
        { resources: deps.resources, collector, logger: deps.logger },
        { listing: listed(A), inventory, listenerId: LISTENER_ID, deleteVolumes: false, signal },
      );
    await pass(new AbortController().signal);
    api.clearRequests();
    const aborted = new AbortController();
    aborted.abort();
    const result = await pass(aborted.signal);
    expect(result.plan.deploymentIds).toEqual([B]);
    expect(result.changeSet.entries).toEqual([]);
    expect(api.requests({ verb: 'delete' })).toEqual([]);
  });
});

describe('a deployment that moved to another of the agent namespaces (regression: old objects never pruned)', () => {
  it('prunes what it left in the old namespace once it runs in the new one; the new namespace is untouched', async () => {
    const deps = depsFor(api);
    await reconcileDeployment(deps, input(record(M, { name: 'mover' })));
    const moved = record(M, { name: 'mover', namespace: 'other' });
    const recorded: KubeObject[] = [];
    const cycle = passes(new OrphanCollector(), recorded);
    // A and B (earlier tests) stay listed: only what M left behind is in question.
    const others = [
      { deployment: record(A, { name: 'shop-a' }) },
      { deployment: record(B, { namespace: 'other' }) },
    ];
    const listing = orphanListing([{ deployment: moved }, ...others], [], LISTENER_ID);
    const objectsIn = async (ns: string) =>
      (await deps.resources.listOwned({ namespaces: [ns], listenerId: LISTENER_ID, deploymentId: M }))
        .objects;

    // Not yet running in the new namespace: its old objects are present, however often listed.
    await cycle(listing);
    expect((await cycle(listing)).plan.objects).toEqual([]);

    // The per-deployment reconcile applies the moved deployment and only looks in its namespace.
    const applied = await reconcileDeployment(deps, input(moved));
    expect(applied.changeSet.entries.every((e) => e.namespace === 'other')).toBe(true);
    expect(applied.changeSet.entries.some((e) => e.action === 'deleted')).toBe(false);
    const inNew = (await objectsIn('other')).map((o) => o.metadata.uid).sort();
    expect(inNew.length).toBeGreaterThan(5);

    // Running there now: absent once, then gone after the second complete listing.
    api.clearRequests();
    const once = await cycle(listing);
    expect(once.plan.absentOnce).toEqual([M]);
    expect(api.requests({ verb: 'delete' })).toEqual([]);
    const twice = await cycle(listing);
    expect(twice.plan.moved).toEqual([{ deploymentId: M, from: 'apps', to: 'other' }]);
    const deleted = api.requests({ verb: 'delete' });
    expect(deleted.length).toBeGreaterThan(5);
    expect(deleted.every((r) => r.namespace === 'apps')).toBe(true);

    // Kept volumes aside, nothing of it is left in the old namespace; the new one is as it was.
    expect((await objectsIn('apps')).map((o) => o.kind).filter((k) => k !== 'PersistentVolumeClaim')).toEqual(
      [],
    );
    expect((await objectsIn('other')).map((o) => o.metadata.uid).sort()).toEqual(inNew);
    expect(recorded.map((e) => [e.metadata.namespace, e.reason])).toEqual([['apps', 'Pruned']]);
    expect(String(recorded[0]?.message)).toContain(`deployment ${M} moved to namespace other`);
  });
});

describe('AWAITING_DELETE of a deployment that moved', () => {
  it('removes what it owns in every namespace of the agent, the one it left included', async () => {
    const D = '00000000-0000-4000-8000-00000000000d';
    const deps = depsFor(api);
    await reconcileDeployment(deps, input(record(D, { name: 'leaver' })));
    await reconcileDeployment(deps, input(record(D, { name: 'leaver', namespace: 'other' })));
    const owned = async () =>
      (
        await deps.resources.listOwned({
          namespaces: ['apps', 'other'],
          listenerId: LISTENER_ID,
          deploymentId: D,
        })
      ).objects;
    expect(new Set((await owned()).map((o) => o.metadata.namespace))).toEqual(new Set(['apps', 'other']));
    const res = await reconcileDeployment(
      deps,
      input(record(D, { name: 'leaver', namespace: 'other', status: 'AWAITING_DELETE' })),
    );
    expect(new Set(res.changeSet.entries.map((e) => e.namespace))).toEqual(new Set(['apps', 'other']));
    expect((await owned()).map((o) => o.kind).filter((k) => k !== 'PersistentVolumeClaim')).toEqual([]);
  });
});

describe('orphanListing', () => {
  it('gives the target namespace only for deployments the agent acts on', () => {
    const listing = orphanListing(
      [
        { deployment: record(A, { namespace: 'other' }) },
        { deployment: record(B, { namespace: 'other' }), refused: { code: 'X', message: 'refused' } },
        { deployment: record(M, { namespace: 'other', status: 'AWAITING_DELETE' }) },
      ],
      [{}],
      LISTENER_ID,
    );
    expect(listing).toEqual({
      complete: true,
      rejectedCount: 1,
      deployments: [{ id: A, namespace: 'other' }, { id: B }, { id: M }],
    });
  });
});

describe("collectOrphans (one cycle's pass)", () => {
  it("lists for itself only when the cycle's shared listing failed, and reports nothing when nothing was due", async () => {
    const deps = depsFor(api);
    const own: string[] = [];
    const collection = (shared: boolean) => ({
      resources: deps.resources,
      collector: new OrphanCollector(),
      logger: deps.logger,
      latest: async () =>
        shared
          ? deps.resources.listOwned({ namespaces: ['apps', 'other'], listenerId: LISTENER_ID })
          : undefined,
      listOwned: async (opts: { namespaces: readonly string[]; listenerId: string }) => {
        own.push(opts.listenerId);
        return deps.resources.listOwned({ namespaces: [...opts.namespaces], listenerId: opts.listenerId });
      },
      namespaces: ['apps', 'other'],
      listenerId: LISTENER_ID,
      deleteVolumes: false,
      dryRun: false,
    });
    const poll = { deployments: [], rejected: [] };
    expect(await collectOrphans(collection(true), poll, new AbortController().signal)).toEqual({});
    expect(own).toEqual([]);
    expect(await collectOrphans(collection(false), poll, new AbortController().signal)).toEqual({});
    expect(own).toEqual([LISTENER_ID]);
  });

  it("refuses the pass, listing nothing, when the cycle's listing failed and one would not fit the heap", async () => {
    const deps = depsFor(api);
    const own: string[] = [];
    const collection = {
      resources: deps.resources,
      collector: new OrphanCollector(),
      logger: deps.logger,
      latest: async () => undefined,
      listOwned: async (opts: { namespaces: readonly string[]; listenerId: string }) => {
        own.push(opts.listenerId);
        return deps.resources.listOwned({ namespaces: [...opts.namespaces], listenerId: opts.listenerId });
      },
      listingFits: () => false,
      namespaces: ['apps', 'other'],
      listenerId: LISTENER_ID,
      deleteVolumes: false,
      dryRun: false,
    };
    const result = await collectOrphans(
      collection,
      { deployments: [], rejected: [] },
      new AbortController().signal,
    );
    expect(result.refused?.code).toBe('MOORING_E_PRUNE_LISTING_INCOMPLETE');
    expect(own).toEqual([]);
  });
});
