import diagnostics from 'node:diagnostics_channel';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClients } from '../../src/kube/clients.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';

let api: KubeApi;
let dir: string;
beforeAll(async () => {
  api = await startKubeApi();
  dir = mkdtempSync(join(tmpdir(), 'mooring-kc-'));
});
afterAll(async () => {
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('createKubeClients', () => {
  it('loads kubeconfig YAML or a file path and talks TLS to the server it names', async () => {
    const fromYaml = createKubeClients(api.kubeconfig);
    expect(fromYaml.kc.getCurrentCluster()?.server).toBe(api.url);
    const path = join(dir, 'config');
    writeFileSync(path, api.kubeconfig);
    const fromFile = createKubeClients(path);
    const list = await fromFile.objects.list('v1', 'Namespace');
    expect(list.items.map((n) => n.metadata?.name)).toContain('default');
  });

  it('refuses a missing file or a config without a cluster with MOORING_E_CONFIG_INVALID', () => {
    expect(() => createKubeClients(join(dir, 'absent'))).toThrow(
      expect.objectContaining({ code: 'MOORING_E_CONFIG_INVALID' }),
    );
    expect(() =>
      createKubeClients('apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n'),
    ).toThrow(expect.objectContaining({ code: 'MOORING_E_CONFIG_INVALID' }));
  });

  it('reuses its connections: 30 requests open a handful of TLS connections, not 30 (regression: one undici Agent per request)', async () => {
    const { objects } = createKubeClients(api.kubeconfig);
    let connected = 0;
    const onConnect = () => {
      connected += 1;
    };
    diagnostics.subscribe('undici:client:connected', onConnect);
    try {
      for (let i = 0; i < 30; i += 1) await objects.list('v1', 'Namespace');
    } finally {
      diagnostics.unsubscribe('undici:client:connected', onConnect);
    }
    expect(connected).toBeGreaterThan(0);
    expect(connected).toBeLessThanOrEqual(2);
  });
});
