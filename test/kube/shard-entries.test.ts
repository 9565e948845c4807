/**
 * A sharded replica keeps object entries of its held shards' deployments only (shard-entries.ts):
 * in a cycle's slim listing, in the watch cache (and again when a shard is taken or given up), with
 * a stub of another shard's Secrets and claims for the identity check, and never an orphan pass's
 * or a reconcile's.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Inventory, inventoryOf, type ListOwnedOptions, listOwned } from '../../src/kube/list.ts';
import { ObjectClient } from '../../src/kube/object-client.ts';
import { type InventoryResources, ObservedState } from '../../src/kube/observed-state.ts';
import { isStub, type Keeps, stubOf } from '../../src/kube/shard-entries.ts';
import { shardInventory } from '../../src/kube/shard-inventory.ts';
import { previousEntries } from '../../src/kube/slim-listing.ts';
import { WatchCache } from '../../src/kube/watch-cache.ts';
import { LABELS } from '../../src/labels.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { checkIdentity } from '../../src/reconcile/identity.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { envSecret, LISTENER, service } from './fixtures.ts';
import { kubeOf, managerFor } from './sandbox.ts';

const NS = 'sharded';
const MINE = '33333333-3333-4333-8333-333333333333';
const THEIRS = '44444444-4444-4444-8444-444444444444';
const onlyMine: Keeps = (id) => id === MINE;
const both: Keeps = () => true;

/** An env Secret of deployment `id`. */
function secretOf(name: string, id: string): KubeObject {
  const s = envSecret(NS, name);
  s.metadata.labels = { ...s.metadata.labels, [LABELS.deploymentId]: id };
  return s;
}
const find = (inv: Inventory, kind: string, name: string) =>
  inv.objects.find((o) => o.kind === kind && o.metadata.name === name);
const ofDeployment = (id: string) => (o: KubeObject) => o.metadata.labels?.[LABELS.deploymentId] === id;

describe('a slim listing with keeps, against the sandbox', () => {
  let api: KubeApi;
  beforeAll(async () => {
    api = await startKubeApi({ namespaces: [NS], watchBookmarkIntervalMs: 50 });
    await managerFor(api).applyAll([
      service(NS, 'mine', MINE),
      secretOf('mine-env', MINE),
      service(NS, 'theirs', THEIRS),
      secretOf('theirs-env', THEIRS),
    ]);
  });
  afterAll(() => api.close());

  const list = (keeps: Keeps | undefined, previous?: ReturnType<typeof previousEntries>) =>
    listOwned(new ObjectClient(kubeOf(api)), {
      namespaces: [NS],
      listenerId: LISTENER,
      slim: true,
      ...(keeps ? { keeps } : {}),
      ...(previous ? { previous } : {}),
    });

  it("keeps another shard's Secret as a stub of its owner labels, and nothing else of it", async () => {
    const inv = await list(onlyMine);
    expect(find(inv, 'Service', 'theirs')).toBeUndefined();
    const stub = find(inv, 'Secret', 'theirs-env');
    expect(stub && isStub(stub)).toBe(true);
    expect(stub?.metadata).toEqual({
      name: 'theirs-env',
      namespace: NS,
      uid: expect.any(String),
      resourceVersion: expect.any(String),
      labels: { [LABELS.deploymentId]: THEIRS, [LABELS.listenerId]: LISTENER },
    });
    // The held shard's objects keep whole slim entries (their managedFields mark among them).
    const mine = find(inv, 'Service', 'mine');
    expect(mine && isStub(mine)).toBe(false);
    expect(mine?.metadata.managedFields).toBeDefined();
    expect(find(inv, 'Secret', 'mine-env')).toBeDefined();
    // Without keeps (one shard) every object has its entry.
    const all = await list(undefined);
    expect(
      all.objects
        .filter(ofDeployment(THEIRS))
        .map((o) => o.kind)
        .sort(),
    ).toEqual(['Secret', 'Service']);
  });

  it('never carries a stub into a later listing that keeps its deployment: the shard was taken', async () => {
    const first = await list(onlyMine);
    const next = await list(both, previousEntries(first));
    const secret = find(next, 'Secret', 'theirs-env');
    expect(secret && isStub(secret)).toBe(false);
    expect(secret?.metadata.managedFields).toBeDefined();
    expect(find(next, 'Service', 'theirs')).toBeDefined();
  });

  it('gives the orphan pass no stub, even for a shard held by then', async () => {
    const inv = await list(onlyMine);
    const cut = shardInventory(inv, both);
    expect(cut.objects.filter(ofDeployment(THEIRS))).toEqual([]);
    expect(cut.objects.filter(ofDeployment(MINE))).toHaveLength(2);
  });

  it("lets the identity check refuse a reference to another shard's Secret by its stub", async () => {
    const inv = await list(onlyMine);
    const refs = [{ kind: 'Secret' as const, name: 'theirs-env', field: 'Deployment/mine:spec.envFrom' }];
    expect(() =>
      checkIdentity(refs, (kind, _ns, name) => find(inv, kind, name), {
        namespace: NS,
        deploymentId: MINE,
        listenerId: LISTENER,
      }),
    ).toThrow(expect.objectContaining({ code: 'MOORING_E_FOREIGN_OBJECT' }));
  });

  describe('the watch cache', () => {
    let cache: WatchCache | undefined;
    afterEach(() => cache?.stop());

    it("drops another shard's objects as they come, lists again when a shard is taken, drops one given up", async () => {
      let held: Keeps = onlyMine;
      cache = new WatchCache({
        client: new ObjectClient(kubeOf(api)),
        namespaces: [NS],
        listenerId: LISTENER,
        timeoutSeconds: 7,
        backoff: { baseMs: 5, maxMs: 5, jitter: 0 },
        keeps: (id) => held(id),
      });
      cache.start();
      await vi.waitFor(() => expect(cache?.synced).toBe(true), { timeout: 10_000 });
      const now = () => cache?.inventory() ?? inventoryOf([]);
      expect(find(now(), 'Service', 'theirs')).toBeUndefined();
      expect(isStub(find(now(), 'Secret', 'theirs-env') ?? ({} as KubeObject))).toBe(true);
      // An event of another shard's object adds no entry.
      await managerFor(api).applyAll([service(NS, 'theirs-2', THEIRS), service(NS, 'mine-2', MINE)]);
      await vi.waitFor(() => expect(find(now(), 'Service', 'mine-2')).toBeDefined());
      expect(find(now(), 'Service', 'theirs-2')).toBeUndefined();

      // Their shard taken: the cache is not synced (cycles list) until every scope listed again.
      const epoch = cache.epoch;
      held = both;
      cache.reshard(true);
      expect(cache.synced).toBe(false);
      expect(cache.epoch).toBeGreaterThan(epoch);
      await vi.waitFor(() => expect(cache?.synced).toBe(true), { timeout: 10_000 });
      expect(find(now(), 'Service', 'theirs-2')).toBeDefined();
      const secret = find(now(), 'Secret', 'theirs-env');
      expect(secret && isStub(secret)).toBe(false);
      expect(cache.stats.failures).toBe(0);

      // Mine given up: its entries go at once, with no request; its Secret leaves a stub.
      held = (id) => id === THEIRS;
      const lists = cache.stats.lists;
      cache.reshard(false);
      expect(cache.synced).toBe(true);
      expect(
        now()
          .objects.filter(ofDeployment(MINE))
          .map((o) => o.kind),
      ).toEqual(['Secret']);
      expect(isStub(find(now(), 'Secret', 'mine-env') ?? ({} as KubeObject))).toBe(true);
      expect(cache.stats.lists).toBe(lists);
    });
  });
});

describe('ObservedState with keeps', () => {
  const obj = (id: string, name: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'apps', labels: { [LABELS.deploymentId]: id } },
  });
  const live = [obj(MINE, 'a'), obj(THEIRS, 'b')];
  function resources() {
    const lists: ListOwnedOptions[] = [];
    const r: InventoryResources = {
      listOwned: async (opts) => {
        lists.push(opts);
        const keeps = opts.keeps;
        return inventoryOf(
          live.filter(
            (o) =>
              (opts.deploymentId === undefined || ofDeployment(opts.deploymentId)(o)) &&
              (!keeps || keeps(o.metadata.labels?.[LABELS.deploymentId] ?? '')),
          ),
        );
      },
      applyAll: async () => ({ dryRun: false, entries: [] }),
      deleteAll: async () => ({ dryRun: false, entries: [] }),
      findOwned: async () => undefined,
    };
    return { r, lists };
  }

  it('serves no slice to a deployment its listing did not keep: that one lists for itself', async () => {
    let held: Keeps = onlyMine;
    const state = new ObservedState({ namespaces: ['apps'], listenerId: 'l-1', keeps: () => held });
    const { r, lists } = resources();
    await state.refresh((opts) => r.listOwned(opts));
    expect(lists[0]?.keeps).toBeDefined();
    // The shard is taken after the listing began: the listing still does not cover it.
    held = both;
    const wrapped = state.wrap(r);
    const mine = await wrapped.listOwned({ namespaces: ['apps'], listenerId: 'l-1', deploymentId: MINE });
    expect(mine.objects.map((o) => o.metadata.name)).toEqual(['a']);
    expect(lists).toHaveLength(1);
    const theirs = await wrapped.listOwned({ namespaces: ['apps'], listenerId: 'l-1', deploymentId: THEIRS });
    expect(theirs.objects.map((o) => o.metadata.name)).toEqual(['b']);
    expect(lists).toHaveLength(2);
    expect(lists[1]?.deploymentId).toBe(THEIRS);
  });

  it("says nothing (undefined) of whether another shard's deployment owns objects", async () => {
    const state = new ObservedState({ namespaces: ['apps'], listenerId: 'l-1', keeps: () => onlyMine });
    const { r } = resources();
    await state.refresh((opts) => r.listOwned(opts));
    expect(state.ownsObjects(MINE)).toBe(true);
    expect(state.ownsObjects(THEIRS)).toBeUndefined();
    const unsharded = new ObservedState({ namespaces: ['apps'], listenerId: 'l-1' });
    await unsharded.refresh((opts) => r.listOwned(opts));
    expect(unsharded.ownsObjects(THEIRS)).toBe(true);
  });
});

describe('stubOf', () => {
  it('keeps the ownership labels and version, nothing of the data', () => {
    const secret = secretOf('x', THEIRS);
    const stub = stubOf({ ...secret, metadata: { ...secret.metadata, uid: 'u', resourceVersion: '7' } });
    expect(stub).not.toHaveProperty('data');
    expect(stub.metadata.labels).toEqual({ [LABELS.deploymentId]: THEIRS, [LABELS.listenerId]: LISTENER });
    expect(isStub(stub)).toBe(true);
    expect(isStub(secret)).toBe(false);
  });
});
