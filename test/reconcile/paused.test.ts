/**
 * Pausing in one reconcile (src/reconcile/paused.ts): a paused object is neither applied nor
 * pruned; a paused API server Deployment leaves the whole deployment alone, its deletion too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { reconcileDeployment } from '../../src/reconcile/reconcile.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { OtherManager } from '../kube/sandbox.ts';
import { depsFor, input, record } from './fixtures.ts';

const NAMESPACES = ['one', 'whole', 'gone'];
const PAUSE = { 'mooring.dev/reconcile': 'disabled' };
let api: KubeApi;

beforeAll(async () => {
  api = await startKubeApi({ namespaces: NAMESPACES });
});
afterAll(async () => {
  await api?.close();
});

function uuid(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

/** `kubectl annotate`-like: another manager sets annotations (and, with `spec`, a hand edit). */
async function handEdit(namespace: string, kind: string, name: string, patch: Partial<KubeObject> = {}) {
  const apiVersion = kind === 'Service' ? 'v1' : 'apps/v1';
  await new OtherManager(api).mergePatch(
    { apiVersion, kind, metadata: { name, namespace, annotations: PAUSE }, ...patch } as KubeObject,
    'kubectl-annotate',
  );
}

const replicas = (ns: string, name: string) =>
  (api.getObject('apps/v1', 'Deployment', ns, name) as { spec: { replicas: number } } | undefined)?.spec
    .replicas;

describe('paused objects in a reconcile', () => {
  it('a paused object keeps its hand edit; its deployment is otherwise reconciled', async () => {
    const deps = depsFor(api, { namespaces: NAMESPACES });
    const dep = record(uuid(1), { namespace: 'one' });
    await reconcileDeployment(deps, input(dep));
    await handEdit('one', 'Deployment', 'shop-api-redis', { spec: { replicas: 3 } } as Partial<KubeObject>);
    await new OtherManager(api).mergePatch(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'shop-api', namespace: 'one' },
        spec: { replicas: 5 },
      } as KubeObject,
      'kubectl-scale',
    );
    const r = await reconcileDeployment(deps, input(dep));
    expect(replicas('one', 'shop-api-redis')).toBe(3);
    expect(replicas('one', 'shop-api')).not.toBe(5);
    const entry = r.changeSet.entries.find((e) => e.id === 'Deployment/one/shop-api-redis');
    expect(entry).toMatchObject({ action: 'skipped', note: 'paused (mooring.dev/reconcile: disabled)' });
    expect(r.converged).toBeUndefined();
  });

  it('the API server Deployment paused: nothing of the deployment applied', async () => {
    const deps = depsFor(api, { namespaces: NAMESPACES });
    const dep = record(uuid(2), { namespace: 'whole' });
    await reconcileDeployment(deps, input(dep));
    await handEdit('whole', 'Deployment', 'shop-api', { spec: { replicas: 4 } } as Partial<KubeObject>);
    api.clearRequests();
    const r = await reconcileDeployment(
      deps,
      input(record(uuid(2), { namespace: 'whole', image: 'registry.example.com/shop/api:2.0.0' })),
    );
    expect(api.requests({ write: true })).toEqual([]);
    expect(replicas('whole', 'shop-api')).toBe(4);
    expect(r.changeSet.entries.every((e) => e.action === 'skipped')).toBe(true);
    expect(r.changeSet.entries[0]?.note).toBe(
      'deployment paused (mooring.dev/reconcile: disabled on its Deployment)',
    );
  });

  it('a paused deployment marked AWAITING_DELETE keeps every object', async () => {
    const deps = depsFor(api, { namespaces: NAMESPACES });
    await reconcileDeployment(deps, input(record(uuid(3), { namespace: 'gone' })));
    await handEdit('gone', 'Deployment', 'shop-api');
    await reconcileDeployment(deps, input(record(uuid(3), { namespace: 'gone', status: 'AWAITING_DELETE' })));
    expect(api.hasObject('apps/v1', 'Deployment', 'gone', 'shop-api')).toBe(true);
    expect(api.hasObject('v1', 'Service', 'gone', 'shop-api-redis')).toBe(true);
  });
});
