import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { EventRecorder } from '../../src/reconcile/events.ts';
import { reconcileDeployment } from '../../src/reconcile/reconcile.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { depsFor, input, record } from './fixtures.ts';

let api: KubeApi;
beforeAll(async () => {
  api = await startKubeApi({ namespaces: ['apps'] });
});
afterAll(async () => {
  await api?.close();
});

const BRINGS_ITS_OWN = [
  { name: 'POSTGRES_URI_CUSTOM', secret_name: 'shared-db', secret_key: 'uri' },
  { name: 'REDIS_URI_CUSTOM', secret_name: 'shared-cache', secret_key: 'url' },
];

describe('switching a deployment from bundled datastores to its own (secret_references)', () => {
  it('prunes the StatefulSet and Redis, keeps the volume and says so in one Event; then idles with no write', async () => {
    const sent: KubeObject[] = [];
    const base = depsFor(api, { namespaces: ['apps'] });
    const events = new EventRecorder({
      sink: {
        create: async (e) => {
          sent.push(e);
          return (base.resources as unknown as { create(o: KubeObject): Promise<KubeObject> }).create(e);
        },
      },
    });
    const deps = { ...base, events };
    const run = async (d: ReturnType<typeof record>) => {
      try {
        return await reconcileDeployment(deps, input(d));
      } finally {
        await events.flush();
      }
    };
    const bundled = record('00000000-0000-4000-8000-000000000101');
    await run(bundled);
    const claim = 'data-shop-api-postgres-0';
    await vi.waitFor(() => expect(api.getObject('v1', 'PersistentVolumeClaim', 'apps', claim)).toBeDefined());

    const own = { ...bundled, secret_references: BRINGS_ITS_OWN } as typeof bundled;
    sent.length = 0;
    const switched = await run(own);
    const deleted = switched.changeSet.entries.filter((e) => e.action === 'deleted').map((e) => e.id);
    expect(deleted).toEqual(
      expect.arrayContaining(['StatefulSet/apps/shop-api-postgres', 'Deployment/apps/shop-api-redis']),
    );
    expect(api.getObject('apps/v1', 'StatefulSet', 'apps', 'shop-api-postgres')).toBeUndefined();
    expect(api.getObject('v1', 'PersistentVolumeClaim', 'apps', claim)).toBeDefined();
    const kept = sent.filter((e) => e.reason === 'VolumeKept');
    expect(kept).toHaveLength(1);
    expect(String(kept[0]!.message)).toContain(`PersistentVolumeClaim/apps/${claim}`);

    // Later passes: the kept claim is not deleted, no Event again, no write at all.
    sent.length = 0;
    api.clearRequests();
    await run(own);
    await run(own);
    expect(sent).toEqual([]);
    expect(api.requests().filter((r) => !['get', 'list', 'watch'].includes(r.verb))).toEqual([]);
    expect(api.getObject('v1', 'PersistentVolumeClaim', 'apps', claim)).toBeDefined();
  });
});
