import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { basicSet, DEPLOYMENT, deployment, labels, LISTENER, service } from './fixtures.ts';
import { managerFor, OtherManager } from './sandbox.ts';

let api: KubeApi;
let other: OtherManager;
const OTHER_DEPLOYMENT = '33333333-3333-4333-8333-333333333333';
const OTHER_LISTENER = '44444444-4444-4444-8444-444444444444';

beforeAll(async () => {
  api = await startKubeApi({ namespaces: ['del', 'guard', 'vol', 'inv'] });
  other = new OtherManager(api);
});
afterAll(async () => {
  await api?.close();
});

function pvc(ns: string, name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: ns, labels: labels('postgres') },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  };
}

describe('deleteAll', () => {
  it('deletes owned objects in reverse kind order; an object already gone counts as deleted', async () => {
    const rm = managerFor(api);
    await rm.applyAll(basicSet('del'));
    const inv = await rm.listOwned({ namespaces: ['del'], listenerId: LISTENER, deploymentId: DEPLOYMENT });
    api.clearRequests();
    const cs = await rm.deleteAll(inv.objects, { deleteVolumes: false });
    expect(cs.entries.map((e) => [e.id, e.action])).toEqual([
      ['Deployment/del/app', 'deleted'],
      ['Service/del/app', 'deleted'],
      ['Secret/del/app-postgres-credentials', 'deleted'],
      ['Secret/del/app-env', 'deleted'],
    ]);
    expect(api.requests({ verb: 'delete' }).map((r) => r.resource)).toEqual([
      'deployments',
      'services',
      'secrets',
      'secrets',
    ]);
    const again = await rm.deleteAll(inv.objects.slice(0, 1), { deleteVolumes: false });
    expect(again.entries[0]).toMatchObject({ action: 'deleted', note: 'already gone' });
  });

  it('never deletes an object without our labels AND our field manager', async () => {
    const rm = managerFor(api);
    // Our labels, but written by someone else: not provably ours.
    await other.apply(service('guard', 'impostor'), 'helm');
    // Ours by field manager, but the labels were removed by hand.
    await rm.applyAll([deployment('guard')]);
    await other.mergePatch(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'app', namespace: 'guard', labels: { 'app.kubernetes.io/managed-by': null } },
      } as never,
      'kubectl-label',
    );
    const svc = api.getObject('v1', 'Service', 'guard', 'impostor') as KubeObject;
    const dep = api.getObject('apps/v1', 'Deployment', 'guard', 'app') as KubeObject;
    api.clearRequests();
    const cs = await rm.deleteAll([svc, dep], { deleteVolumes: true });
    expect(cs.entries.map((e) => [e.id, e.action, e.note])).toEqual([
      ['Deployment/guard/app', 'skipped', 'not ours: ownership labels missing'],
      ['Service/guard/impostor', 'skipped', 'not ours: field manager mooring absent'],
    ]);
    expect(api.requests({ write: true })).toEqual([]);
    const foreign = structuredClone(svc);
    foreign.metadata.labels = { ...foreign.metadata.labels, 'mooring.dev/listener-id': OTHER_LISTENER };
    const refused = await rm.deleteAll([foreign], { deleteVolumes: false, listenerId: LISTENER });
    expect(refused.entries[0]?.note).toBe('not ours: another listener');
  });

  it('keeps PVCs (also those a StatefulSet made from our template) unless deleteVolumes', async () => {
    const rm = managerFor(api);
    await other.apply(pvc('vol', 'data-app-postgres-0'), 'kube-controller-manager');
    const inv = await rm.listOwned({ namespaces: ['vol'], listenerId: LISTENER });
    expect(inv.objects.map((o) => o.kind)).toEqual(['PersistentVolumeClaim']);
    const kept = await rm.deleteAll(inv.objects, { deleteVolumes: false });
    expect(kept.entries[0]).toMatchObject({ action: 'skipped', note: 'volume kept (deleteVolumes is off)' });
    expect(api.getObject('v1', 'PersistentVolumeClaim', 'vol', 'data-app-postgres-0')).toBeDefined();
    const gone = await rm.deleteAll(inv.objects, { deleteVolumes: true });
    expect(gone.entries[0]?.action).toBe('deleted');
    expect(api.getObject('v1', 'PersistentVolumeClaim', 'vol', 'data-app-postgres-0')).toBeUndefined();
  });
});

describe('listOwned', () => {
  it("finds one deployment's objects by label, one list per kind, never another listener's", async () => {
    const rm = managerFor(api);
    await rm.applyAll(basicSet('inv'));
    await rm.applyAll([service('inv', 'other-dep', OTHER_DEPLOYMENT)]);
    const foreign = service('inv', 'foreign');
    foreign.metadata.labels = { ...foreign.metadata.labels, 'mooring.dev/listener-id': OTHER_LISTENER };
    await rm.applyAll([foreign]);
    api.clearRequests();
    const mine = await rm.listOwned({ namespaces: ['inv'], listenerId: LISTENER, deploymentId: DEPLOYMENT });
    expect([...mine.byId.keys()].sort()).toEqual([
      'Deployment/inv/app',
      'Secret/inv/app-env',
      'Secret/inv/app-postgres-credentials',
      'Service/inv/app',
    ]);
    const reads = api.requests();
    expect(reads.every((r) => r.verb === 'list')).toBe(true);
    expect(new Set(reads.map((r) => r.resource)).size).toBe(reads.length);
    const all = await rm.listOwned({ namespaces: ['inv'], listenerId: LISTENER });
    expect([...all.byDeployment.keys()].sort()).toEqual([DEPLOYMENT, OTHER_DEPLOYMENT]);
    expect(all.byId.has('Service/inv/foreign')).toBe(false);
  });

  it('a failed list refuses the whole inventory (MOORING_E_PRUNE_LISTING_INCOMPLETE)', async () => {
    const rm = managerFor(api);
    api.setFaults([{ verb: 'list', resource: 'services', status: 503 }]);
    try {
      await expect(rm.listOwned({ namespaces: ['inv'], listenerId: LISTENER })).rejects.toMatchObject({
        code: 'MOORING_E_PRUNE_LISTING_INCOMPLETE',
        message: expect.stringMatching(/^Service\/inv\/\*: list failed \(MOORING_E_KUBE_SERVER\)/),
      });
    } finally {
      api.clearFaults();
    }
  });
});
