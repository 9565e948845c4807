/**
 * The resync memo: an object verified converged for an input (the deployment's desired-state hash)
 * is not compared again while its resourceVersion stays the same; any change to it (drift by hand,
 * a controller's status write) moves the resourceVersion and brings the full comparison back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/kube/types.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { DEPLOYMENT, deployment, LISTENER } from './fixtures.ts';
import { managerFor, OtherManager } from './sandbox.ts';

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

describe('resync memo (inputKey)', () => {
  it('skips the comparison for a verified object, and only while nothing about it changed', async () => {
    const rm = managerFor(api);
    const cycle = async (objects: KubeObject[], inputKey: string) => {
      const inv = await rm.listOwned({ namespaces: [NS], listenerId: LISTENER, deploymentId: DEPLOYMENT });
      return (await rm.applyAll(objects, { live: inv.byId, inputKey })).entries[0]?.action;
    };
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
});
