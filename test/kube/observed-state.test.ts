import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/objects/change-set.ts';
import { ObservedState, type InventoryResources } from '../../src/kube/observed-state.ts';
import { type Inventory, inventoryOf, type ListOwnedOptions } from '../../src/kube/list.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { objectId } from '../../src/objects/object-id.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { deployment, LISTENER as FIXTURE_LISTENER } from './fixtures.ts';
import { managerFor } from './sandbox.ts';

const LISTENER = 'l-1';

function obj(deploymentId: string, name: string, namespace = 'apps'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels: { 'mooring.dev/deployment-id': deploymentId } },
  } as KubeObject;
}

/** A fake resource manager over a mutable list of live objects, counting list calls. */
function fakeResources(live: KubeObject[]) {
  const lists: ListOwnedOptions[] = [];
  let gate: Promise<void> = Promise.resolve();
  const resources: InventoryResources = {
    listOwned: async (opts) => {
      lists.push(opts);
      await gate;
      const objects = live.filter(
        (o) =>
          opts.namespaces.includes(o.metadata.namespace ?? '') &&
          (opts.deploymentId === undefined ||
            o.metadata.labels?.['mooring.dev/deployment-id'] === opts.deploymentId),
      );
      return inventoryOf(objects.map((o) => structuredClone(o)));
    },
    applyAll: async (objects): Promise<ChangeSet> => {
      for (const o of objects) if (!live.some((l) => l.metadata.name === o.metadata.name)) live.push(o);
      return {
        dryRun: false,
        entries: objects.map((o) => ({
          id: `Service/apps/${o.metadata.name}`,
          apiVersion: 'v1',
          kind: 'Service',
          namespace: 'apps',
          name: o.metadata.name ?? '',
          action: 'created' as const,
        })),
      };
    },
    deleteAll: async (): Promise<ChangeSet> => ({ dryRun: false, entries: [] }),
    findOwned: async () => undefined,
  };
  return { resources, lists, hold: (p: Promise<void>) => (gate = p) };
}

const names = (inv: Inventory) => inv.objects.map((o) => o.metadata.name).sort();

describe('ObservedState: one listing per cycle, shared by its reconciles', () => {
  it('serves every deployment of the cycle from one listing', async () => {
    const live = [obj('d1', 'a'), obj('d1', 'a-redis'), obj('d2', 'b')];
    const { resources, lists } = fakeResources(live);
    const cache = new ObservedState({ namespaces: ['apps'], listenerId: LISTENER });
    const wrapped = cache.wrap(resources);
    void cache.refresh((o) => resources.listOwned(o));
    const d1 = await wrapped.listOwned({ namespaces: ['apps'], listenerId: LISTENER, deploymentId: 'd1' });
    const d2 = await wrapped.listOwned({ namespaces: ['apps'], listenerId: LISTENER, deploymentId: 'd2' });
    const d3 = await wrapped.listOwned({ namespaces: ['apps'], listenerId: LISTENER, deploymentId: 'd3' });
    expect(names(d1)).toEqual(['a', 'a-redis']);
    expect(names(d2)).toEqual(['b']);
    expect(d3.objects).toEqual([]);
    expect(lists).toHaveLength(1);
    expect(cache.stats).toEqual({ hits: 3, misses: 0 });
  });

  it("finder: looks any deployment's object up in the latest listing that succeeded, without a request", async () => {
    const live = [obj('d1', 'a'), obj('d2', 'b')];
    const { resources, lists, hold } = fakeResources(live);
    const cache = new ObservedState({ namespaces: ['apps'], listenerId: LISTENER });
    expect(await cache.finder()).toBeUndefined();
    let release!: () => void;
    hold(new Promise<void>((r) => (release = r)));
    void cache.refresh((o) => resources.listOwned(o));
    // None has succeeded yet: the first is waited for.
    const first = cache.finder();
    release();
    const find = (await first)!;
    expect(find('Service', 'apps', 'b')?.metadata.labels?.['mooring.dev/deployment-id']).toBe('d2');
    expect(find('Service', 'apps', 'c')).toBeUndefined();
    expect(find('Secret', 'apps', 'b')).toBeUndefined();
    // A failed listing leaves the last one that succeeded.
    void cache.refresh(() => Promise.reject(new Error('down')));
    expect((await cache.finder())!('Service', 'apps', 'a')).toBeDefined();
    expect(lists).toHaveLength(1);
  });

  it('passes lookups by name through to the wrapped resources (identity without a listing)', async () => {
    const { resources } = fakeResources([]);
    const cache = new ObservedState({ namespaces: ['apps'], listenerId: LISTENER });
    const read = obj('d1', 'a');
    const finding = { ...resources, findOwned: async (o: KubeObject) => (o === read ? o : undefined) };
    expect(await cache.wrap(finding).findOwned(read, LISTENER)).toBe(read);
    expect(await cache.wrap(finding, { listDirectly: true }).findOwned(read, LISTENER)).toBe(read);
    expect(await cache.wrap(finding).findOwned(obj('d1', 'b'), LISTENER)).toBeUndefined();
  });

  it('a deployment we wrote to lists for itself until the next listing', async () => {
    const live = [obj('d1', 'a')];
    const { resources, lists } = fakeResources(live);
    const cache = new ObservedState({ namespaces: ['apps'], listenerId: LISTENER });
    const wrapped = cache.wrap(resources);
    void cache.refresh((o) => resources.listOwned(o));
    await wrapped.applyAll([obj('d1', 'a-new')]);
    const after = await wrapped.listOwned({ namespaces: ['apps'], listenerId: LISTENER, deploymentId: 'd1' });
    expect(names(after)).toEqual(['a', 'a-new']);
    expect(lists).toHaveLength(2);
    // The next cycle's listing includes the write: the cache serves d1 again.
    void cache.refresh((o) => resources.listOwned(o));
    const next = await wrapped.listOwned({ namespaces: ['apps'], listenerId: LISTENER, deploymentId: 'd1' });
    expect(names(next)).toEqual(['a', 'a-new']);
    expect(lists).toHaveLength(3);
  });

  it('a write that lands while the listing is under way makes that listing unusable for the deployment', async () => {
    const live = [obj('d1', 'a')];
    const { resources, lists, hold } = fakeResources(live);
    const cache = new ObservedState({ namespaces: ['apps'], listenerId: LISTENER });
    const wrapped = cache.wrap(resources);
    let release!: () => void;
    hold(new Promise<void>((r) => (release = r)));
    void cache.refresh((o) => resources.listOwned(o));
    await wrapped.applyAll([obj('d1', 'a-late')]);
    release();
    await wrapped.listOwned({ namespaces: ['apps'], listenerId: LISTENER, deploymentId: 'd1' });
    expect(lists).toHaveLength(2);
    expect(cache.stats.misses).toBe(1);
  });

  it('a cycle that begins while the last listing runs shares it: never two listings at once', async () => {
    const live = [obj('d1', 'a')];
    const { resources, lists, hold } = fakeResources(live);
    const cache = new ObservedState({ namespaces: ['apps'], listenerId: LISTENER });
    let release!: () => void;
    hold(new Promise<void>((r) => (release = r)));
    const first = cache.refresh((o) => resources.listOwned(o));
    const second = cache.refresh((o) => resources.listOwned(o));
    expect(lists).toHaveLength(1);
    release();
    expect(await second).toBe(await first);
    // Once it has settled, the next cycle lists again.
    await cache.refresh((o) => resources.listOwned(o));
    expect(lists).toHaveLength(2);
  });

  it('hands the next listing the entries of the last one that succeeded', async () => {
    const workload = { ...obj('d1', 'w'), apiVersion: 'apps/v1', kind: 'Deployment' } as KubeObject;
    const { resources, lists } = fakeResources([obj('d1', 'a'), workload]);
    const cache = new ObservedState({ namespaces: ['apps'], listenerId: LISTENER });
    const first = await cache.refresh((o) => resources.listOwned(o));
    await cache.refresh(async () => {
      throw new Error('list failed');
    });
    await cache.refresh((o) => resources.listOwned(o));
    expect(lists.map((l) => l.slim)).toEqual([true, true]);
    expect(lists[0]?.previous).toBeUndefined();
    // The failed listing in between took nothing away.
    expect([...(lists[1]?.previous?.keys() ?? [])].sort()).toEqual(['Deployment/apps', 'Service/apps']);
    expect(lists[1]?.previous?.get('Deployment/apps')?.get('w')).toBe(first?.byId.get('Deployment/apps/w'));
  });

  it('falls back to a direct listing when the cycle listing failed, or for other namespaces', async () => {
    const { resources, lists } = fakeResources([obj('d1', 'a')]);
    const cache = new ObservedState({ namespaces: ['apps'], listenerId: LISTENER });
    const wrapped = cache.wrap(resources);
    const failures: unknown[] = [];
    void cache.refresh(
      async () => {
        throw new Error('list failed');
      },
      (err) => failures.push(err),
    );
    expect(await cache.latest()).toBeUndefined();
    expect(failures).toHaveLength(1);
    const d1 = await wrapped.listOwned({ namespaces: ['apps'], listenerId: LISTENER, deploymentId: 'd1' });
    expect(names(d1)).toEqual(['a']);
    await wrapped.listOwned({ namespaces: ['other'], listenerId: LISTENER, deploymentId: 'd1' });
    expect(lists).toHaveLength(2);
  });

  it('listDirectly: a changed deployment does not wait for the cycle listing, and its writes are still tracked', async () => {
    const live = [obj('d1', 'a')];
    const { resources, lists, hold } = fakeResources(live);
    const cache = new ObservedState({ namespaces: ['apps'], listenerId: LISTENER });
    const direct = cache.wrap(resources, { listDirectly: true });
    const cached = cache.wrap(resources);
    let release!: () => void;
    hold(new Promise<void>((r) => (release = r)));
    void cache.refresh((o) => resources.listOwned(o));
    let answered = false;
    const pending = direct
      .listOwned({ namespaces: ['apps'], listenerId: LISTENER, deploymentId: 'd1' })
      .then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 10));
    // The direct listing is its own request (held by the same fake gate here, so both are pending).
    expect(lists).toHaveLength(2);
    release();
    await pending;
    expect(answered).toBe(true);
    await direct.applyAll([obj('d1', 'a-2')]);
    await cached.listOwned({ namespaces: ['apps'], listenerId: LISTENER, deploymentId: 'd1' });
    expect(cache.stats.misses).toBe(1);
  });

  it('serves a deployment once per listing: a second reconcile in the cycle (a rollout being watched) reads fresh', async () => {
    const { resources, lists } = fakeResources([obj('d1', 'a')]);
    const cache = new ObservedState({ namespaces: ['apps'], listenerId: LISTENER });
    const wrapped = cache.wrap(resources);
    void cache.refresh((o) => resources.listOwned(o));
    await wrapped.listOwned({ namespaces: ['apps'], listenerId: LISTENER, deploymentId: 'd1' });
    await wrapped.listOwned({ namespaces: ['apps'], listenerId: LISTENER, deploymentId: 'd1' });
    expect(lists).toHaveLength(2);
    expect(cache.stats).toEqual({ hits: 1, misses: 1 });
  });
});

describe('ObservedState: the memo is the one the resource manager fills (rule 4)', () => {
  const NS = 'observed';
  let api: KubeApi;
  beforeAll(async () => {
    api = await startKubeApi({ namespaces: [NS] });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('an apply enters its object under the input key; a dry run does not; a delete forgets it', async () => {
    const observed = new ObservedState({ namespaces: [NS], listenerId: FIXTURE_LISTENER });
    const app = deployment(NS, 'memo-app');
    const id = objectId(app);
    await managerFor(api, { memo: observed.memo, dryRun: true }).applyAll([app], { inputKey: 'k1' });
    expect(observed.memo.has(id)).toBe(false);
    const rm = managerFor(api, { memo: observed.memo });
    await rm.applyAll([app], { inputKey: 'k1' });
    expect(observed.memo.get(id)?.key).toBe('k1');
    const live = api.getObject('apps/v1', 'Deployment', NS, 'memo-app') as KubeObject;
    expect(rm.isVerified(live, 'k1')).toBe(true);
    // Another key (the deployment's desired state changed) is not verified by the old entry.
    expect(rm.isVerified(live, 'k2')).toBe(false);
    await rm.deleteAll([live], { deleteVolumes: false });
    expect(observed.memo.has(id)).toBe(false);
  });
});

describe('a cold listing under a short heap', () => {
  /** A listing of `pages`, each handed to the judge first, as a cold listing's pages are. */
  const pagedList = (pages: KubeObject[][]) => async (opts: ListOwnedOptions) => {
    for (const page of pages) await opts.judge?.(page);
    return inventoryOf(pages.flat());
  };
  const pages = [[obj('d-1', 'a')], [obj('d-2', 'b')], [obj('d-3', 'c')]];

  it('is given up (MOORING_E_MEMORY_SHORT) when the heap is short before a page, not run out of heap', async () => {
    let short = false;
    let fills = true;
    const judged: string[] = [];
    const state = new ObservedState({
      namespaces: ['apps'],
      listenerId: LISTENER,
      coldJudge: () => (items) => {
        for (const o of items) judged.push(o.metadata.name ?? '');
        short = fills; // the first listing's first page filled the heap
      },
      memoryShort: () => short,
    });
    const errors: unknown[] = [];
    expect(await state.refresh(pagedList(pages), (err) => errors.push(err))).toBeUndefined();
    expect(judged).toEqual(['a']);
    expect(errors).toEqual([expect.objectContaining({ code: 'MOORING_E_MEMORY_SHORT' })]);
    // Nothing of it is kept: the next listing is cold again, and goes through once there is room.
    short = false;
    fills = false;
    judged.length = 0;
    const next = await state.refresh(pagedList(pages));
    expect(next?.objects).toHaveLength(3);
    expect(judged).toEqual(['a', 'b', 'c']);
  });

  it('asks after each page whether the entries fit, with the objects listed before it', async () => {
    const asked: number[] = [];
    const state = new ObservedState({
      namespaces: ['apps'],
      listenerId: LISTENER,
      coldJudge: () => () => {},
      memoryShort: () => false,
      entriesFit: (listed) => {
        asked.push(listed);
        return true;
      },
    });
    await state.refresh(
      pagedList([[obj('d-1', 'a'), obj('d-1', 'b')], [obj('d-2', 'c')], [obj('d-3', 'd')]]),
    );
    expect(asked).toEqual([0, 2, 3]);
  });
});

describe('a cold listing whose entries would not fit (judge-only)', () => {
  /** As a listing keeps entries: each page judged, then kept only while `keepsEntries` says so. */
  const keepingList =
    (pages: KubeObject[][], restart = false) =>
    async (opts: ListOwnedOptions) => {
      const kept: KubeObject[] = [];
      for (const page of pages) {
        await opts.judge?.(page);
        if (opts.keepsEntries?.() !== false) kept.push(...page);
      }
      if (restart) opts.onRestart?.();
      return inventoryOf(kept);
    };
  const pages = [[obj('d-1', 'a')], [obj('d-2', 'b')], [obj('d-3', 'c')]];

  /** A state whose cold judge records what it judged, and what `onColdListed` was told. */
  const judgedState = (memoryShort: boolean, entriesFit: boolean) => {
    const judged: string[] = [];
    const told: Array<[boolean, boolean]> = [];
    const state = new ObservedState({
      namespaces: ['apps'],
      listenerId: LISTENER,
      coldJudge: () => (items) => {
        for (const o of items) judged.push(o.metadata.name ?? '');
      },
      memoryShort: () => memoryShort,
      entriesFit: () => entriesFit,
      onColdListed: (judgeOnly, complete) => told.push([judgeOnly, complete]),
    });
    return { state, judged, told };
  };

  /** Refreshes `state` from `pages`, with what the listing handed back and the errors told. */
  const refreshed = async (state: ObservedState) => {
    const errors: unknown[] = [];
    let handed: Inventory | undefined;
    const result = await state.refresh(
      async (opts) => {
        handed = await keepingList(pages)(opts);
        return handed;
      },
      (err) => errors.push(err),
    );
    return { result, errors, handed };
  };

  it('judges every page, keeps no entry and serves no slice: reconciles list for themselves (regression: a restart at 10,000 under 256 MiB gave its listing up)', async () => {
    const { state, judged, told } = judgedState(false, false);
    const { result, errors, handed } = await refreshed(state);
    expect(result).toBeUndefined();
    expect(errors).toEqual([]);
    expect(judged).toEqual(['a', 'b', 'c']);
    expect(handed?.objects).toEqual([]);
    expect(told).toEqual([[true, true]]);
    expect(await state.latest()).toBeUndefined();
    expect(await state.finder()).toBeUndefined();
    const { resources, lists } = fakeResources([obj('d-1', 'a')]);
    const own = await state
      .wrap(resources)
      .listOwned({ namespaces: ['apps'], listenerId: LISTENER, deploymentId: 'd-1' });
    expect(names(own)).toEqual(['a']);
    expect(lists).toHaveLength(1);
  });

  it('is judge-only when the heap is short before its first page, and not given up (regression: a restart at 3,000 under 62 MB gave it up at once)', async () => {
    const { state, judged, told } = judgedState(true, true);
    const { errors, handed } = await refreshed(state);
    expect(errors).toEqual([]);
    expect(judged).toEqual(['a', 'b', 'c']);
    expect(handed?.objects).toEqual([]);
    expect(told).toEqual([[true, true]]);
  });

  it('says it was not complete when one of its lists started over', async () => {
    const { state, told } = judgedState(false, false);
    await state.refresh(keepingList(pages, true));
    expect(told).toEqual([[true, false]]);
  });

  it('keeps its entries while they fit, and is no judge-only listing then', async () => {
    const { state, told } = judgedState(false, true);
    const result = await state.refresh(keepingList(pages));
    expect(result?.objects).toHaveLength(3);
    expect(told).toEqual([[false, true]]);
  });
});
