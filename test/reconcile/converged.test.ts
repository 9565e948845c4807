import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarize } from '../../src/objects/change-set.ts';
import type { ResourceManager } from '../../src/kube/resource-manager.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { isClaimOf } from '../../src/reconcile/steps.ts';
import { reconcileDeployment } from '../../src/reconcile/reconcile.ts';
import type { ReconcileResult } from '../../src/reconcile/result.ts';
import type { ReconcileDeps } from '../../src/reconcile/types.ts';
import { renderDeployment } from '../../src/render/index.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { OtherManager } from '../kube/sandbox.ts';
import { depsFor, input, LISTENER_ID, record } from './fixtures.ts';

const ID = '6a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
let api: KubeApi;

beforeAll(async () => {
  api = await startKubeApi({ namespaces: ['apps'] });
});
afterAll(async () => {
  await api?.close();
});

/** Reconcile deps whose renders are counted, with the resource manager's memo as `verified`. */
function counted(overrides: Parameters<typeof depsFor>[1] = {}) {
  let renders = 0;
  const base = depsFor(api, overrides);
  const rm = base.resources as ResourceManager;
  const deps: ReconcileDeps = {
    ...base,
    verified: (o, key) => rm.isVerified(o, key),
    render: (i) => {
      renders++;
      return renderDeployment(i);
    },
  };
  return { deps, renders: () => renders };
}

/** One pass of the deployment under `key`, given the previous pass's result. */
function pass(deps: ReconcileDeps, key: string, previous?: ReconcileResult) {
  return reconcileDeployment(deps, { ...input(record(ID)), inputKey: key, converged: previous?.converged });
}

/** A pass under k1 that passes on what it verified (a second one when the first wrote). */
async function convergedPass(deps: ReconcileDeps): Promise<ReconcileResult> {
  const first = await pass(deps, 'k1');
  const result = first.converged ? first : await pass(deps, 'k1', first);
  expect(result.converged).toBeDefined();
  return result;
}

/** A Service of ours (by its labels) in the namespace, as another tool would write or delete it. */
const service = (name: string, extra: Record<string, unknown> = {}) =>
  ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'apps', ...extra } }) as KubeObject;

const owner = {
  'app.kubernetes.io/managed-by': 'mooring',
  'mooring.dev/listener-id': LISTENER_ID,
  'mooring.dev/deployment-id': ID,
};

// The cases run in order on one deployment and one memo, each starting from a converged pass.
describe('the resync shortcut (converged.ts)', () => {
  let deps: ReconcileDeps;
  let renders: () => number;
  let converged: ReconcileResult;
  beforeAll(() => {
    ({ deps, renders } = counted());
  });

  it('a pass that created every object passes on what it left verified; the next with the same key renders nothing and reads one listing', async () => {
    const created = await pass(deps, 'k1');
    expect(created.changeSet.entries.some((e) => e.action === 'created')).toBe(true);
    expect(created.converged).toMatchObject({ key: 'k1', objects: created.changeSet.entries.length });
    expect(renders()).toBe(1);

    api.clearRequests();
    converged = await pass(deps, 'k1', created);
    expect(renders()).toBe(1);
    expect(summarize(converged.changeSet)).toMatch(/^unchanged \d+$/);
    expect(new Set(converged.changeSet.entries.map((e) => e.id))).toEqual(
      new Set(created.changeSet.entries.map((e) => e.id)),
    );
    expect(converged.converged).toEqual(created.converged);
    expect(api.requests({ write: true })).toEqual([]);
    expect(api.requests().every((r) => r.verb === 'list')).toBe(true);
  });

  it('a pass that wrote nothing passes on the same, and the shortcut reports what it would', async () => {
    const full = await pass(deps, 'k1');
    expect(renders()).toBe(2);
    expect(summarize(full.changeSet)).toBe(summarize(converged.changeSet));
    expect(full.converged).toEqual(converged.converged);
    expect(converged.health.state).toBe(full.health.state);
    expect(converged.health.reason).toBe(full.health.reason);
  });

  it('a dry run, or another key, takes the full pass', async () => {
    // The memo holds every object as verified for k1: only the dry run stops the shortcut.
    const before = renders();
    const dry = await pass({ ...deps, settings: { ...deps.settings, dryRun: true } }, 'k1', converged);
    expect(renders()).toBe(before + 1);
    expect(dry.converged).toBeUndefined();
    await pass(deps, 'k2', converged);
    expect(renders()).toBe(before + 2);
  });

  it('an object edited by hand takes the full pass, which restores it and leaves it verified for the shortcut', async () => {
    const previous = await convergedPass(deps);
    const before = renders();
    await new OtherManager(api).scale('apps', 'shop-api', 5, 'kubectl-edit');
    const restored = await pass(deps, 'k1', previous);
    expect(renders()).toBe(before + 1);
    expect(restored.changeSet.entries.find((e) => e.id === 'Deployment/apps/shop-api')?.action).toBe(
      'configured',
    );
    const live = api.getObject('apps/v1', 'Deployment', 'apps', 'shop-api') as KubeObject;
    expect((live.spec as { replicas: number }).replicas).toBe(2);
    expect(restored.converged).toEqual(previous.converged);
    api.clearRequests();
    await pass(deps, 'k1', restored);
    expect(renders()).toBe(before + 1);
    expect(api.requests({ write: true })).toEqual([]);
  });

  it('an object deleted by hand, or one more owned object, takes the full pass (recreated, pruned)', async () => {
    const previous = await convergedPass(deps);
    const gone = previous.changeSet.entries.find((e) => e.kind === 'Service') as { id: string; name: string };
    expect(gone).toBeDefined();
    await new OtherManager(api).delete(service(gone.name));
    const before = renders();
    const recreated = await pass(deps, 'k1', previous);
    expect(renders()).toBe(before + 1);
    expect(recreated.changeSet.entries.find((e) => e.id === gone.id)?.action).toBe('created');
    expect(recreated.converged).toBeDefined();

    await new OtherManager(api).apply(
      { ...service('left-behind', { labels: owner }), spec: { ports: [{ port: 80 }] } },
      'mooring',
    );
    const pruned = await pass(deps, 'k1', recreated);
    expect(renders()).toBe(before + 2);
    expect(pruned.changeSet.entries.find((e) => e.id === 'Service/apps/left-behind')?.action).toBe('deleted');
    // A pass that pruned passes nothing on: what it deleted may still be listed, terminating.
    expect(pruned.converged).toBeUndefined();
  });

  it('one object gone and one more owned (the same count) takes the full pass', async () => {
    const previous = await convergedPass(deps);
    const gone = previous.changeSet.entries.find((e) => e.kind === 'Service') as { id: string; name: string };
    expect(gone).toBeDefined();
    const other = new OtherManager(api);
    await other.delete(service(gone.name));
    await other.apply(
      { ...service('swapped-in', { labels: owner }), spec: { ports: [{ port: 80 }] } },
      'mooring',
    );
    const before = renders();
    const full = await pass(deps, 'k1', previous);
    expect(renders()).toBe(before + 1);
    const actions = new Map(full.changeSet.entries.map((e) => [e.id, e.action]));
    expect(actions.get(gone.id)).toBe('created');
    expect(actions.get('Service/apps/swapped-in')).toBe('deleted');
  });

  it('an object being deleted (held by a finalizer) takes the full pass', async () => {
    const other = new OtherManager(api);
    const held = service('shop-api-redis');
    await convergedPass(deps);
    await other.mergePatch(
      service('shop-api-redis', { finalizers: ['example.com/hold'] }),
      'some-controller',
    );
    // The finalizer moved the resourceVersion: one full pass verifies the Service again.
    const previous = await convergedPass(deps);
    await other.delete(held);
    const before = renders();
    await expect(pass(deps, 'k1', previous)).rejects.toMatchObject({ code: 'MOORING_E_KUBE_CONFLICT' });
    expect(renders()).toBe(before + 1);
    await other.mergePatch(service('shop-api-redis', { finalizers: null }), 'some-controller');
    const recreated = await pass(deps, 'k1');
    expect(recreated.changeSet.entries.find((e) => e.id === 'Service/apps/shop-api-redis')?.action).toBe(
      'created',
    );
  });

  it("a StatefulSet's volume claims are owned but do not count against the shortcut", async () => {
    const previous = await convergedPass(deps);
    expect(previous.converged?.claimPrefixes.length).toBeGreaterThan(0);
    const prefix = previous.converged?.claimPrefixes[0] as string;
    await new OtherManager(api).apply(
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: `${prefix}0`, namespace: 'apps', labels: owner },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } },
      },
      'kube-controller-manager',
    );
    const kept = await pass(deps, 'k1', previous);
    expect(kept.converged).toBeDefined();
    const before = renders();
    await pass(deps, 'k1', kept);
    expect(renders()).toBe(before);
  });
});

describe('isClaimOf', () => {
  const pvc = (name: string, kind = 'PersistentVolumeClaim') =>
    ({ apiVersion: 'v1', kind, metadata: { name } }) as KubeObject;
  it('is a claim template prefix followed by an ordinal, and only a PersistentVolumeClaim', () => {
    const prefixes = ['data-shop-api-postgres-'];
    expect(isClaimOf(prefixes, pvc('data-shop-api-postgres-0'))).toBe(true);
    expect(isClaimOf(prefixes, pvc('data-shop-api-postgres-12'))).toBe(true);
    expect(isClaimOf(prefixes, pvc('data-shop-api-postgres-x'))).toBe(false);
    expect(isClaimOf(prefixes, pvc('data-shop-api-postgres-'))).toBe(false);
    expect(isClaimOf(prefixes, pvc('data-shop-api-postgres-0', 'ConfigMap'))).toBe(false);
    expect(isClaimOf([], pvc('data-shop-api-postgres-0'))).toBe(false);
  });
});
