import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/kube/clients.ts';
import { ResourceManager } from '../../src/kube/resource-manager.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { basicSet, DEPLOYMENT, LISTENER } from './fixtures.ts';

let api: KubeApi;
let rm: ResourceManager;
const NS = 'apps';

beforeAll(async () => {
  api = await startKubeApi({ namespaces: [NS] });
  rm = new ResourceManager({ kube: createKubeClient(api.kubeconfig) });
});
afterAll(async () => {
  await api?.close();
});
beforeEach(() => api.clearRequests());

describe('ResourceManager against the sandbox', () => {
  it('creates in kind order, then a converged re-apply writes nothing', async () => {
    const cs = await rm.applyAll(basicSet(NS));
    expect(cs.entries.map((e) => [e.id, e.action, e.error?.message])).toEqual([
      ['Secret/apps/app-env', 'created', undefined],
      ['Secret/apps/app-postgres-credentials', 'created', undefined],
      ['Service/apps/app', 'created', undefined],
      ['Deployment/apps/app', 'created', undefined],
    ]);
    const inv = await rm.listOwned({ namespaces: [NS], listenerId: LISTENER, deploymentId: DEPLOYMENT });
    expect(inv.objects.length).toBe(4);
    api.clearRequests();
    const again = await rm.applyAll(basicSet(NS), { live: inv.byId });
    expect(again.entries.map((e) => e.action)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged']);
    expect(api.requests({ write: true })).toEqual([]);
  });

  it('without an inventory, a converged object costs exactly one read and no write', async () => {
    await rm.applyAll(basicSet(NS));
    api.clearRequests();
    const again = await rm.applyAll(basicSet(NS));
    expect(again.entries.map((e) => e.action)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged']);
    expect(api.requests({ write: true })).toEqual([]);
    expect(api.requests().map((r) => r.verb)).toEqual(['get', 'get', 'get', 'get']);
  });

  it('regression: a NetworkPolicy rule keeps its `from` through client-node models (renamed `_from` there)', async () => {
    const np = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'np', namespace: NS, labels: basicSet(NS)[0]?.metadata.labels },
      spec: {
        podSelector: { matchLabels: { app: 'db' } },
        policyTypes: ['Ingress'],
        ingress: [
          {
            from: [{ podSelector: { matchLabels: { app: 'api' } } }],
            ports: [{ port: 5432, protocol: 'TCP' }],
          },
        ],
      },
    };
    await rm.applyAll([np]);
    const live = api.getObject('networking.k8s.io/v1', 'NetworkPolicy', NS, 'np');
    expect((live?.spec as typeof np.spec | undefined)?.ingress[0]?.from).toEqual([
      { podSelector: { matchLabels: { app: 'api' } } },
    ]);
    const inv = await rm.listOwned({ namespaces: [NS], listenerId: LISTENER });
    expect(
      (inv.byId.get(`NetworkPolicy/${NS}/np`)?.spec as typeof np.spec | undefined)?.ingress[0]?.from,
    ).toHaveLength(1);
  });
});
