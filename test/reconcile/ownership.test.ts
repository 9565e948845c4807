/**
 * Two deployments whose object names meet, reconciled one after the other against the sandbox
 * (both orders): `shop` renders `shop-redis` (its Redis Deployment and Service), and a deployment
 * named `shop-redis` renders its API server under the same names. The agent's poller refuses the
 * younger before it is reconciled (derived-name collisions, test/render/names.test.ts); this is
 * the line behind it, for what the poller cannot see (another listener, another tenant's agent,
 * another manager): the newcomer is refused with MOORING_E_KUBE_OWNERSHIP and writes nothing,
 * the first owner is untouched. Regression: the newcomer's forced apply took the first owner's
 * objects (a Service selecting the newcomer's pods), or, the other way round, failed forever with
 * "field spec.selector is immutable".
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MooringError } from '../../src/errors.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { EventRecorder } from '../../src/reconcile/events.ts';
import { reconcileDeployment } from '../../src/reconcile/reconcile.ts';
import { defaultRenderSettings, renderDeployment } from '../../src/render/index.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { OtherManager } from '../kube/sandbox.ts';
import { depsFor, input, LISTENER_ID, record } from './fixtures.ts';

const NAMESPACES = ['first', 'second', 'manager', 'listener'];
const SHOP = '00000000-0000-4000-8000-00000000a001';
const SHOP_REDIS = '00000000-0000-4000-8000-00000000a002';
const OTHER_LISTENER = '44444444-4444-4444-8444-444444444444';
let api: KubeApi;
let other: OtherManager;

beforeAll(async () => {
  api = await startKubeApi({ namespaces: NAMESPACES });
  other = new OtherManager(api);
});
afterAll(async () => {
  await api?.close();
});

function harness(listenerId = LISTENER_ID) {
  const sent: KubeObject[] = [];
  const base = depsFor(api, { namespaces: NAMESPACES, listenerId });
  const events = new EventRecorder({
    sink: {
      create: async (e) => {
        sent.push(e);
        return (base.resources as unknown as { create(o: KubeObject): Promise<KubeObject> }).create(e);
      },
    },
  });
  return { deps: { ...base, events }, sent };
}

async function reconcile(...args: Parameters<typeof reconcileDeployment>) {
  try {
    return await reconcileDeployment(...args);
  } finally {
    await args[0].events?.flush();
  }
}

const apiVersionOf = (kind: string) =>
  ({
    Deployment: 'apps/v1',
    StatefulSet: 'apps/v1',
    PodDisruptionBudget: 'policy/v1',
    NetworkPolicy: 'networking.k8s.io/v1',
  })[kind] ?? 'v1';

function get(kind: string, ns: string, name: string): KubeObject | undefined {
  return api.getObject(apiVersionOf(kind), kind, ns, name) as KubeObject | undefined;
}

/** Every object `dep` renders, by id, with its live resourceVersion (once the workloads settled). */
async function versions(
  dep: ReturnType<typeof record>,
  listenerId = LISTENER_ID,
): Promise<Record<string, string>> {
  const { objects } = renderDeployment({ ...input(dep), settings: defaultRenderSettings(listenerId) });
  const ns = dep.source_config.listener_config?.k8s_namespace ?? '';
  await vi.waitFor(() => {
    for (const o of objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet')) {
      const live = get(o.kind, ns, o.metadata.name);
      expect((live?.status as { observedGeneration?: number } | undefined)?.observedGeneration).toBe(
        live?.metadata.generation,
      );
    }
  });
  return Object.fromEntries(
    objects.map((o) => [
      `${o.kind}/${o.metadata.name}`,
      get(o.kind, ns, o.metadata.name)?.metadata.resourceVersion ?? '-',
    ]),
  );
}

function selectorOf(ns: string, name: string): Record<string, string> {
  return (
    (get('Service', ns, name)?.spec as { selector?: Record<string, string> } | undefined)?.selector ?? {}
  );
}

/** The refusal a reconcile threw. */
async function refusal(run: Promise<unknown>): Promise<MooringError> {
  const err = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MooringError);
  return err as MooringError;
}

describe("a deployment named after another one's objects (sandbox, reconcile)", () => {
  it('shop first, then shop-redis: shop keeps its Redis Service and every object as it was; shop-redis is refused', async () => {
    const { deps, sent } = harness();
    const shop = record(SHOP, { name: 'shop', namespace: 'first' });
    const newcomer = record(SHOP_REDIS, { name: 'shop-redis', namespace: 'first' });
    await reconcile(deps, input(shop));
    const before = await versions(shop);
    expect(selectorOf('first', 'shop-redis')).toMatchObject({
      'app.kubernetes.io/component': 'redis',
      'mooring.dev/deployment-id': SHOP,
    });
    api.clearRequests();
    const err = await refusal(reconcile(deps, input(newcomer)));
    expect(err.code).toBe('MOORING_E_KUBE_OWNERSHIP');
    expect(err.message).toMatch(
      new RegExp(`^Service/first/shop-redis: exists and belongs to deployment ${SHOP};`),
    );
    // Terminal: parked, tried again at the next resync (test/agent/runner.test.ts).
    expect(err.retryable).toBe(false);
    // Nothing of the newcomer was written (the Event aside), and shop is as it was.
    expect(api.requests({ write: true }).filter((r) => r.resource !== 'events')).toEqual([]);
    expect(await versions(shop)).toEqual(before);
    expect(selectorOf('first', 'shop-redis')['mooring.dev/deployment-id']).toBe(SHOP);
    // The refusal reaches Events as an ApplyFailed warning with the code.
    const failed = sent.find((e) => e.reason === 'ApplyFailed');
    expect(failed?.message).toMatch(
      /^MOORING_E_KUBE_OWNERSHIP: Service\/first\/shop-redis: exists and belongs to deployment/,
    );
  });

  it('shop-redis first, then shop: shop is refused with the ownership code, not "immutable"; shop-redis keeps running', async () => {
    const { deps } = harness();
    const first = record(SHOP_REDIS, { name: 'shop-redis', namespace: 'second' });
    const shop = record(SHOP, { name: 'shop', namespace: 'second' });
    await reconcile(deps, input(first));
    const before = await versions(first);
    api.clearRequests();
    const err = await refusal(reconcile(deps, input(shop)));
    expect(err.code).toBe('MOORING_E_KUBE_OWNERSHIP');
    expect(err.message).not.toMatch(/immutable/);
    expect(err.message).toMatch(
      new RegExp(`^Service/second/shop-redis: exists and belongs to deployment ${SHOP_REDIS};`),
    );
    expect(api.requests({ write: true }).filter((r) => r.resource !== 'events')).toEqual([]);
    expect(await versions(first)).toEqual(before);
    expect(selectorOf('second', 'shop-redis')).toMatchObject({
      'app.kubernetes.io/component': 'api-server',
      'mooring.dev/deployment-id': SHOP_REDIS,
    });
    // Still refused at the next pass (a resync), still nothing written; the first owner converged.
    await refusal(reconcile(deps, input(shop)));
    const again = await reconcile(deps, input(first));
    expect(again.changeSet.entries.every((e) => e.action === 'unchanged')).toBe(true);
  });

  it("another manager's Service of the same name is not overwritten; once it is gone, the next pass applies", async () => {
    const { deps } = harness();
    await other.create(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'shop', namespace: 'manager' },
        spec: { selector: { app: 'theirs' }, ports: [{ name: 'web', port: 80, targetPort: 8080 }] },
      },
      'kubectl-create',
    );
    const theirs = get('Service', 'manager', 'shop')!;
    const shop = record(SHOP, { name: 'shop', namespace: 'manager' });
    api.clearRequests();
    const err = await refusal(reconcile(deps, input(shop)));
    expect(err.message).toBe(
      `Service/manager/shop: exists and belongs to another manager (kubectl-create); nothing of deployment ${SHOP} written`,
    );
    expect(api.requests({ write: true }).filter((r) => r.resource !== 'events')).toEqual([]);
    expect(get('Service', 'manager', 'shop')).toEqual(theirs);
    await other.delete(theirs);
    const res = await reconcile(deps, input(shop));
    expect(res.changeSet.entries.every((e) => e.action === 'created')).toBe(true);
    expect(selectorOf('manager', 'shop')['mooring.dev/deployment-id']).toBe(SHOP);
  });

  it("another listener's object is not overwritten", async () => {
    const theirs = record(SHOP_REDIS, { name: 'shop', namespace: 'listener' });
    const elsewhere = harness(OTHER_LISTENER);
    await reconcile(elsewhere.deps, { ...input(theirs), settings: defaultRenderSettings(OTHER_LISTENER) });
    const before = await versions(theirs, OTHER_LISTENER);
    const { deps } = harness();
    api.clearRequests();
    const err = await refusal(reconcile(deps, input(record(SHOP, { name: 'shop', namespace: 'listener' }))));
    expect(err.message).toMatch(
      new RegExp(
        `^[A-Za-z]+/listener/shop[-a-z]*: exists and belongs to deployment ${SHOP_REDIS} of listener ${OTHER_LISTENER};`,
      ),
    );
    expect(api.requests({ write: true }).filter((r) => r.resource !== 'events')).toEqual([]);
    expect(await versions(theirs, OTHER_LISTENER)).toEqual(before);
  });
});
