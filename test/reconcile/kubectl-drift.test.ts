/** Drift made with the real kubectl binary: what another manager owns stays, what we own comes back. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { reconcileDeployment } from '../../src/reconcile/reconcile.ts';
import { renderDeployment } from '../../src/render/index.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { toolPath } from '../../scripts/install-tools.ts';
import { depsFor, input, record } from './fixtures.ts';

let api: KubeApi;
let dir: string;
let caches = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mooring-kubectl-'));
  api = await startKubeApi({ namespaces: ['apps'], kubeconfigOut: join(dir, 'config') });
});
afterAll(async () => {
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

function kubectl(...args: string[]): Promise<{ code: number; stderr: string }> {
  caches += 1;
  return new Promise((resolve) => {
    execFile(
      toolPath('kubectl'),
      ['--kubeconfig', join(dir, 'config'), '--cache-dir', join(dir, `cache-${caches}`), ...args],
      { timeout: 20_000 },
      (error, _stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
    );
  });
}

describe('drift made with kubectl', () => {
  it('restores the image kubectl set, keeps the annotation kubectl added, then writes nothing', async () => {
    const deps = depsFor(api);
    const dep = record('00000000-0000-4000-8000-0000000000cc');
    await reconcileDeployment(deps, input(dep));
    const rendered = renderDeployment(input(dep)).objects.find(
      (o) => o.kind === 'Deployment' && o.metadata.name === 'shop-api',
    );
    const container = (
      rendered?.spec as
        | { template: { spec: { containers: Array<{ name: string; image: string }> } } }
        | undefined
    )?.template.spec.containers[0];
    expect(
      await kubectl('-n', 'apps', 'annotate', 'deployment', 'shop-api', 'team.example.com/note=keep'),
    ).toMatchObject({ code: 0 });
    expect(
      await kubectl(
        '-n',
        'apps',
        'set',
        'image',
        'deployment/shop-api',
        `${container?.name}=evil.example.com/x:1`,
      ),
    ).toMatchObject({ code: 0 });
    const image = () =>
      (api.getObject('apps/v1', 'Deployment', 'apps', 'shop-api') as KubeObject).spec as {
        template: { spec: { containers: Array<{ image: string }> } };
      };
    expect(image().template.spec.containers[0]?.image).toBe('evil.example.com/x:1');

    const res = await reconcileDeployment(deps, input(dep));
    const entry = res.changeSet.entries.find((e) => e.id === 'Deployment/apps/shop-api');
    expect(entry?.action).toBe('configured');
    expect(entry?.conflicts?.map((c) => c.manager)).toEqual(['kubectl-set']);
    expect(image().template.spec.containers[0]?.image).toBe(container?.image);
    const live = api.getObject('apps/v1', 'Deployment', 'apps', 'shop-api') as KubeObject;
    expect(live.metadata.annotations?.['team.example.com/note']).toBe('keep');

    api.clearRequests();
    await reconcileDeployment(deps, input(dep));
    expect(api.requests({ write: true })).toEqual([]);
  });
});
