import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarize } from '../../src/kube/change-set.ts';
import type { ResourceManager } from '../../src/kube/resource-manager.ts';
import type { KubeObject } from '../../src/kube/types.ts';
import { isClaimOf } from '../../src/reconcile/converged.ts';
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

const owner = {
  'app.kubernetes.io/managed-by': 'mooring',
  'mooring.dev/listener-id': LISTENER_ID,
  'mooring.dev/deployment-id': ID,
};

describe('the resync shortcut (converged.ts)', () => {
  let deps: ReconcileDeps;
  let renders: () => number;
  let converged: ReconcileResult;
  beforeAll(() => {
    ({ deps, renders } = counted());
  });

  it('a pass that wrote nothing passes on what it verified; the next with the same key renders nothing and reads one listing', async () => {
    const created = await pass(deps, 'k1');
    expect(created.changeSet.entries.some((e) => e.action === 'created')).toBe(true);
    expect(created.converged).toBeUndefined();
    const full = await pass(deps, 'k1', created);
    expect(summarize(full.changeSet)).toMatch(/^unchanged \d+$/);
    expect(full.converged).toMatchObject({ key: 'k1', objects: full.changeSet.entries.length });
    expect(renders()).toBe(2);

    api.clearRequests();
    converged = await pass(deps, 'k1', full);
    expect(renders()).toBe(2);
    expect(summarize(converged.changeSet)).toBe(summarize(full.changeSet));
    expect(new Set(converged.changeSet.entries.map((e) => e.id))).toEqual(
      new Set(full.changeSet.entries.map((e) => e.id)),
    );
    expect(converged.health.state).toBe(full.health.state);
    expect(converged.health.reason).toBe(full.health.reason);
    expect(converged.converged).toEqual(full.converged);
    expect(api.requests({ write: true })).toEqual([]);
    expect(api.requests().every((r) => r.verb === 'list')).toBe(true);
  });

  it('another key, or a dry run, takes the full pass', async () => {
    await pass(deps, 'k2', converged);
    expect(renders()).toBe(3);
    const dry = counted({ dryRun: true });
    await pass(dry.deps, 'k1', converged);
    expect(dry.renders()).toBe(1);
  });

  it('an object edited by hand takes the full pass, which restores it; the shortcut returns after a pass that wrote nothing', async () => {
    let previous = await pass(deps, 'k1');
    expect(previous.converged).toBeDefined();
    const before = renders();
    await new OtherManager(api).mergePatch(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'shop-api', namespace: 'apps' },
        spec: { replicas: 5 },
      } as never,
      'kubectl-edit',
    );
    const restored = await pass(deps, 'k1', previous);
    expect(renders()).toBe(before + 1);
    expect(restored.changeSet.entries.find((e) => e.id === 'Deployment/apps/shop-api')?.action).toBe(
      'configured',
    );
    expect(restored.converged).toBeUndefined();
    const live = api.getObject('apps/v1', 'Deployment', 'apps', 'shop-api') as KubeObject;
    expect((live.spec as { replicas: number }).replicas).toBe(2);
    previous = await pass(deps, 'k1', restored);
    expect(previous.converged).toBeDefined();
    await pass(deps, 'k1', previous);
    expect(renders()).toBe(before + 2);
  });

  it('an object deleted by hand, or one more owned object, takes the full pass (recreated, pruned)', async () => {
    const previous = await pass(deps, 'k1');
    expect(previous.converged).toBeDefined();
    const service = previous.changeSet.entries.find((e) => e.kind === 'Service');
    expect(service).toBeDefined();
    await new OtherManager(api).delete({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: service!.name, namespace: 'apps' },
    });
    const before = renders();
    const recreated = await pass(deps, 'k1', previous);
    expect(renders()).toBe(before + 1);
    expect(recreated.changeSet.entries.find((e) => e.id === service!.id)?.action).toBe('created');

    const settledPass = await pass(deps, 'k1', recreated);
    expect(settledPass.converged).toBeDefined();
    await new OtherManager(api).apply(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'left-behind', namespace: 'apps', labels: owner },
        spec: { ports: [{ port: 80 }] },
      },
      'mooring',
    );
    const pruned = await pass(deps, 'k1', settledPass);
    expect(renders()).toBe(before + 3);
    expect(pruned.changeSet.entries.find((e) => e.id === 'Service/apps/left-behind')?.action).toBe('deleted');
  });

  it("a StatefulSet's volume claims are owned but do not count against the shortcut", async () => {
    const previous = await pass(deps, 'k1');
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
