/**
 * REST API conformance: each test names the documented Kubernetes API behaviour it checks
 * (API concepts, optimistic concurrency, validation, defaulting, immutable fields, errors).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployment, JSON_PATCH, MERGE, type Sandbox, startSandbox, type Json } from './helpers.ts';

const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';
const CM = '/api/v1/namespaces/default/configmaps';

describe('Kubernetes REST API conformance', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['other'] });
  });
  afterAll(async () => {
    await sb.close();
  });

  it('create answers 201 with uid, creationTimestamp, resourceVersion and generation 1', async () => {
    const res = await sb.call('POST', DEPLOY, deployment('a1'));
    expect(res.status).toBe(201);
    const meta = res.body.metadata as Record<string, unknown>;
    expect(meta.generation).toBe(1);
    expect(meta.resourceVersion).toMatch(/^\d+$/);
    expect(meta.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('creating an existing name is 409 AlreadyExists with a metav1.Status body', async () => {
    const res = await sb.call('POST', DEPLOY, deployment('a1'));
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'deployments.apps "a1" already exists',
      reason: 'AlreadyExists',
      details: { name: 'a1', group: 'apps', kind: 'deployments' },
      code: 409,
    });
  });

  it('get of a missing object is 404 NotFound naming the resource', async () => {
    const res = await sb.call('GET', `${DEPLOY}/nope`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      reason: 'NotFound',
      message: 'deployments.apps "nope" not found',
      code: 404,
    });
  });

  it('a namespaced write to a missing namespace is 404 namespaces "x" not found', async () => {
    const res = await sb.call('POST', '/api/v1/namespaces/ghost/configmaps', { metadata: { name: 'x' } });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      message: 'namespaces "ghost" not found',
      details: { name: 'ghost', kind: 'namespaces' },
    });
  });

  it("reads in a missing namespace: list is an empty 200, get is the object's 404", async () => {
    const list = await sb.call('GET', '/api/v1/namespaces/ghost/configmaps');
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([]);
    const get = await sb.call('GET', '/api/v1/namespaces/ghost/configmaps/x');
    expect(get.body.message).toBe('configmaps "x" not found');
  });

  it('optimistic concurrency: an update with a stale resourceVersion is 409 Conflict', async () => {
    const created = await sb.call('POST', CM, { metadata: { name: 'occ' }, data: { a: '1' } });
    const stale = created.body;
    const ok = await sb.call('PUT', `${CM}/occ`, { ...stale, data: { a: '2' } });
    expect(ok.status).toBe(200);
    const res = await sb.call('PUT', `${CM}/occ`, { ...stale, data: { a: '3' } });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(
      'Operation cannot be fulfilled on configmaps "occ": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('an update without resourceVersion is unconditional', async () => {
    const res = await sb.call('PUT', `${CM}/occ`, { metadata: { name: 'occ' }, data: { a: '4' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ a: '4' });
  });

  it('generation is bumped by spec changes only, not by metadata changes', async () => {
    const patched = await sb.call('PATCH', `${DEPLOY}/a1`, { metadata: { labels: { extra: 'x' } } }, MERGE);
    expect((patched.body.metadata as { generation: number }).generation).toBe(1);
    const scaled = await sb.call('PATCH', `${DEPLOY}/a1`, { spec: { replicas: 4 } }, MERGE);
    expect((scaled.body.metadata as { generation: number }).generation).toBe(2);
  });

  it('JSON merge patch: null removes a key', async () => {
    await sb.call('POST', CM, { metadata: { name: 'mp' }, data: { a: '1', b: '2' } });
    const res = await sb.call('PATCH', `${CM}/mp`, { data: { a: null, c: '3' } }, MERGE);
    expect(res.body.data).toEqual({ b: '2', c: '3' });
  });

  it('JSON patch (RFC 6902): operations apply in order; a failing test op is rejected', async () => {
    const res = await sb.call(
      'PATCH',
      `${CM}/mp`,
      [
        { op: 'add', path: '/data/d', value: '4' },
        { op: 'remove', path: '/data/b' },
      ],
      JSON_PATCH,
    );
    expect(res.body.data).toEqual({ c: '3', d: '4' });
    const failed = await sb.call(
      'PATCH',
      `${CM}/mp`,
      [{ op: 'test', path: '/data/c', value: 'nope' }],
      JSON_PATCH,
    );
    expect(failed.status).toBe(422);
  });

  it('create accepts application/yaml bodies; malformed YAML is a 400', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  a: "1"\n';
    const res = await sb.call('POST', CM, yaml, { 'content-type': 'application/yaml' });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ a: '1' });
    const bad = await sb.call('POST', CM, 'a: [unclosed', { 'content-type': 'application/yaml' });
    expect(bad.status).toBe(400);
  });

  it('a patch to a missing object is 404 (only apply creates)', async () => {
    const res = await sb.call('PATCH', `${CM}/absent`, { data: {} }, MERGE);
    expect(res.status).toBe(404);
  });

  it('an unsupported patch content type is 415', async () => {
    const res = await sb.call('PATCH', `${CM}/mp`, { data: {} }, { 'content-type': 'application/json' });
    expect(res.status).toBe(415);
  });

  it('defaulting: Deployment strategy, revisionHistoryLimit, progressDeadlineSeconds and pod template defaults', async () => {
    const res = await sb.call('GET', `${DEPLOY}/a1`);
    const spec = res.body.spec as Record<string, Json>;
    expect(spec.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
    });
    expect(spec.revisionHistoryLimit).toBe(10);
    expect(spec.progressDeadlineSeconds).toBe(600);
    const pod = spec.template.spec;
    expect(pod).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      securityContext: {},
    });
    expect(pod.containers[0]).toMatchObject({
      imagePullPolicy: 'IfNotPresent',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
  });

  it('defaulting: imagePullPolicy is Always for :latest or an untagged image', async () => {
    const res = await sb.call(
      'POST',
      DEPLOY,
      deployment('latest', 'default', { image: 'registry.local:5000/app' }),
    );
    expect((res.body.spec as Json).template.spec.containers[0].imagePullPolicy).toBe('Always');
  });

  it('defaulting: Service gets type ClusterIP, an allocated clusterIP, sessionAffinity None, TCP and targetPort', async () => {
    const res = await sb.call('POST', '/api/v1/namespaces/default/services', {
      metadata: { name: 'svc' },
      spec: { selector: { app: 'x' }, ports: [{ port: 8000 }] },
    });
    const spec = res.body.spec as Record<string, Json>;
    expect(spec.type).toBe('ClusterIP');
    expect(spec.clusterIP).toMatch(/^10\.96\.\d+\.\d+$/);
    expect(spec.clusterIPs).toEqual([spec.clusterIP]);
    expect(spec.sessionAffinity).toBe('None');
    expect(spec.ports[0]).toEqual({ port: 8000, protocol: 'TCP', targetPort: 8000 });
  });

  it('immutable: Service spec.clusterIP may not change once set (422)', async () => {
    const live = await sb.call('GET', '/api/v1/namespaces/default/services/svc');
    const res = await sb.call(
      'PATCH',
      '/api/v1/namespaces/default/services/svc',
      { spec: { clusterIP: '10.96.200.200', clusterIPs: ['10.96.200.200'] } },
      MERGE,
    );
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('may not change once set');
    expect((await sb.call('GET', '/api/v1/namespaces/default/services/svc')).body.spec).toEqual(
      live.body.spec,
    );
  });

  it('immutable: Deployment spec.selector (422 field is immutable)', async () => {
    const res = await sb.call(
      'PATCH',
      `${DEPLOY}/a1`,
      {
        spec: {
          selector: { matchLabels: { app: 'a1', v: '2' } },
          template: { metadata: { labels: { app: 'a1', v: '2' } } },
        },
      },
      MERGE,
    );
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('spec.selector: Invalid value');
    expect(res.body.message).toContain('field is immutable');
  });

  it('immutable: StatefulSet spec fields other than replicas/template/updateStrategy/... are forbidden', async () => {
    const sts = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db' },
      spec: {
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { labels: { app: 'db' } },
          spec: { containers: [{ name: 'pg', image: 'postgres:16' }] },
        },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      },
    };
    expect((await sb.call('POST', '/apis/apps/v1/namespaces/default/statefulsets', sts)).status).toBe(201);
    const grow = await sb.call(
      'PATCH',
      '/apis/apps/v1/namespaces/default/statefulsets/db',
      {
        spec: {
          volumeClaimTemplates: [
            {
              metadata: { name: 'data' },
              spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } },
            },
          ],
        },
      },
      MERGE,
    );
    expect(grow.status).toBe(422);
    expect(grow.body.message).toContain(
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas'",
    );
    const scale = await sb.call(
      'PATCH',
      '/apis/apps/v1/namespaces/default/statefulsets/db',
      { spec: { replicas: 3 } },
      MERGE,
    );
    expect(scale.status).toBe(200);
  });

  it('immutable: ConfigMap data may not change when immutable is true', async () => {
    await sb.call('POST', CM, { metadata: { name: 'frozen' }, data: { a: '1' }, immutable: true });
    const res = await sb.call('PATCH', `${CM}/frozen`, { data: { a: '2' } }, MERGE);
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('data: Forbidden: field is immutable when `immutable` is set');
  });

  it('immutable: a PersistentVolumeClaim spec may change only in resources.requests', async () => {
    const PVC = '/api/v1/namespaces/default/persistentvolumeclaims';
    await sb.call('POST', PVC, {
      metadata: { name: 'vol' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    const grow = await sb.call(
      'PATCH',
      `${PVC}/vol`,
      { spec: { resources: { requests: { storage: '2Gi' } } } },
      MERGE,
    );
    expect(grow.status).toBe(200);
    const modes = await sb.call('PATCH', `${PVC}/vol`, { spec: { accessModes: ['ReadWriteMany'] } }, MERGE);
    expect(modes.status).toBe(422);
    expect(modes.body.message).toContain(
      'spec: Forbidden: spec is immutable after creation except resources.requests',
    );
  });

  it('validation: an invalid name is 422 with a FieldValueInvalid cause on metadata.name', async () => {
    const res = await sb.call('POST', CM, { metadata: { name: 'Bad_Name' } });
    expect(res.status).toBe(422);
    expect((res.body.details as { causes: { field: string; reason: string }[] }).causes[0]).toMatchObject({
      field: 'metadata.name',
      reason: 'FieldValueInvalid',
    });
  });

  it('validation: selector not matching template labels is 422', async () => {
    const bad = deployment('mismatch');
    (bad.spec as Json).template.metadata.labels = { app: 'other' };
    const res = await sb.call('POST', DEPLOY, bad);
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('`selector` does not match template `labels`');
  });

  it('fieldValidation=Strict on create: unknown fields are a 400 strict decoding error', async () => {
    const res = await sb.call('POST', `${CM}?fieldValidation=Strict`, {
      metadata: { name: 'strict' },
      data: {},
      extra: 1,
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('strict decoding error: unknown field "extra"');
  });

  it('fieldValidation=Warn (default): unknown fields are dropped with a Warning header', async () => {
    const res = await sb.call('POST', CM, { metadata: { name: 'warned' }, data: {}, extra: 1 });
    expect(res.status).toBe(201);
    expect(res.body.extra).toBeUndefined();
    expect(res.headers.warning).toBe('299 - "unknown field \\"extra\\""');
  });

  it('Secret: type defaults to Opaque and stringData is merged into data then dropped', async () => {
    const res = await sb.call('POST', '/api/v1/namespaces/default/secrets', {
      metadata: { name: 's' },
      data: { a: 'YQ==' },
      stringData: { b: 'bee' },
    });
    expect(res.body.type).toBe('Opaque');
    expect(res.body.data).toEqual({ a: 'YQ==', b: Buffer.from('bee').toString('base64') });
    expect(res.body.stringData).toBeUndefined();
  });

  it('list: label selectors with =, !=, in, notin, exists and !', async () => {
    for (const [name, labels] of [
      ['l1', { tier: 'web', env: 'prod' }],
      ['l2', { tier: 'db', env: 'prod' }],
      ['l3', { tier: 'web' }],
    ] as const) {
      await sb.call('POST', '/api/v1/namespaces/other/configmaps', { metadata: { name, labels } });
    }
    const names = async (selector: string): Promise<string[]> => {
      const res = await sb.call(
        'GET',
        `/api/v1/namespaces/other/configmaps?labelSelector=${encodeURIComponent(selector)}`,
      );
      return (res.body.items as { metadata: { name: string } }[]).map((i) => i.metadata.name);
    };
    expect(await names('tier=web')).toEqual(['l1', 'l3']);
    expect(await names('tier==db')).toEqual(['l2']);
    // The namespace's root CA ConfigMap has no labels: it matches != and notin, as on a cluster.
    expect(await names('tier!=web')).toEqual(['kube-root-ca.crt', 'l2']);
    expect(await names('tier in (db, web),env')).toEqual(['l1', 'l2']);
    expect(await names('tier notin (web)')).toEqual(['kube-root-ca.crt', 'l2']);
    expect(await names('!env')).toEqual(['kube-root-ca.crt', 'l3']);
    const bad = await sb.call('GET', '/api/v1/namespaces/other/configmaps?labelSelector=a%20b%20c');
    expect(bad.status).toBe(400);
  });

  it('list: fieldSelector metadata.name, items without kind, list kind and resourceVersion', async () => {
    const res = await sb.call('GET', '/api/v1/namespaces/other/configmaps?fieldSelector=metadata.name%3Dl2');
    expect(res.body.kind).toBe('ConfigMapList');
    expect((res.body.metadata as { resourceVersion: string }).resourceVersion).toMatch(/^\d+$/);
    const items = res.body.items as Record<string, unknown>[];
    expect(items.map((i) => (i.metadata as { name: string }).name)).toEqual(['l2']);
    expect(items[0]?.kind).toBeUndefined();
    const unsupported = await sb.call(
      'GET',
      '/api/v1/namespaces/other/configmaps?fieldSelector=spec.foo%3Dx',
    );
    expect(unsupported.status).toBe(400);
  });

  it('list: limit and continue page through all objects exactly once', async () => {
    const first = await sb.call('GET', '/api/v1/namespaces/other/configmaps?limit=2');
    const meta = first.body.metadata as { continue: string; remainingItemCount: number };
    expect((first.body.items as unknown[]).length).toBe(2);
    // l1..l3 and the namespace's kube-root-ca.crt.
    expect(meta.remainingItemCount).toBe(2);
    const second = await sb.call(
      'GET',
      `/api/v1/namespaces/other/configmaps?limit=2&continue=${meta.continue}`,
    );
    expect((second.body.items as { metadata: { name: string } }[]).map((i) => i.metadata.name)).toEqual([
      'l2',
      'l3',
    ]);
    expect((second.body.metadata as { continue?: string }).continue).toBeUndefined();
  });

  it('list across namespaces: /apis/apps/v1/deployments', async () => {
    await sb.call('POST', '/apis/apps/v1/namespaces/other/deployments', deployment('elsewhere', 'other'));
    const res = await sb.call('GET', '/apis/apps/v1/deployments');
    const ns = (res.body.items as { metadata: { namespace: string } }[]).map((i) => i.metadata.namespace);
    expect(new Set(ns)).toEqual(new Set(['default', 'other']));
  });

  it('discovery: aggregated discovery v2 when asked for (as kubectl 1.34 does), legacy lists otherwise', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
    const aggregated = await sb.call('GET', '/apis', undefined, { accept });
    expect(aggregated.headers['content-type']).toBe(
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    );
    const apps = (
      aggregated.body.items as {
        metadata: { name: string };
        versions: { resources: { resource: string; scope: string }[] }[];
      }[]
    ).find((g) => g.metadata.name === 'apps');
    expect(apps?.versions[0]?.resources.map((r) => `${r.resource}:${r.scope}`)).toEqual([
      'controllerrevisions:Namespaced',
      'deployments:Namespaced',
      'replicasets:Namespaced',
      'statefulsets:Namespaced',
    ]);
    const legacy = await sb.call('GET', '/apis/apps/v1');
    expect(legacy.body.kind).toBe('APIResourceList');
    expect((legacy.body.resources as { name: string }[]).map((r) => r.name)).toContain('deployments/scale');
  });

  it('an unknown resource is 404; an unsupported method is 405', async () => {
    expect((await sb.call('GET', '/apis/apps/v1/namespaces/default/daemonsets')).status).toBe(404);
    expect((await sb.call('POST', `${CM}/mp`, {})).status).toBe(405);
  });
});
