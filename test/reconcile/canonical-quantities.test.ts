/**
 * The sandbox stores quantities canonically, as a real API server does: a deployment whose spec
 * writes them in other forms (`0.5` CPU, `1024Mi`, `1.5Gi`, a number) must still converge, with
 * zero writes on the next passes, rather than rewrite them forever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceSpecRecord } from '../../src/contract/index.ts';
import { reconcileDeployment } from '../../src/reconcile/reconcile.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { depsFor, input, record, SPEC } from './fixtures.ts';

let api: KubeApi;
beforeAll(async () => {
  api = await startKubeApi({ namespaces: ['apps'] });
});
afterAll(async () => {
  await api?.close();
});

const SPEC_WITH_FORMS = {
  ...SPEC,
  volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1024Mi' } }],
  init_containers: [
    {
      name: 'warm',
      image: 'registry.example.com/shop/warm:1',
      resources: { requests: { cpu: '0.5', memory: '1024Mi' }, limits: { cpu: 1, memory: '1.5Gi' } },
    },
  ],
} as ResourceSpecRecord;

describe('canonical quantities on the server, no perpetual diff in the agent', () => {
  it('user quantities in non-canonical forms converge; the next two passes write nothing', async () => {
    const deps = depsFor(api);
    const dep = record('5f2c7e1a-8b3d-4c6e-9f0a-1b2c3d4e5f70', { spec: SPEC_WITH_FORMS });
    const first = await reconcileDeployment(deps, input(dep));
    expect(first.changeSet.entries.every((e) => e.error === undefined)).toBe(true);
    const live = api.getObject('apps/v1', 'Deployment', 'apps', 'shop-api') as {
      spec: {
        template: { spec: { initContainers: { name: string; resources: unknown }[]; volumes: unknown[] } };
      };
    };
    const pod = live.spec.template.spec;
    // What the server stores: canonical strings, whatever form the spec used.
    expect(pod.initContainers.find((c) => c.name === 'warm')?.resources).toEqual({
      requests: { cpu: '500m', memory: '1Gi' },
      limits: { cpu: '1', memory: '1536Mi' },
    });
    expect(pod.volumes).toContainEqual(expect.objectContaining({ emptyDir: { sizeLimit: '1Gi' } }));
    for (let pass = 0; pass < 2; pass++) {
      api.clearRequests();
      const again = await reconcileDeployment(deps, input(dep));
      expect(again.changeSet.entries.filter((e) => e.action !== 'unchanged')).toEqual([]);
      expect(api.requests({ write: true }).map((r) => `${r.verb} ${r.path}`)).toEqual([]);
    }
  });
});
