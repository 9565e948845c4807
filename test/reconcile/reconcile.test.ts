import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { EventRecorder } from '../../src/reconcile/events.ts';
import { reconcileDeployment } from '../../src/reconcile/reconcile.ts';
import { renderDeployment } from '../../src/render/index.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { capturedLogger, OtherManager } from '../kube/sandbox.ts';
import { CANARY, depsFor, input, LISTENER_ID, record, SPEC } from './fixtures.ts';

const NAMESPACES = ['apps', 'other', 'unused', 'gone', 'failing', 'rollout', 'preview', 'scaling'];
let api: KubeApi;

beforeAll(async () => {
  api = await startKubeApi({ namespaces: [...NAMESPACES, 'forbidden'] });
});
afterAll(async () => {
  await api?.close();
});

function harness(namespace: string, settings: Parameters<typeof depsFor>[1] = {}) {
  const sent: KubeObject[] = [];
  let now = Date.parse('2026-01-01T00:00:00Z');
  const log = capturedLogger();
  const base = depsFor(api, { namespaces: NAMESPACES, ...settings });
  const events = new EventRecorder({
    sink: {
      create: async (e) => {
        sent.push(e);
        return (base.resources as unknown as { create(o: KubeObject): Promise<KubeObject> }).create(e);
      },
    },
    clock: () => now,
  });
  const deps = { ...base, events, logger: log.logger };
  return { deps, sent, log, advance: (ms: number) => (now += ms), namespace };
}

/** A reconcile, then its events written: events are sent in the background. */
async function reconcile(...args: Parameters<typeof reconcileDeployment>) {
  try {
    return await reconcileDeployment(...args);
  } finally {
    await args[0].events?.flush();
  }
}

function uuid(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

async function settled(ns: string, kind: 'Deployment' | 'StatefulSet', name: string): Promise<void> {
  await vi.waitFor(() => {
    const o = api.getObject('apps/v1', kind, ns, name) as KubeObject | undefined;
    expect((o?.status as { observedGeneration?: number } | undefined)?.observedGeneration).toBe(
      o?.metadata.generation,
    );
  });
}

describe('reconcileDeployment', () => {
  it('refuses a namespace outside the allowlist with a terminal error and makes no request at all', async () => {
    const { deps } = harness('forbidden');
    api.clearRequests();
    await expect(reconcile(deps, input(record(uuid(1), { namespace: 'forbidden' })))).rejects.toMatchObject({
      name: 'TerminalError',
      code: 'MOORING_E_NAMESPACE_NOT_ALLOWED',
      message: expect.stringMatching(/namespace forbidden is not one of the agent's namespaces/),
    });
    expect(api.requests()).toEqual([]);
  });

  it('refuses a render that puts any object outside the allowlist, before any request', async () => {
    const { deps } = harness('apps');
    const render = (i: Parameters<typeof renderDeployment>[0]) => {
      const r = renderDeployment(i);
      const stray = { ...r.objects[0], metadata: { ...r.objects[0]!.metadata, namespace: 'other' } };
      return { ...r, objects: [...r.objects, stray] } as typeof r;
    };
    api.clearRequests();
    await expect(reconcile({ ...deps, render }, input(record(uuid(9))))).rejects.toMatchObject({
      code: 'MOORING_E_NAMESPACE_NOT_ALLOWED',
      message: expect.stringMatching(
        /^NetworkPolicy\/other\/shop-api-datastores: rendered outside the deployment's namespace apps/,
      ),
    });
    expect(api.requests()).toEqual([]);
  });

  it('applies, reports Applied once, becomes Ready, prunes a removed component, never leaks a secret', async () => {
    const h = harness('apps');
    const dep = record(uuid(2));
    const first = await reconcile(h.deps, input(dep));
    expect(first.health.state).toBe('Progressing');
    expect(first.requeueAfterMs).toBe(5_000);
    expect(h.sent.map((e) => [e.reason, (e.involvedObject as { kind: string; name: string }).name])).toEqual([
      ['Applied', 'shop-api'],
    ]);
    expect(String(h.sent[0]?.message)).toMatch(/^created \d+: /);
    expect(api.requests({ resource: 'events', verb: 'create' }).map((r) => r.status)).toEqual([201]);
    await settled('apps', 'Deployment', 'shop-api');
    await settled('apps', 'Deployment', 'shop-api-queue');
    await settled('apps', 'StatefulSet', 'shop-api-postgres');
    await settled('apps', 'Deployment', 'shop-api-redis');
    const second = await reconcile(h.deps, input(dep));
    expect(second.health).toMatchObject({ state: 'Ready' });
    expect(second.requeueAfterMs).toBeUndefined();
    expect(h.sent.length).toBe(1);

    // The queue component goes away: its Deployment is pruned, with a Pruned event.
    const {
      queue_min_scale: _a,
      queue_max_scale: _b,
      queue_cpu: _c,
      queue_memory_mb: _d,
      ...noQueue
    } = SPEC as Record<string, unknown>;
    const third = await reconcile(h.deps, input(record(uuid(2), { spec: noQueue as typeof SPEC })));
    expect(third.changeSet.entries.filter((e) => e.action === 'deleted').map((e) => e.id)).toEqual([
      'Deployment/apps/shop-api-queue',
    ]);
    expect(api.getObject('apps/v1', 'Deployment', 'apps', 'shop-api-queue')).toBeUndefined();
    // Nothing else changed: no Applied event, one Pruned.
    expect(h.sent.map((e) => e.reason)).toEqual(['Applied', 'Pruned']);

    const everything = JSON.stringify({ events: h.sent, results: [first, second, third] }) + h.log.text();
    expect(everything).not.toContain(CANARY);
    expect(everything).not.toContain(Buffer.from(CANARY).toString('base64'));
  });

  it('UNUSED scales every workload to zero and keeps data', async () => {
    const h = harness('unused');
    await reconcile(h.deps, input(record(uuid(3), { namespace: 'unused' })));
    const res = await reconcile(h.deps, input(record(uuid(3), { namespace: 'unused', status: 'UNUSED' })));
    const replicas = (kind: string, name: string) =>
      (api.getObject('apps/v1', kind, 'unused', name)?.spec as { replicas?: number } | undefined)?.replicas;
    for (const name of ['shop-api', 'shop-api-queue', 'shop-api-redis'])
      expect(replicas('Deployment', name)).toBe(0);
    expect(replicas('StatefulSet', 'shop-api-postgres')).toBe(0);
    expect(api.getObject('v1', 'Secret', 'unused', 'shop-api-postgres-credentials')).toBeDefined();
    expect(res.changeSet.entries.some((e) => e.error)).toBe(false);
  });

  it('AWAITING_DELETE deletes everything it owns except volumes: Deleting → Deleted', async () => {
    const h = harness('gone');
    const dep = record(uuid(4), { namespace: 'gone' });
    await reconcile(h.deps, input(dep));
    // A PVC the StatefulSet made from our claim template.
    await new OtherManager(api).apply(
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: {
          name: 'data-shop-api-postgres-0',
          namespace: 'gone',
          labels: {
            'app.kubernetes.io/managed-by': 'mooring',
            'mooring.dev/listener-id': LISTENER_ID,
            'mooring.dev/deployment-id': uuid(4),
          },
        },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } },
      },
      'kube-controller-manager',
    );
    // One of its objects is held by a finalizer: Deleting until it goes.
    const held = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'held',
        namespace: 'gone',
        finalizers: ['example.com/hold'],
        labels: {
          'app.kubernetes.io/managed-by': 'mooring',
          'mooring.dev/listener-id': LISTENER_ID,
          'mooring.dev/deployment-id': uuid(4),
        },
      },
      spec: { ports: [{ port: 80 }] },
    };
    const heldCs = await h.deps.resources.applyAll([held]);
    expect(heldCs.entries[0]?.action).toBe('created');
    const deleting = await reconcile(
      h.deps,
      input(record(uuid(4), { namespace: 'gone', status: 'AWAITING_DELETE' })),
    );
    expect(deleting.health).toMatchObject({
      state: 'Deleting',
      reason: 'Service/gone/held: 1 owned objects remain',
    });
    expect(deleting.requeueAfterMs).toBe(5_000);
    api.clearRequests();
    const still = await reconcile(
      h.deps,
      input(record(uuid(4), { namespace: 'gone', status: 'AWAITING_DELETE' })),
    );
    expect(still.health.state).toBe('Deleting');
    expect(api.requests({ write: true })).toEqual([]);
    await new OtherManager(api).mergePatch(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'held', namespace: 'gone', finalizers: null },
      } as never,
      'some-controller',
    );
    const res = await reconcile(
      h.deps,
      input(record(uuid(4), { namespace: 'gone', status: 'AWAITING_DELETE' })),
    );
    expect(res.health.state).toBe('Deleted');
    const left = await h.deps.resources.listOwned({
      namespaces: ['gone'],
      listenerId: LISTENER_ID,
      deploymentId: uuid(4),
    });
    expect(left.objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'PersistentVolumeClaim/data-shop-api-postgres-0',
    ]);
    expect(h.sent.map((e) => e.reason)).toEqual(['Applied', 'Pruned']);
    const again = await reconcile(
      h.deps,
      input(record(uuid(4), { namespace: 'gone', status: 'AWAITING_DELETE' })),
    );
    expect(again.health.state).toBe('Deleted');
  });

  it('a failed apply throws a retryable error carrying the change set, with one ApplyFailed event per minute', async () => {
    const h = harness('failing');
    api.setFaults([{ verb: 'apply', resource: 'statefulsets', namespace: 'failing', status: 503 }]);
    try {
      const dep = record(uuid(5), { namespace: 'failing' });
      const err = await reconcile(h.deps, input(dep)).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'MOORING_E_KUBE_SERVER', retryable: true });
      expect((err as Error).message).toMatch(/^StatefulSet\/failing\/shop-api-postgres: /);
      const view = (err as { details: { changeSet: Array<{ id: string; action: string }> } }).details
        .changeSet;
      expect(view.find((e) => e.id === 'StatefulSet/failing/shop-api-postgres')?.action).toBe('unknown');
      expect(view.find((e) => e.id === 'Secret/failing/shop-api-env')?.action).toBe('created');
      await reconcile(h.deps, input(dep)).catch(() => undefined);
      expect(h.sent.filter((e) => e.reason === 'ApplyFailed').length).toBe(1);
      h.advance(61_000);
      await reconcile(h.deps, input(dep)).catch(() => undefined);
      expect(h.sent.filter((e) => e.reason === 'ApplyFailed').length).toBe(2);
      expect(JSON.stringify(h.sent)).not.toContain(CANARY);
    } finally {
      api.clearFaults();
    }
  });

  it('a rollout past its progress deadline is Failed with MOORING_E_ROLLOUT_FAILED, naming the object', async () => {
    const h = harness('rollout');
    const dep = record(uuid(6), { namespace: 'rollout' });
    await reconcile(h.deps, input(dep));
    await settled('rollout', 'Deployment', 'shop-api');
    api.failRollout('rollout', 'shop-api');
    await reconcile(
      h.deps,
      input(record(uuid(6), { namespace: 'rollout', image: 'registry.example.com/shop/api:2.0.0' })),
    );
    await settled('rollout', 'Deployment', 'shop-api');
    const res = await reconcile(
      h.deps,
      input(record(uuid(6), { namespace: 'rollout', image: 'registry.example.com/shop/api:2.0.0' })),
    );
    expect(res.health).toMatchObject({
      state: 'Failed',
      code: 'MOORING_E_ROLLOUT_FAILED',
      reason: 'Deployment/rollout/shop-api: progress deadline exceeded',
    });
    expect(res.requeueAfterMs).toBe(60_000);
  });

  it('autoscaling on keeps the running replica count; off sets min_scale (renderer output end to end)', async () => {
    const h = harness('scaling');
    const spec = (min: number, max: number) => ({ ...SPEC, min_scale: min, max_scale: max }) as typeof SPEC;
    const replicas = () =>
      (
        api.getObject('apps/v1', 'Deployment', 'scaling', 'shop-api')?.spec as
          | { replicas?: number }
          | undefined
      )?.replicas;
    await reconcile(h.deps, input(record(uuid(8), { namespace: 'scaling', spec: spec(3, 3) })));
    expect(replicas()).toBe(3);
    const on = await reconcile(h.deps, input(record(uuid(8), { namespace: 'scaling', spec: spec(2, 6) })));
    expect(
      on.changeSet.entries.find((e) => e.id === 'HorizontalPodAutoscaler/scaling/shop-api')?.action,
    ).toBe('created');
    expect(replicas()).toBe(3);
    // The autoscaler moves it; later reconciles leave its count alone.
    await new OtherManager(api).scale('scaling', 'shop-api', 5, 'horizontal-pod-autoscaler');
    await reconcile(h.deps, input(record(uuid(8), { namespace: 'scaling', spec: spec(2, 6) })));
    expect(replicas()).toBe(5);
    const off = await reconcile(h.deps, input(record(uuid(8), { namespace: 'scaling', spec: spec(4, 4) })));
    expect(
      off.changeSet.entries.find((e) => e.id === 'HorizontalPodAutoscaler/scaling/shop-api')?.action,
    ).toBe('deleted');
    expect(replicas()).toBe(4);
  });

  it('dry-run previews every change and writes nothing (no objects, no events)', async () => {
    const h = harness('preview', { dryRun: true });
    api.clearRequests();
    const res = await reconcile(h.deps, input(record(uuid(7), { namespace: 'preview' })));
    expect(res.changeSet.dryRun).toBe(true);
    expect(res.changeSet.entries.filter((e) => e.action === 'created').length).toBeGreaterThan(5);
    expect(api.requests({ write: true }).every((r) => r.dryRun)).toBe(true);
    expect(api.getObject('apps/v1', 'Deployment', 'preview', 'shop-api')).toBeUndefined();
    expect(h.sent).toEqual([]);
  });
});
