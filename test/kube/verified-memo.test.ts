/**
 * The resync memo: an object verified converged for an input (the deployment's desired-state hash)
 * is not compared again while its version stays the same (object-version.ts): any change to what
 * we apply (drift by hand) brings the full comparison back; a controller's status write does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSlim } from '../../src/kube/compact-live.ts';
import type { ResourceManager } from '../../src/kube/resource-manager.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { eventually } from '../sandbox/helpers.ts';
import { DEPLOYMENT, deployment, LISTENER } from './fixtures.ts';
import { kubeOf, managerFor, OtherManager } from './sandbox.ts';

const NS = 'memo';
let api: KubeApi;
let other: OtherManager;

beforeAll(async () => {
  api = await startKubeApi({ namespaces: [NS] });
  other = new OtherManager(api);
});
afterAll(async () => {
  await api?.close();
});

const imageOf = () =>
  (
    api.getObject('apps/v1', 'Deployment', NS, 'app') as {
      spec: { template: { spec: { containers: Array<{ image: string }> } } };
    }
  ).spec.template.spec.containers[0]?.image;

/**
 * One reconcile of the test deployment by `rm`: list its objects (slim or whole, as a cycle's
 * listing or a deployment's own), apply `objects` under `inputKey`; the first entry's action.
 */
async function reconcile(rm: ResourceManager, objects: KubeObject[], inputKey: string, slim = false) {
  const inv = await rm.listOwned({ namespaces: [NS], listenerId: LISTENER, deploymentId: DEPLOYMENT, slim });
  return (await rm.applyAll(objects, { live: inv.byId, inputKey })).entries[0]?.action;
}

const gets = () => api.requests().filter((r) => r.verb === 'get').length;

describe('resync memo (inputKey)', () => {
  it('skips the comparison for a verified object, and only while nothing about it changed', async () => {
    const rm = managerFor(api);
    const cycle = (objects: KubeObject[], inputKey: string) => reconcile(rm, objects, inputKey);
    expect(await cycle([deployment(NS)], 'k1')).toBe('created');
    expect(await cycle([deployment(NS)], 'k1')).toBe('unchanged');
    api.clearRequests();
    // Same key, same resourceVersion: not compared at all. (Equal keys promise equal objects, so
    // this different object is what shows the comparison was skipped.)
    expect(await cycle([deployment(NS, 'app', { image: 'other:2' })], 'k1')).toBe('unchanged');
    expect(api.requests().filter((r) => r.write)).toEqual([]);
    expect(imageOf()).not.toBe('other:2');
    // A new key is compared and applied.
    expect(await cycle([deployment(NS, 'app', { image: 'other:2' })], 'k2')).toBe('configured');
    expect(imageOf()).toBe('other:2');
    await cycle([deployment(NS, 'app', { image: 'other:2' })], 'k2');
    // Drift by hand moves the resourceVersion: compared again and repaired under the same key.
    await other.strategicMerge(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'app', namespace: NS },
        spec: { template: { spec: { containers: [{ name: 'api', image: 'hand-edited:1' }] } } },
      },
      'kubectl-edit',
    );
    expect(imageOf()).toBe('hand-edited:1');
    expect(await cycle([deployment(NS, 'app', { image: 'other:2' })], 'k2')).toBe('configured');
    expect(imageOf()).toBe('other:2');
  });

  it('lists slim, and reads an object again only when it must be compared', async () => {
    const rm = managerFor(api);
    const list = (slim: boolean) =>
      rm.listOwned({ namespaces: [NS], listenerId: LISTENER, deploymentId: DEPLOYMENT, slim });
    const cycle = (objects: KubeObject[], inputKey: string) => reconcile(rm, objects, inputKey, true);
    const desired = deployment(NS, 'app', { image: 'slim:1' });
    await cycle([desired], 's1');
    const live = (await list(true)).objects.find((o) => o.kind === 'Deployment') as KubeObject;
    // No template, but what health reads is there.
    expect(isSlim(live)).toBe(true);
    expect(live.spec).toEqual({ replicas: 1 });
    expect(live.status).toBeDefined();
    const whole = (await list(false)).objects.find((o) => o.kind === 'Deployment') as KubeObject;
    expect(isSlim(whole)).toBe(false);
    expect(whole.spec).toHaveProperty('template');

    // Verified for this key: nothing read but the listing, nothing written.
    api.clearRequests();
    expect(await cycle([desired], 's1')).toBe('unchanged');
    expect(api.requests().filter((r) => r.verb !== 'list')).toEqual([]);
    // A new key: the slim entry cannot be compared, so the object is read once, then applied.
    api.clearRequests();
    expect(await cycle([deployment(NS, 'app', { image: 'slim:2' })], 's2')).toBe('configured');
    expect(imageOf()).toBe('slim:2');
    expect(gets()).toBe(1);
    // A manager that forgot everything (a restart) reads once, finds it converged, writes nothing.
    api.clearRequests();
    expect(await reconcile(managerFor(api), [deployment(NS, 'app', { image: 'slim:2' })], 's2', true)).toBe(
      'unchanged',
    );
    expect(gets()).toBe(1);
    expect(api.requests().filter((r) => r.write)).toEqual([]);
  });

  it('keeps a rolled-out Deployment verified when its controller moves the revision annotation', async () => {
    const rm = managerFor(api);
    const revision = () =>
      api.getObject('apps/v1', 'Deployment', NS, 'app')?.metadata?.annotations?.[
        'deployment.kubernetes.io/revision'
      ];
    await reconcile(rm, [deployment(NS, 'app', { image: 'rollout:1' })], 'r1', true);
    const before = Number(await eventually(revision));
    // A new template: applied under a new key; the answer is taken before the controller rolls it
    // out and writes the next revision on the Deployment.
    const desired = deployment(NS, 'app', { image: 'rollout:2' });
    expect(await reconcile(rm, [desired], 'r2', true)).toBe('configured');
    expect(await eventually(() => Number(revision()) === before + 1)).toBe(true);
    // The resync after the rollout: still verified, so nothing is read again.
    api.clearRequests();
    expect(await reconcile(rm, [desired], 'r2', true)).toBe('unchanged');
    expect(gets()).toBe(0);
  });

  it("keeps a workload verified through a controller's status write, not through a change to it", async () => {
    const rm = managerFor(api);
    const desired = deployment(NS, 'app', { image: 'status:1' });
    const resync = () => reconcile(rm, [desired], 't1', true);
    await resync();
    await resync();

    await kubeOf(api).request({
      method: 'PATCH',
      path: `/apis/apps/v1/namespaces/${NS}/deployments/app/status`,
      body: { status: { conditions: [{ type: 'Available', status: 'True', reason: 'StatusWrite' }] } },
      contentType: 'application/merge-patch+json',
    });
    api.clearRequests();
    expect(await resync()).toBe('unchanged');
    expect(gets()).toBe(0);

    // A label added by hand changes the object: read again and compared (a label of someone
    // else's is no drift, so nothing is written).
    await other.mergePatch(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'app', namespace: NS, labels: { extra: 'x' } },
      },
      'kubectl-label',
    );
    api.clearRequests();
    expect(await resync()).toBe('unchanged');
    expect(gets()).toBe(1);
    expect(api.requests().filter((r) => r.write)).toEqual([]);
  });
});
