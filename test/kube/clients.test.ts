import diagnostics from 'node:diagnostics_channel';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/kube/clients.ts';
import { ObjectClient } from '../../src/kube/object-client.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';

let api: KubeApi;
let dir: string;
beforeAll(async () => {
  api = await startKubeApi({ namespaces: ['apps'] });
  dir = mkdtempSync(join(tmpdir(), 'mooring-kc-'));
});
afterAll(async () => {
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

const namespaces = async (kube: ReturnType<typeof createKubeClient>) =>
  (
    await kube.request<{ items: Array<{ metadata: { name: string } }> }>({
      method: 'GET',
      path: '/api/v1/namespaces',
    })
  ).body.items.map((n) => n.metadata.name);

describe('createKubeClient', () => {
  it('loads kubeconfig YAML or a file path and talks TLS (verified against its CA) to the server it names', async () => {
    const fromYaml = createKubeClient(api.kubeconfig);
    expect(fromYaml.server).toBe(api.url);
    const path = join(dir, 'config');
    writeFileSync(path, api.kubeconfig);
    const fromFile = createKubeClient(path);
    expect(await namespaces(fromFile)).toContain('default');
    await Promise.all([fromYaml.close(), fromFile.close()]);
  });

  it('refuses a missing file or a config without a cluster with MOORING_E_CONFIG_INVALID', () => {
    expect(() => createKubeClient(join(dir, 'absent'))).toThrow(
      expect.objectContaining({ code: 'MOORING_E_CONFIG_INVALID' }),
    );
    expect(() =>
      createKubeClient('apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n'),
    ).toThrow(expect.objectContaining({ code: 'MOORING_E_CONFIG_INVALID' }));
  });

  it('reuses its connections: 30 requests open a handful of TLS connections, not 30', async () => {
    const kube = createKubeClient(api.kubeconfig);
    let connected = 0;
    const onConnect = () => {
      connected += 1;
    };
    diagnostics.subscribe('undici:client:connected', onConnect);
    try {
      for (let i = 0; i < 30; i += 1) await namespaces(kube);
    } finally {
      diagnostics.unsubscribe('undici:client:connected', onConnect);
      await kube.close();
    }
    expect(connected).toBeGreaterThan(0);
    expect(connected).toBeLessThanOrEqual(2);
  });

  it('names the replica in its User-Agent', async () => {
    const kube = createKubeClient(api.kubeconfig, { userAgent: 'mooring/1.2.3 (pod-a)' });
    api.clearRequests();
    await namespaces(kube);
    await kube.close();
    const seen = api.requests().map((r) => r.userAgent);
    expect(seen).toContain('mooring/1.2.3 (pod-a)');
  });

  it('sends objects as wire JSON both ways: a NetworkPolicy keeps ingress[].from', async () => {
    const kube = createKubeClient(api.kubeconfig);
    const client = new ObjectClient(kube);
    const policy = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'np', namespace: 'apps' },
      spec: {
        podSelector: { matchLabels: { app: 'db' } },
        ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }] }],
      },
    };
    const first = await client.apply(policy, { fieldManager: 'mooring', force: true });
    expect(first.created).toBe(true);
    expect((first.object.spec as typeof policy.spec).ingress[0]?.from).toEqual(policy.spec.ingress[0]?.from);
    const again = await client.apply(policy, { fieldManager: 'mooring', force: true });
    expect(again.created).toBe(false);
    const listed = await client.list('networking.k8s.io/v1', 'NetworkPolicy', 'apps', '');
    expect(listed.map((o) => [o.kind, o.metadata.name])).toEqual([['NetworkPolicy', 'np']]);
    expect(await client.delete(policy)).toBe('deleted');
    expect(await client.delete(policy)).toBe('absent');
    expect(await client.get(policy)).toBeUndefined();
    await kube.close();
  });
});
