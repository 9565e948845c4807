import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeSetErrors } from '../../src/objects/change-set.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { assessObject } from '../../src/reconcile/health.ts';
import { eventually } from '../sandbox/helpers.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import {
  basicSet,
  credentialsSecret,
  DEPLOYMENT,
  deployment,
  envSecret,
  hpa,
  LISTENER,
  service,
  statefulSet,
} from './fixtures.ts';
import { capturedLogger, managerFor, OtherManager } from './sandbox.ts';

const NAMESPACES = [
  'conflict',
  'drift',
  'createonly',
  'immutable',
  'sts',
  'dryrun',
  'halfway',
  'hpa-on',
  'hpa-off',
  'sts-ok',
  'svc-recreate',
  'answer',
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

function live(kind: string, ns: string, name: string): KubeObject {
  const apiVersion =
    { Deployment: 'apps/v1', StatefulSet: 'apps/v1', HorizontalPodAutoscaler: 'autoscaling/v2' }[kind] ??
    'v1';
  const obj = api.getObject(apiVersion, kind, ns, name);
  if (!obj) throw new Error(`${kind}/${ns}/${name} is absent`);
  return obj as KubeObject;
}

function image(obj: KubeObject): string {
  return (
    (obj.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0]
      ?.image ?? ''
  );
}

async function converge(rm: ReturnType<typeof managerFor>, ns: string, objects: KubeObject[]) {
  const inv = await rm.listOwned({ namespaces: [ns], listenerId: LISTENER, deploymentId: DEPLOYMENT });
  return rm.applyAll(objects, { live: inv.byId });
}

describe('applyAll against the sandbox', () => {
  it('forces a conflict with another manager and reports (and logs) the fields it took', async () => {
    const { logger, lines } = capturedLogger();
    const rm = managerFor(api, { logger });
    await converge(rm, 'conflict', [deployment('conflict')]);
    // Another tool takes the image with a forced apply of its own.
    await other.apply(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'app', namespace: 'conflict' },
        spec: { template: { spec: { containers: [{ name: 'api', image: 'other:9' }] } } },
      },
      'other-tool',
    );
    expect(image(live('Deployment', 'conflict', 'app'))).toBe('other:9');
    const cs = await converge(rm, 'conflict', [deployment('conflict')]);
    const entry = cs.entries[0];
    expect(entry?.action).toBe('configured');
    expect(entry?.conflicts).toEqual([
      { manager: 'other-tool', fields: ['.spec.template.spec.containers[name=api].image'] },
    ]);
    expect(image(live('Deployment', 'conflict', 'app'))).toBe('example.com/app:1.0');
    const warn = lines().find((l) => String(l.msg).includes('forced apply took fields'));
    expect(warn?.msg).toBe('Deployment/conflict/app: forced apply took fields from other-tool');
  });

  it("drift: restores a field we own edited by hand, leaves another manager's annotation, recreates a deleted object", async () => {
    const rm = managerFor(api);
    await converge(rm, 'drift', [deployment('drift'), service('drift')]);
    await other.strategicMerge(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'app', namespace: 'drift' },
        spec: { template: { spec: { containers: [{ name: 'api', image: 'hand-edited:1' }] } } },
      },
      'kubectl-edit',
    );
    await other.mergePatch(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'app', namespace: 'drift', annotations: { 'team.example.com/note': 'keep me' } },
      },
      'kubectl-annotate',
    );
    await other.delete(service('drift'));
    expect(image(live('Deployment', 'drift', 'app'))).toBe('hand-edited:1');
    const cs = await converge(rm, 'drift', [deployment('drift'), service('drift')]);
    expect(cs.entries.map((e) => [e.id, e.action])).toEqual([
      ['Service/drift/app', 'created'],
      ['Deployment/drift/app', 'configured'],
    ]);
    const dep = live('Deployment', 'drift', 'app');
    expect(image(dep)).toBe('example.com/app:1.0');
    expect(dep.metadata.annotations?.['team.example.com/note']).toBe('keep me');
    expect(cs.entries[1]?.conflicts?.[0]?.manager).toBe('kubectl-edit');
    // Converged again: nothing more to do, the other manager's annotation does not count as drift.
    api.clearRequests();
    const again = await converge(rm, 'drift', [deployment('drift'), service('drift')]);
    expect(again.entries.map((e) => e.action)).toEqual(['unchanged', 'unchanged']);
    expect(api.requests({ write: true })).toEqual([]);
  });

  it('create-only: the credentials Secret is created once with a random password and survives 10 reconciles byte-identical', async () => {
    const rm = managerFor(api);
    const cs = await converge(rm, 'createonly', [credentialsSecret('createonly'), envSecret('createonly')]);
    expect(cs.entries.map((e) => e.action)).toEqual(['created', 'created']);
    const first = live('Secret', 'createonly', 'app-postgres-credentials');
    const password = Buffer.from(
      (first.data as Record<string, string>).POSTGRES_PASSWORD ?? '',
      'base64',
    ).toString();
    expect(password).toMatch(/^[A-Za-z0-9_-]{43}$/);
    api.clearRequests();
    for (let i = 0; i < 10; i++) {
      // Even a desired change (the renderer now says another user) never touches it.
      const desired = credentialsSecret('createonly');
      desired.stringData = { POSTGRES_USER: `user-${i}` };
      const again = await converge(rm, 'createonly', [desired, envSecret('createonly')]);
      expect(again.entries[0]).toMatchObject({
        action: 'unchanged',
        note: 'create-only: exists, never updated',
      });
    }
    expect(api.requests({ write: true })).toEqual([]);
    expect(JSON.stringify(live('Secret', 'createonly', 'app-postgres-credentials'))).toBe(
      JSON.stringify(first),
    );
  });

  it('immutable field on a Deployment: deleted and recreated', async () => {
    const rm = managerFor(api);
    await converge(rm, 'immutable', [deployment('immutable')]);
    const uid = live('Deployment', 'immutable', 'app').metadata.uid;
    const changed = deployment('immutable');
    const spec = changed.spec as {
      selector: { matchLabels: Record<string, string> };
      template: { metadata: { labels: Record<string, string> } };
    };
    spec.selector.matchLabels.tier = 'web';
    spec.template.metadata.labels.tier = 'web';
    const cs = await converge(rm, 'immutable', [changed]);
    expect(cs.entries[0]).toMatchObject({
      id: 'Deployment/immutable/app',
      action: 'created',
      recreated: true,
    });
    expect(cs.entries[0]?.note).toContain('spec.selector');
    const after = live('Deployment', 'immutable', 'app');
    expect(after.metadata.uid).not.toBe(uid);
    expect((after.spec as typeof spec).selector.matchLabels.tier).toBe('web');
  });

  it('immutable field on a Service (ClusterIP to headless): deleted and recreated', async () => {
    const rm = managerFor(api);
    await converge(rm, 'svc-recreate', [service('svc-recreate')]);
    const before = live('Service', 'svc-recreate', 'app');
    expect((before.spec as { clusterIP: string }).clusterIP).not.toBe('None');
    const headless = service('svc-recreate');
    (headless.spec as Record<string, unknown>).clusterIP = 'None';
    const cs = await converge(rm, 'svc-recreate', [headless]);
    expect(cs.entries[0]).toMatchObject({
      id: 'Service/svc-recreate/app',
      action: 'created',
      recreated: true,
    });
    const after = live('Service', 'svc-recreate', 'app');
    expect((after.spec as { clusterIP: string }).clusterIP).toBe('None');
    expect(after.metadata.uid).not.toBe(before.metadata.uid);
  });

  it('immutable field on a StatefulSet: a terminal error naming the field, unless recreateStatefulSets', async () => {
    const rm = managerFor(api);
    await converge(rm, 'sts', [statefulSet('sts')]);
    const uid = live('StatefulSet', 'sts', 'app-postgres').metadata.uid;
    const cs = await converge(rm, 'sts', [statefulSet('sts', 'app-postgres', { storage: '5Gi' })]);
    const [err] = changeSetErrors(cs);
    expect(err?.code).toBe('MOORING_E_KUBE_IMMUTABLE');
    expect(err?.name).toBe('TerminalError');
    expect(err?.message).toMatch(/^StatefulSet\/sts\/app-postgres: field spec is immutable/);
    expect(err?.message).toContain('recreateStatefulSets');
    expect(live('StatefulSet', 'sts', 'app-postgres').metadata.uid).toBe(uid);

    api.clearRequests();
    const inv = await rm.listOwned({ namespaces: ['sts'], listenerId: LISTENER });
    const ok = await rm.applyAll([statefulSet('sts', 'app-postgres', { storage: '5Gi' })], {
      live: inv.byId,
      recreateStatefulSets: true,
    });
    expect(ok.entries[0]).toMatchObject({ action: 'created', recreated: true });
    const deletes = api.requests({ verb: 'delete' });
    expect(deletes.map((r) => r.path)).toEqual(['/apis/apps/v1/namespaces/sts/statefulsets/app-postgres']);
    expect(live('StatefulSet', 'sts', 'app-postgres').metadata.uid).not.toBe(uid);
  });

  it('dry-run: reports what would change and persists nothing', async () => {
    const rm = managerFor(api, { dryRun: true });
    api.clearRequests();
    const cs = await rm.applyAll(basicSet('dryrun'));
    expect(cs.dryRun).toBe(true);
    expect(cs.entries.map((e) => e.action)).toEqual(['created', 'created', 'created', 'created']);
    expect(api.getObject('apps/v1', 'Deployment', 'dryrun', 'app')).toBeUndefined();
    const writes = api.requests({ write: true });
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.every((r) => r.dryRun)).toBe(true);
  });

  it('a real apply reads back metadata only; health tells a write that moved the generation from one that did not', async () => {
    const rm = managerFor(api);
    const id = 'Deployment/answer/app';
    const observed = new Map<string, KubeObject>();
    const first = await rm.applyAll([deployment('answer')], { live: new Map(), observed });
    expect(first.entries[0]?.action).toBe('created');
    // The answer was metadata only: no spec or status came back, so nothing claims readiness.
    const created = observed.get(id);
    expect(created).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { generation: 1 } });
    expect(created?.spec).toBeUndefined();
    expect(assessObject(created as KubeObject)).toMatchObject({
      state: 'Progressing',
      reason: 'waiting for the controller to observe generation 1',
    });
    await eventually(
      () =>
        (live('Deployment', 'answer', 'app').status as { observedGeneration?: number } | undefined)
          ?.observedGeneration === 1,
    );
    const answerTo = async (desired: KubeObject) => {
      observed.clear();
      const inv = await rm.listOwned({
        namespaces: ['answer'],
        listenerId: LISTENER,
        deploymentId: DEPLOYMENT,
      });
      const cs = await rm.applyAll([desired], { live: inv.byId, observed });
      expect(cs.entries[0]?.action).toBe('configured');
      return observed.get(id) as KubeObject;
    };
    // Our label edited by hand and put back: neither spec nor annotations move, so the generation
    // stays and the live object's status stands for what we applied.
    await other.mergePatch(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'app', namespace: 'answer', labels: { 'app.kubernetes.io/name': 'edited' } },
      },
      'kubectl-label',
    );
    const desired = deployment('answer');
    const repaired = await answerTo(desired);
    expect(repaired.metadata.labels?.['app.kubernetes.io/name']).toBe(
      desired.metadata.labels?.['app.kubernetes.io/name'],
    );
    expect(repaired.metadata.generation).toBe(1);
    expect(repaired.metadata.resourceVersion).toBe(
      live('Deployment', 'answer', 'app').metadata.resourceVersion,
    );
    expect(assessObject(repaired)).toMatchObject({ state: 'Ready' });
    // A label of ours changed on purpose changes our desired-hash annotation too, and a
    // Deployment's generation moves with its annotations: Progressing again, from the answer alone.
    const relabelled = deployment('answer');
    relabelled.metadata.labels = { ...relabelled.metadata.labels, team: 'payments' };
    const after = await answerTo(relabelled);
    expect(after.metadata.labels?.team).toBe('payments');
    expect(after.metadata.generation).toBe(2);
    expect(assessObject(after)).toMatchObject({
      state: 'Progressing',
      reason: 'waiting for the controller to observe generation 2',
    });
  });

  it('fails halfway with an entry per object, errors starting with the object id', async () => {
    const rm = managerFor(api);
    api.setFaults([{ verb: 'apply', resource: 'deployments', namespace: 'halfway', status: 500 }]);
    try {
      const cs = await rm.applyAll([...basicSet('halfway'), hpa('halfway')]);
      expect(cs.entries.map((e) => [e.id, e.action])).toEqual([
        ['Secret/halfway/app-env', 'created'],
        ['Secret/halfway/app-postgres-credentials', 'created'],
        ['Service/halfway/app', 'created'],
        ['Deployment/halfway/app', 'unknown'],
        ['HorizontalPodAutoscaler/halfway/app', 'skipped'],
      ]);
      const [err] = changeSetErrors(cs);
      expect(err?.code).toBe('MOORING_E_KUBE_SERVER');
      expect(err?.message.startsWith('Deployment/halfway/app: ')).toBe(true);
    } finally {
      api.clearFaults();
    }
  });
});

describe('autoscaler hand-over (SSA "Transferring ownership")', () => {
  function replicas(ns: string): number | undefined {
    return (live('Deployment', ns, 'app').spec as { replicas?: number }).replicas;
  }

  it('control: dropping replicas from a plain apply resets a running workload to 1 (the hazard)', async () => {
    await other.apply(deployment('hpa-on', 'app', { replicas: 4 }), 'naive');
    expect(replicas('hpa-on')).toBe(4);
    await other.apply(deployment('hpa-on', 'app', { replicas: null }), 'naive');
    expect(replicas('hpa-on')).toBe(1);
    await other.delete(deployment('hpa-on'));
  });

  it('turning autoscaling on keeps the live replica count', async () => {
    const rm = managerFor(api);
    await converge(rm, 'hpa-on', [deployment('hpa-on', 'app', { replicas: 4 })]);
    expect(replicas('hpa-on')).toBe(4);
    const cs = await converge(rm, 'hpa-on', [deployment('hpa-on', 'app', { replicas: null }), hpa('hpa-on')]);
    expect(changeSetErrors(cs)).toEqual([]);
    expect(cs.entries.find((e) => e.kind === 'Deployment')?.note).toBe(
      'replicas handed over to the autoscaler',
    );
    expect(replicas('hpa-on')).toBe(4);
    const managers = (live('Deployment', 'hpa-on', 'app').metadata.managedFields ?? []).map((m) => m.manager);
    expect(managers).toContain('mooring-handover-to-hpa');
    // And it stays converged: later reconciles neither write nor touch replicas.
    api.clearRequests();
    await converge(rm, 'hpa-on', [deployment('hpa-on', 'app', { replicas: null }), hpa('hpa-on')]);
    expect(api.requests({ write: true })).toEqual([]);
    expect(replicas('hpa-on')).toBe(4);
    // Off again before the autoscaler ever wrote: we take replicas back from our hand-over manager,
    // which is not reported as a conflict.
    const off = await converge(rm, 'hpa-on', [deployment('hpa-on', 'app', { replicas: 2 })]);
    expect(off.entries[0]).toMatchObject({ action: 'configured' });
    expect(off.entries[0]?.conflicts).toBeUndefined();
    expect(replicas('hpa-on')).toBe(2);
  });

  it('turning autoscaling off sets the desired min_scale', async () => {
    const rm = managerFor(api);
    await converge(rm, 'hpa-off', [deployment('hpa-off', 'app', { replicas: 2 })]);
    await converge(rm, 'hpa-off', [deployment('hpa-off', 'app', { replicas: null }), hpa('hpa-off')]);
    // The autoscaler scaled it up meanwhile (as the HPA controller does, through the scale subresource).
    await other.scale('hpa-off', 'app', 5, 'horizontal-pod-autoscaler');
    expect(replicas('hpa-off')).toBe(5);
    const cs = await converge(rm, 'hpa-off', [deployment('hpa-off', 'app', { replicas: 3 })]);
    expect(changeSetErrors(cs)).toEqual([]);
    // Taken from the autoscaler, not from our own hand-over manager.
    expect(cs.entries[0]?.conflicts?.map((c) => c.manager)).toEqual(['horizontal-pod-autoscaler']);
    expect(replicas('hpa-off')).toBe(3);
  });
});
