/**
 * Ownership without a read per object (ADR 0007), against the sandbox: with a census of names, an
 * object neither listed nor in the census is created with a create-only write (a POST) and never
 * read; another's object in the census refuses the batch before any write; one made after the
 * census is found by the API server's 409 AlreadyExists, read, judged and never written over.
 * And what a create leaves behind: the fields it recorded become ours as applied before the next
 * apply writes, so that a field we stop applying is removed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeCensus } from '../../src/kube/census.ts';
import { ObjectClient } from '../../src/kube/object-client.ts';
import { ObservedState } from '../../src/kube/observed-state.ts';
import { changeSetErrors } from '../../src/objects/change-set.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { DEPLOYMENT, deployment, envSecret, LISTENER, service } from './fixtures.ts';
import { kubeOf, managerFor, OtherManager } from './sandbox.ts';

const NAMESPACES = ['cold', 'theirs', 'race', 'prune', 'hazard'];
let api: KubeApi;
let other: OtherManager;

beforeAll(async () => {
  api = await startKubeApi({ namespaces: NAMESPACES });
  other = new OtherManager(api);
});
afterAll(async () => {
  await api?.close();
});

function live(kind: string, ns: string, name: string): KubeObject | undefined {
  const apiVersion = kind === 'Deployment' ? 'apps/v1' : 'v1';
  return api.getObject(apiVersion, kind, ns, name) as KubeObject | undefined;
}

/** Our objects of one deployment, applied against its listing and a census, as a cold cycle does. */
async function converge(ns: string, objects: KubeObject[], census = managerFor(api).census()) {
  const rm = managerFor(api);
  const inv = await rm.listOwned({ namespaces: [ns], listenerId: LISTENER, deploymentId: DEPLOYMENT });
  return rm.applyAll(objects, { live: inv.byId, census });
}

function plainService(ns: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'app', namespace: ns },
    spec: { selector: { app: 'theirs' }, ports: [{ name: 'web', port: 80, targetPort: 8080 }] },
  };
}

/** The managers of the object's own fields (status entries aside). */
const managersOf = (obj: KubeObject | undefined) =>
  (obj?.metadata.managedFields ?? [])
    .filter((e) => !e.subresource)
    .map((e) => `${e.manager}/${e.operation}`)
    .sort();

describe('a census of names (sandbox)', () => {
  it('cold: every object is created with a POST, none is read, the census costs one list per kind', async () => {
    const objects = [envSecret('cold'), service('cold'), deployment('cold')];
    api.clearRequests();
    const cs = await converge('cold', objects);
    expect(cs.entries.map((e) => e.action)).toEqual(['created', 'created', 'created']);
    expect(api.requests({ verb: 'get' })).toEqual([]);
    expect(
      api
        .requests({ write: true })
        .map((r) => `${r.verb} ${r.resource}/${r.name ?? ''}`)
        .sort(),
    ).toEqual(['create deployments/app', 'create secrets/app-env', 'create services/app']);
    const firstLists = api.requests({ verb: 'list' }).map((r) => r.resource);
    expect(live('Deployment', 'cold', 'app')?.metadata.labels?.['mooring.dev/deployment-id']).toBe(
      DEPLOYMENT,
    );
    // A second pass finds everything listed and converged: no write, no read but the listing.
    api.clearRequests();
    const again = await converge('cold', objects);
    expect(again.entries.every((e) => e.action === 'unchanged')).toBe(true);
    expect(api.requests({ write: true })).toEqual([]);
    expect(api.requests().filter((r) => r.verb !== 'list')).toEqual([]);
    // The first pass listed as the second did, and the census listed each kind it looked up once.
    const census = [...firstLists];
    for (const r of api.requests({ verb: 'list' })) census.splice(census.indexOf(r.resource), 1);
    expect(census.sort()).toEqual(['deployments', 'secrets', 'services']);
  });

  it("another's object in the census refuses the batch before any write, without a read", async () => {
    await other.create(plainService('theirs'), 'kubectl-create');
    const before = live('Service', 'theirs', 'app');
    api.clearRequests();
    const cs = await converge('theirs', [envSecret('theirs'), service('theirs'), deployment('theirs')]);
    expect(changeSetErrors(cs).map((e) => e.message)).toEqual([
      `Service/theirs/app: exists and belongs to another manager (kubectl-create); nothing of deployment ${DEPLOYMENT} written`,
    ]);
    expect(api.requests({ write: true })).toEqual([]);
    expect(api.requests({ verb: 'get' })).toEqual([]);
    expect(live('Service', 'theirs', 'app')).toEqual(before);
  });

  it('made after the census: the POST meets 409 AlreadyExists, the object is read, judged and left as it is', async () => {
    const census = takeCensus(new ObjectClient(kubeOf(api)));
    // The census lists the namespace while it is empty...
    expect(await census.find(service('race'))).toBeNull();
    // ...then another manager creates the name.
    await other.create(plainService('race'), 'kubectl-create');
    const before = live('Service', 'race', 'app');
    api.clearRequests();
    const cs = await converge('race', [service('race')], census);
    expect(changeSetErrors(cs).map((e) => e.code)).toEqual(['MOORING_E_KUBE_OWNERSHIP']);
    expect(api.requests().map((r) => `${r.verb} ${r.status}`)).toEqual(
      expect.arrayContaining(['create 409', 'get 200']),
    );
    expect(api.requests({ write: true }).filter((r) => r.status < 300)).toEqual([]);
    expect(live('Service', 'race', 'app')).toEqual(before);
  });

  it("a created object's fields become ours as applied at its next change, so a field we stop applying is removed", async () => {
    const withNote = deployment('prune');
    withNote.metadata.annotations = { ...withNote.metadata.annotations, 'example.com/note': 'one' };
    await converge('prune', [withNote]);
    expect(managersOf(live('Deployment', 'prune', 'app'))).toEqual(['mooring/Update']);
    // Converged: nothing is adopted or written while nothing changes.
    api.clearRequests();
    await converge('prune', [withNote]);
    expect(api.requests({ write: true })).toEqual([]);
    // The annotation is dropped: adopted (one JSON patch), then applied, and the annotation goes.
    api.clearRequests();
    const cs = await converge('prune', [deployment('prune', 'app', { image: 'example.com/app:2.0' })]);
    expect(changeSetErrors(cs)).toEqual([]);
    expect(api.requests({ write: true }).map((r) => r.verb)).toEqual(['patch', 'apply']);
    const after = live('Deployment', 'prune', 'app');
    expect(after?.metadata.annotations?.['example.com/note']).toBeUndefined();
    expect(managersOf(after)).toEqual(['mooring/Apply']);
  });

  it('control: without the adoption, a field a POST recorded survives an apply that drops it (the hazard)', async () => {
    const client = new ObjectClient(kubeOf(api));
    const withNote = deployment('hazard');
    withNote.metadata.annotations = { ...withNote.metadata.annotations, 'example.com/note': 'one' };
    await client.createNew(withNote, { fieldManager: 'mooring' });
    await client.apply(deployment('hazard'), { fieldManager: 'mooring', force: true });
    const after = live('Deployment', 'hazard', 'app');
    expect(after?.metadata.annotations?.['example.com/note']).toBe('one');
    expect(managersOf(after)).toEqual(['mooring/Apply', 'mooring/Update']);
  });
});

describe('ObservedState takes a census for the cold cycle, and while the last one created objects (rule 6)', () => {
  const list = async () => ({ objects: [], byId: new Map(), byDeployment: new Map() });

  /**
   * An ObservedState whose census counts how often it is taken (its `absentFound` read from
   * `state.absent`), and resources recording whether each apply was given a census.
   */
  function censusCounted(censusFits?: () => boolean) {
    const state = { taken: 0, absent: 0, seen: [] as boolean[] };
    const observed = new ObservedState({
      namespaces: ['ns'],
      listenerId: LISTENER,
      census: () => {
        state.taken += 1;
        return {
          find: async () => null,
          get absentFound() {
            return state.absent;
          },
        };
      },
      ...(censusFits ? { censusFits } : {}),
    });
    const resources = observed.wrap({
      applyAll: async (_objects, o) => {
        state.seen.push(o?.census !== undefined);
        return { entries: [], dryRun: false };
      },
      listOwned: list,
      deleteAll: async () => ({ entries: [], dryRun: false }),
      findOwned: async () => undefined,
    });
    return { state, observed, resources };
  }

  it('passes a census to applies with a listing in the cold cycle and in the next; none once a cycle created nothing', async () => {
    const { state, observed, resources } = censusCounted();
    const live = new Map<string, KubeObject>();
    await observed.refresh(list);
    await resources.applyAll([], { live });
    await resources.applyAll([], { live });
    await resources.applyAll([]); // without a listing: every object is read, no census
    state.absent = 3; // the cold cycle's census created objects
    await observed.refresh(list);
    state.absent = 0;
    await resources.applyAll([], { live });
    await observed.refresh(list); // the cycle before created nothing
    await resources.applyAll([], { live });
    expect(state.seen).toEqual([true, true, false, true, false]);
    expect(state.taken).toBe(2);
  });

  it('takes none while a census would not fit the heap: each object the listing does not hold is read instead', async () => {
    let fits = false;
    const { state, observed, resources } = censusCounted(() => fits);
    await observed.refresh(list);
    await resources.applyAll([], { live: new Map() });
    // Room again within the cycle: the census is taken then, and kept for the cycle.
    fits = true;
    await resources.applyAll([], { live: new Map() });
    fits = false;
    await resources.applyAll([], { live: new Map() });
    expect(state.seen).toEqual([false, true, true]);
    expect(state.taken).toBe(1);
  });
});
