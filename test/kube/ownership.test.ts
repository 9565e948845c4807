/**
 * Ownership before every write (ADR 0007), against the sandbox: an object of the same name that
 * another deployment, another listener or another manager owns is never written; the batch that
 * wants it is refused with MOORING_E_KUBE_OWNERSHIP before anything of it is written. An object
 * the listing does not hold costs one GET; one it holds costs nothing more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MooringError } from '../../src/errors.ts';
import type { ApplyContext } from '../../src/kube/apply-context.ts';
import { changeSetErrors } from '../../src/objects/change-set.ts';
import type { ObjectClient } from '../../src/kube/object-client.ts';
import { foreignOwner } from '../../src/kube/ownership.ts';
import { recreate } from '../../src/kube/recreate.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { silentLogger } from '../../src/log.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import {
  credentialsSecret,
  DEPLOYMENT,
  deployment,
  envSecret,
  LISTENER,
  labels,
  service,
} from './fixtures.ts';
import { managerFor, OtherManager } from './sandbox.ts';

const OTHER_DEPLOYMENT = '33333333-3333-4333-8333-333333333333';
const OTHER_LISTENER = '44444444-4444-4444-8444-444444444444';
const NAMESPACES = [
  'manager',
  'deployment',
  'listener',
  'stripped',
  'secret',
  'nolisting',
  'dryrun',
  'counted',
];

let api: KubeApi;
let other: OtherManager;

beforeAll(async () => {
  api = await startKubeApi({ namespaces: NAMESPACES });
  other = new OtherManager(api);
});
afterAll(async () => {
  await api?.close();
});

function live(kind: string, ns: string, name: string): KubeObject | undefined {
  const apiVersion = kind === 'Deployment' ? 'apps/v1' : 'v1';
  return api.getObject(apiVersion, kind, ns, name) as KubeObject | undefined;
}

/** Our objects of one deployment, applied against its listing as a reconcile does. */
async function converge(ns: string, objects: KubeObject[], opts: { dryRun?: boolean } = {}) {
  const rm = managerFor(api);
  const inv = await rm.listOwned({ namespaces: [ns], listenerId: LISTENER, deploymentId: DEPLOYMENT });
  return rm.applyAll(objects, { live: inv.byId, ...opts });
}

/** A Service as `kubectl create service clusterip` makes it: no labels of ours. */
function plainService(ns: string, name = 'app'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: ns },
    spec: { selector: { app: 'theirs' }, ports: [{ name: 'web', port: 80, targetPort: 8080 }] },
  };
}

function withListener(obj: KubeObject, listenerId: string): KubeObject {
  const out = structuredClone(obj);
  out.metadata.labels = { ...out.metadata.labels, 'mooring.dev/listener-id': listenerId };
  return out;
}

describe('ownership before every write (sandbox)', () => {
  it("another manager's object of the same name is not overwritten: the batch is refused, nothing written", async () => {
    await other.create(plainService('manager'), 'kubectl-create');
    const before = live('Service', 'manager', 'app')!;
    api.clearRequests();
    const cs = await converge('manager', [envSecret('manager'), service('manager'), deployment('manager')]);
    expect(cs.entries.map((e) => [e.id, e.action, e.note])).toEqual([
      ['Secret/manager/app-env', 'skipped', 'not attempted: MOORING_E_KUBE_OWNERSHIP'],
      ['Service/manager/app', 'skipped', 'not ours: belongs to another manager (kubectl-create)'],
      ['Deployment/manager/app', 'skipped', 'not attempted: MOORING_E_KUBE_OWNERSHIP'],
    ]);
    const [error] = changeSetErrors(cs);
    expect(error?.code).toBe('MOORING_E_KUBE_OWNERSHIP');
    expect(error?.message).toBe(
      `Service/manager/app: exists and belongs to another manager (kubectl-create); nothing of deployment ${DEPLOYMENT} written`,
    );
    expect(error?.retryable).toBe(false);
    // Not one write; one GET per object the listing did not hold.
    expect(api.requests({ write: true })).toEqual([]);
    expect(
      api
        .requests({ verb: 'get' })
        .map((r) => `${r.resource}/${r.name}`)
        .sort(),
    ).toEqual(['deployments/app', 'secrets/app-env', 'services/app']);
    const after = live('Service', 'manager', 'app')!;
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.spec).toEqual(before.spec);
    expect(live('Secret', 'manager', 'app-env')).toBeUndefined();
    expect(live('Deployment', 'manager', 'app')).toBeUndefined();
  });

  it("another deployment's object (same listener, same field manager) is not overwritten", async () => {
    const rm = managerFor(api);
    await rm.applyAll([service('deployment', 'app', OTHER_DEPLOYMENT)]);
    const before = live('Service', 'deployment', 'app')!;
    api.clearRequests();
    const cs = await converge('deployment', [service('deployment'), deployment('deployment')]);
    const [error] = changeSetErrors(cs);
    expect(error?.code).toBe('MOORING_E_KUBE_OWNERSHIP');
    expect(error?.message).toMatch(
      new RegExp(`^Service/deployment/app: exists and belongs to deployment ${OTHER_DEPLOYMENT};`),
    );
    expect(error?.details).toMatchObject({ ownerDeploymentId: OTHER_DEPLOYMENT, ownerListenerId: LISTENER });
    expect(api.requests({ write: true })).toEqual([]);
    const after = live('Service', 'deployment', 'app')!;
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect((after.spec as { selector: Record<string, string> }).selector['mooring.dev/deployment-id']).toBe(
      OTHER_DEPLOYMENT,
    );
  });

  it("another listener's object is not overwritten", async () => {
    const rm = managerFor(api);
    await rm.applyAll([withListener(deployment('listener'), OTHER_LISTENER)]);
    const before = live('Deployment', 'listener', 'app')!;
    api.clearRequests();
    const cs = await converge('listener', [deployment('listener')]);
    const [error] = changeSetErrors(cs);
    expect(error?.message).toMatch(/^Deployment\/listener\/app: exists and belongs to listener 4444/);
    expect(api.requests({ write: true })).toEqual([]);
    expect(live('Deployment', 'listener', 'app')!.metadata.resourceVersion).toBe(
      before.metadata.resourceVersion,
    );
  });

  it('ours with its labels stripped by hand (our Apply entry still there) is taken back, as before', async () => {
    await converge('stripped', [deployment('stripped')]);
    await other.mergePatch(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: {
          name: 'app',
          namespace: 'stripped',
          labels: {
            'app.kubernetes.io/managed-by': null,
            'mooring.dev/listener-id': null,
            'mooring.dev/deployment-id': null,
          },
        },
      } as never,
      'kubectl-label',
    );
    const stripped = live('Deployment', 'stripped', 'app')!;
    expect(stripped.metadata.labels?.['mooring.dev/deployment-id']).toBeUndefined();
    expect(
      stripped.metadata.managedFields?.some((e) => e.manager === 'mooring' && e.operation === 'Apply'),
    ).toBe(true);
    api.clearRequests();
    const cs = await converge('stripped', [deployment('stripped')]);
    expect(cs.entries.map((e) => [e.id, e.action, e.error?.code])).toEqual([
      ['Deployment/stripped/app', 'configured', undefined],
    ]);
    expect(live('Deployment', 'stripped', 'app')!.metadata.labels).toMatchObject(labels('api-server'));
    expect(api.requests({ verb: 'get' })).toHaveLength(1);
  });

  it("create-only: another's Secret of the same name is refused (its content would reach our pods); ours is found and kept", async () => {
    await other.create(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'app-postgres-credentials', namespace: 'secret' },
      },
      'kubectl-create',
    );
    api.clearRequests();
    const refused = await converge('secret', [credentialsSecret('secret')]);
    expect(changeSetErrors(refused).map((e) => e.code)).toEqual(['MOORING_E_KUBE_OWNERSHIP']);
    expect(api.requests({ write: true })).toEqual([]);
    await other.delete(credentialsSecret('secret'));
    const created = await converge('secret', [credentialsSecret('secret')]);
    expect(created.entries[0]?.action).toBe('created');
    const again = await converge('secret', [credentialsSecret('secret')]);
    expect(again.entries[0]).toMatchObject({
      action: 'unchanged',
      note: 'create-only: exists, never updated',
    });
  });

  it('without a listing every object is read, and judged the same way', async () => {
    await other.create(plainService('nolisting'), 'kubectl-create');
    const rm = managerFor(api);
    api.clearRequests();
    const cs = await rm.applyAll([service('nolisting'), deployment('nolisting')]);
    expect(changeSetErrors(cs).map((e) => e.code)).toEqual(['MOORING_E_KUBE_OWNERSHIP']);
    expect(api.requests({ write: true })).toEqual([]);
  });

  it('dry run: the refusal is previewed the same way', async () => {
    await other.create(plainService('dryrun'), 'kubectl-create');
    api.clearRequests();
    const cs = await converge('dryrun', [service('dryrun')], { dryRun: true });
    expect(changeSetErrors(cs).map((e) => e.code)).toEqual(['MOORING_E_KUBE_OWNERSHIP']);
    expect(api.requests({ write: true })).toEqual([]);
  });

  it('cold: one GET per object, the first time only; a converged set costs no read but the listing', async () => {
    const objects = [
      envSecret('counted'),
      credentialsSecret('counted'),
      service('counted'),
      deployment('counted'),
    ];
    api.clearRequests();
    const first = await converge('counted', objects);
    expect(first.entries.map((e) => e.action)).toEqual(['created', 'created', 'created', 'created']);
    expect(api.requests({ verb: 'get' })).toHaveLength(objects.length);
    api.clearRequests();
    const rm = managerFor(api);
    const inv = await rm.listOwned({
      namespaces: ['counted'],
      listenerId: LISTENER,
      deploymentId: DEPLOYMENT,
    });
    await rm.applyAll(objects, { live: inv.byId });
    api.clearRequests();
    const again = await rm.applyAll(objects, { live: inv.byId });
    expect(again.entries.every((e) => e.action === 'unchanged')).toBe(true);
    expect(api.requests()).toEqual([]);
  });
});

describe('foreignOwner', () => {
  const ours = service('ns');
  const withLabels = (l: Record<string, string> | undefined, managers: string[] = []): KubeObject => ({
    ...plainService('ns'),
    metadata: {
      name: 'app',
      namespace: 'ns',
      ...(l ? { labels: l } : {}),
      managedFields: managers.map((manager) => ({
        manager,
        operation: 'Apply',
        fieldsType: 'FieldsV1',
        fieldsV1: {},
      })),
    },
  });

  it.each([
    ['ours', labels('api-server'), [], undefined],
    ['ours, labels stripped, our entry kept', undefined, ['mooring'], undefined],
    [
      'another deployment',
      labels('api-server', OTHER_DEPLOYMENT),
      ['mooring'],
      `deployment ${OTHER_DEPLOYMENT}`,
    ],
    [
      'another deployment of another listener',
      labels('api-server', OTHER_DEPLOYMENT, OTHER_LISTENER),
      ['mooring'],
      `deployment ${OTHER_DEPLOYMENT} of listener ${OTHER_LISTENER}`,
    ],
    [
      'ours on another listener',
      labels('api-server', DEPLOYMENT, OTHER_LISTENER),
      ['mooring'],
      `listener ${OTHER_LISTENER}`,
    ],
    [
      'another manager',
      undefined,
      ['kubectl-create', 'kubectl-edit'],
      'another manager (kubectl-create, kubectl-edit)',
    ],
    ['nobody known', undefined, [], 'another manager'],
    [
      'Helm, with a managed-by label',
      { 'app.kubernetes.io/managed-by': 'Helm' },
      ['helm'],
      'another manager (helm)',
    ],
  ])('%s', (_, l, managers, owner) => {
    expect(foreignOwner(withLabels(l, managers), ours, 'mooring')?.owner).toBe(owner);
  });
});

describe('recreate (immutable field) deletes only what is ours', () => {
  it("refuses to delete and recreate another's object, and deletes ours by its uid", async () => {
    const calls: string[] = [];
    const client = {
      delete: async (_o: KubeObject, opts: { uid?: string }) => {
        calls.push(`delete uid=${opts.uid}`);
        return 'deleted';
      },
      get: async () => undefined,
      apply: async (o: KubeObject) => ({ object: o, created: true, partial: false }),
    } as unknown as ObjectClient;
    const ctx: ApplyContext = {
      client,
      fieldManager: 'mooring',
      dryRun: false,
      logger: silentLogger(),
      random: () => Buffer.alloc(32),
    };
    const theirs = { ...service('ns', 'app', OTHER_DEPLOYMENT) };
    theirs.metadata = { ...theirs.metadata, uid: 'uid-theirs' };
    const refusal = await recreate(ctx, {}, service('ns'), theirs, ['spec.clusterIP']).catch(
      (e: unknown) => e,
    );
    expect(refusal).toBeInstanceOf(MooringError);
    expect((refusal as MooringError).code).toBe('MOORING_E_KUBE_OWNERSHIP');
    expect(calls).toEqual([]);
    const mine = { ...service('ns') };
    mine.metadata = { ...mine.metadata, uid: 'uid-mine' };
    await recreate(ctx, {}, service('ns'), mine, ['spec.clusterIP']);
    expect(calls).toEqual(['delete uid=uid-mine']);
  });
});
