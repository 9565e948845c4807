/**
 * @kubernetes/client-node (the version the agent uses) against the sandbox, over TLS verified
 * with the CA the sandbox generated: typed APIs, KubernetesObjectApi server-side apply, Watch and
 * makeInformer.
 */
import {
  AppsV1Api,
  CoreV1Api,
  KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type V1ConfigMap,
  type V1Deployment,
  Watch,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployment, type Sandbox, startSandbox } from './helpers.ts';

describe('@kubernetes/client-node against the sandbox API', () => {
  let sb: Sandbox;
  let kc: KubeConfig;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['team'] });
    kc = new KubeConfig();
    kc.loadFromString(sb.api.kubeconfig);
  });
  afterAll(async () => {
    await sb.close();
  });

  it('typed APIs: CoreV1Api creates and reads a Secret; stringData is folded into base64 data', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedSecret({
      namespace: 'team',
      body: { metadata: { name: 'creds' }, stringData: { password: 'hunter2' } },
    });
    const secret = await core.readNamespacedSecret({ name: 'creds', namespace: 'team' });
    expect(secret.type).toBe('Opaque');
    expect(secret.data).toEqual({ password: Buffer.from('hunter2').toString('base64') });
    expect(secret.stringData).toBeUndefined();
  });

  it('typed APIs: AppsV1Api create, list with a label selector, and 404 as an ApiException', async () => {
    const apps = kc.makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({
      namespace: 'team',
      body: deployment('api', 'team') as V1Deployment,
    });
    await apps.createNamespacedDeployment({
      namespace: 'team',
      body: deployment('worker', 'team') as V1Deployment,
    });
    const list = await apps.listNamespacedDeployment({ namespace: 'team', labelSelector: 'app in (api)' });
    expect(list.items.map((d) => d.metadata?.name)).toEqual(['api']);
    await expect(apps.readNamespacedDeployment({ name: 'missing', namespace: 'team' })).rejects.toMatchObject(
      { code: 404 },
    );
  });

  it('KubernetesObjectApi.patch with PatchStrategy.ServerSideApply creates, then a no-op keeps resourceVersion', async () => {
    const client = KubernetesObjectApi.makeApiClient(kc);
    const cm: KubernetesObject & { data: Record<string, string> } = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'team' },
      data: { mode: 'fast' },
    };
    const created = await client.patch(
      cm,
      undefined,
      undefined,
      'mooring',
      true,
      PatchStrategy.ServerSideApply,
    );
    expect(created.metadata?.managedFields?.[0]).toMatchObject({ manager: 'mooring', operation: 'Apply' });
    const again = await client.patch(
      cm,
      undefined,
      undefined,
      'mooring',
      true,
      PatchStrategy.ServerSideApply,
    );
    expect(again.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
  });

  it('Watch streams ADDED and MODIFIED events for a namespace', async () => {
    const events: string[] = [];
    const watch = new Watch(kc);
    let done = (): void => {};
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    const controller = await watch.watch(
      '/api/v1/namespaces/team/configmaps',
      { labelSelector: 'watched=yes' },
      (phase, obj: V1ConfigMap) => {
        events.push(`${phase} ${obj.metadata?.name} ${obj.data?.v}`);
        if (events.length === 2) done();
      },
      () => {},
    );
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: 'team',
      body: { metadata: { name: 'w', labels: { watched: 'yes' } }, data: { v: '1' } },
    });
    await core.patchNamespacedConfigMap(
      { name: 'w', namespace: 'team', body: { data: { v: '2' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await finished;
    controller.abort();
    expect(events).toEqual(['ADDED w 1', 'MODIFIED w 2']);
  });

  it('makeInformer lists then follows: add, update and delete handlers fire', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const informer = makeInformer(kc, '/api/v1/namespaces/team/services', () =>
      core.listNamespacedService({ namespace: 'team' }),
    );
    const seen: string[] = [];
    let target = 0;
    let reached = (): void => {};
    const wait = (n: number): Promise<void> =>
      new Promise((resolve) => {
        target = n;
        reached = resolve;
        if (seen.length >= n) resolve();
      });
    const record = (what: string) => (obj: { metadata?: { name?: string } }) => {
      seen.push(`${what} ${obj.metadata?.name}`);
      if (seen.length >= target) reached();
    };
    informer.on('add', record('add'));
    informer.on('update', record('update'));
    informer.on('delete', record('delete'));
    await informer.start();
    await core.createNamespacedService({
      namespace: 'team',
      body: { metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }] } },
    });
    await wait(1);
    await core.patchNamespacedService({
      name: 'svc',
      namespace: 'team',
      body: [{ op: 'add', path: '/metadata/labels', value: { tier: 'web' } }],
    });
    await wait(2);
    await core.deleteNamespacedService({ name: 'svc', namespace: 'team' });
    await wait(3);
    await informer.stop();
    expect(seen).toEqual(['add svc', 'update svc', 'delete svc']);
    expect(informer.list('team')).toEqual([]);
  });
});
