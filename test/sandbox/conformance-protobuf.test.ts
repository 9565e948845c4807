/**
 * kubectl's typed generators (`create namespace|deployment|serviceaccount|service|role|rolebinding|
 * pdb`, `autoscale`, `expose`) send protobuf bodies. Each is run for real against the sandbox and
 * read back with `get -o json`; the object must equal the one the same command's JSON body
 * (`--dry-run=client -o json`, what kubectl would send as JSON) yields, and carry what a real
 * kube-apiserver 1.34 returns for it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolPath } from '../../scripts/install-tools.ts';
import type { CliContext } from '../../src/cli/context.ts';
import { kubeApi } from '../../src/cli/kube-api.ts';
import { protoSchema } from '../../src/sandbox/proto-schema.ts';
import { HTTPROUTE_CRD } from '../../src/sandbox/resources.ts';
import { type Sandbox, startSandbox } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: objects read back from kubectl, checked by the assertions
type Json = Record<string, any>;

/** The fields two creations of one object legitimately differ in. */
function comparable(o: Json): Json {
  const copy = structuredClone(o);
  for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields', 'generation'])
    delete copy.metadata?.[k];
  if (copy.spec?.clusterIP) {
    copy.spec.clusterIP = 'x';
    copy.spec.clusterIPs = ['x'];
  }
  for (const p of copy.spec?.ports ?? []) if (p.nodePort) p.nodePort = 'x';
  delete copy.status;
  return copy;
}

describe('protobuf bodies from kubectl typed create, autoscale and expose', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['pb', 'js'], crds: [HTTPROUTE_CRD] });
  });
  afterAll(async () => {
    await sb.close();
  });

  /** Runs `kubectl <args>` (protobuf) in ns pb and its JSON twin in ns js; returns both read back. */
  async function both(args: string[], get: string[], namespaced = true): Promise<[Json, Json]> {
    const ns = (n: string) => (namespaced ? ['-n', n] : []);
    const dry = await sb.kubectl([...args, ...ns('js'), '--dry-run=client', '-o', 'json']);
    expect(dry.stderr).toBe('');
    const made = await sb.kubectl([...args, ...ns('pb')]);
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    const pb = await sb.kubectl(['get', ...get, ...ns('pb'), '-o', 'json']);
    expect(pb.stderr).toBe('');
    const pbObject = JSON.parse(pb.stdout) as Json;
    if (!namespaced) return [pbObject, pbObject];
    const twin = await sb.kubectl(['create', '-f', '-', '-n', 'js'], dry.stdout);
    expect(twin.stderr).toBe('');
    const js = JSON.parse((await sb.kubectl(['get', ...get, '-n', 'js', '-o', 'json'])).stdout) as Json;
    const strip = (o: Json) => {
      const c = comparable(o);
      delete c.metadata.namespace;
      return c;
    };
    expect(strip(pbObject)).toEqual(strip(js));
    return [pbObject, js];
  }

  it('create namespace: Active, the name label, the kubernetes finalizer', async () => {
    const [ns] = await both(['create', 'namespace', 'made-by-pb'], ['namespace', 'made-by-pb'], false);
    expect(ns.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'made-by-pb' });
    expect(ns.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(ns.status).toEqual({ phase: 'Active' });
  });

  it('create deployment: replicas, selector, template and container as sent, then defaulted', async () => {
    const [d] = await both(
      ['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=3', '--port=80'],
      ['deployment', 'web'],
    );
    expect(d.spec.replicas).toBe(3);
    expect(d.spec.selector).toEqual({ matchLabels: { app: 'web' } });
    expect(d.spec.template.metadata).toEqual({ labels: { app: 'web' } });
    const [c] = d.spec.template.spec.containers;
    expect(c).toMatchObject({
      name: 'nginx',
      image: 'nginx:1.27',
      ports: [{ containerPort: 80, protocol: 'TCP' }],
      resources: {},
      imagePullPolicy: 'IfNotPresent',
    });
    expect(d.spec.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' },
    });
  });

  it('create deployment --replicas=0 keeps the zero (a pointer field present on the wire)', async () => {
    const [d] = await both(
      ['create', 'deployment', 'idle', '--image=nginx', '--replicas=0'],
      ['deployment', 'idle'],
    );
    expect(d.spec.replicas).toBe(0);
  });

  it('create serviceaccount', async () => {
    const [sa] = await both(['create', 'serviceaccount', 'robot'], ['serviceaccount', 'robot']);
    expect(sa.metadata.name).toBe('robot');
    expect(sa.kind).toBe('ServiceAccount');
  });

  it('create service clusterip: port, targetPort as an IntOrString, selector', async () => {
    const [svc] = await both(['create', 'service', 'clusterip', 'api', '--tcp=80:8080'], ['service', 'api']);
    expect(svc.spec.ports).toEqual([{ name: '80-8080', port: 80, protocol: 'TCP', targetPort: 8080 }]);
    expect(svc.spec.selector).toEqual({ app: 'api' });
    expect(svc.spec.type).toBe('ClusterIP');
  });

  it('create service nodeport: a nodePort in 30000-32767', async () => {
    const [svc] = await both(
      ['create', 'service', 'nodeport', 'edge', '--tcp=443:https'],
      ['service', 'edge'],
    );
    expect(svc.spec.type).toBe('NodePort');
    expect(svc.spec.ports[0]).toMatchObject({ name: '443-https', port: 443, targetPort: 'https' });
  });

  it('create role and rolebinding: rules with the core group "" kept, subjects and roleRef', async () => {
    const [role] = await both(
      ['create', 'role', 'reader', '--verb=get,list', '--resource=pods,deployments.apps'],
      ['role', 'reader'],
    );
    expect(role.rules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list'] },
    ]);
    const [binding] = await both(
      ['create', 'rolebinding', 'reader', '--role=reader', '--serviceaccount=pb:robot', '--user=ann'],
      ['rolebinding', 'reader'],
    );
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' });
    expect(binding.subjects).toEqual(
      expect.arrayContaining([
        { kind: 'ServiceAccount', name: 'robot', namespace: 'pb' },
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'ann' },
      ]),
    );
  });

  it('create pdb: minAvailable as a percentage string, the selector', async () => {
    const [pdb] = await both(
      ['create', 'pdb', 'web', '--selector=app=web', '--min-available=50%'],
      ['pdb', 'web'],
    );
    expect(pdb.spec).toEqual({ minAvailable: '50%', selector: { matchLabels: { app: 'web' } } });
  });

  it('autoscale deployment: an autoscaling/v2 HPA with the CPU target', async () => {
    const [hpa] = await both(
      ['autoscale', 'deployment', 'web', '--min=2', '--max=5', '--cpu=70%'],
      ['hpa', 'web'],
    );
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec).toMatchObject({
      minReplicas: 2,
      maxReplicas: 5,
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    });
    expect(hpa.spec.metrics).toEqual([
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
      },
    ]);
  });

  it('expose deployment: a Service selecting the deployment pods on its port', async () => {
    const [svc] = await both(
      ['expose', 'deployment', 'web', '--port=8080', '--target-port=80'],
      ['service', 'web'],
    );
    expect(svc.spec.selector).toEqual({ app: 'web' });
    expect(svc.spec.ports).toEqual([{ port: 8080, protocol: 'TCP', targetPort: 80 }]);
  });

  it('a Secret through protobuf keeps bytes as base64 and is defaulted to Opaque', async () => {
    const [secret] = await both(
      ['create', 'secret', 'generic', 'creds', '--from-literal=password=s3cr3t'],
      ['secret', 'creds'],
    );
    expect(secret.data).toEqual({ password: Buffer.from('s3cr3t').toString('base64') });
    expect(secret.type).toBe('Opaque');
  });

  /** POSTs a protobuf body: the `k8s\0` magic, then a runtime.Unknown wrapping `raw`. */
  async function postProtobuf(urlPath: string, apiVersion: string, kind: string, raw: Uint8Array) {
    const unknown = protoSchema().root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
    const envelope = unknown.encode(unknown.create({ typeMeta: { apiVersion, kind }, raw })).finish();
    const body = Buffer.concat([Buffer.from('k8s\0', 'binary'), envelope]);
    const dispatcher = new Agent({ connect: { ca: sb.api.caPem } });
    try {
      const res = await request(`${sb.api.url}${urlPath}`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
        dispatcher,
      });
      return { status: res.statusCode, body: (await res.body.json()) as Json };
    } finally {
      await dispatcher.close();
    }
  }

  it('a custom resource has no protobuf form: 415 naming JSON and YAML only', async () => {
    const res = await postProtobuf(
      '/apis/gateway.networking.k8s.io/v1/namespaces/pb/httproutes',
      'gateway.networking.k8s.io/v1',
      'HTTPRoute',
      new Uint8Array([0x0a, 0x00]),
    );
    expect(res.status).toBe(415);
    expect(res.body.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml',
    );
  });

  it('a protobuf body that does not decode is 400 BadRequest, not a crash', async () => {
    const res = await postProtobuf(
      '/api/v1/namespaces/pb/configmaps',
      'v1',
      'ConfigMap',
      new Uint8Array([0x0a, 0x7f]),
    );
    expect(res.status).toBe(400);
    expect(res.body.reason).toBe('BadRequest');
  });

  it('a ConfigMap encoded by the library round-trips data and binaryData', async () => {
    const type = protoSchema().root.lookupType('k8s.io.api.core.v1.ConfigMap');
    const raw = type
      .encode(
        type.create({
          metadata: { name: 'lib', namespace: 'pb' },
          data: { 'a.txt': 'hello' },
          binaryData: { blob: Buffer.from([0, 1, 2]) },
        }),
      )
      .finish();
    const res = await postProtobuf('/api/v1/namespaces/pb/configmaps', 'v1', 'ConfigMap', raw);
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ 'a.txt': 'hello' });
    expect(res.body.binaryData).toEqual({ blob: 'AAEC' });
  });
});

describe('`mooring kube-api` then the typed kubectl creates', () => {
  it('create namespace, deployment, serviceaccount, service, role, rolebinding, pdb; autoscale; expose', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mooring-kube-api-protobuf-'));
    const kubeconfig = path.join(dir, 'kubeconfig');
    const abort = new AbortController();
    const out = new PassThrough();
    let printed = '';
    out.on('data', (c: Buffer) => {
      printed += c.toString();
    });
    const ctx: CliContext = {
      env: { MOORING_LOG_LEVEL: 'silent' },
      stdout: out,
      stderr: new PassThrough(),
      signal: abort.signal,
      cwd: process.cwd(),
      version: '0.0.0-test',
    };
    const running = kubeApi(['--kubeconfig-out', kubeconfig], ctx);
    try {
      for (let i = 0; i < 200 && !printed.includes('kubeconfig written'); i++)
        await new Promise((r) => setTimeout(r, 20));
      const kubectl = (args: string[]) =>
        new Promise<{ code: number; stderr: string }>((resolve) => {
          execFile(
            toolPath('kubectl'),
            ['--kubeconfig', kubeconfig, '--cache-dir', path.join(dir, 'cache'), ...args],
            { timeout: 20_000 },
            (error, _stdout, stderr) => resolve({ code: error ? 1 : 0, stderr }),
          );
        });
      const steps = [
        ['create', 'namespace', 'team'],
        ['create', 'deployment', 'web', '--image=nginx', '-n', 'team'],
        ['create', 'serviceaccount', 'robot', '-n', 'team'],
        ['create', 'service', 'clusterip', 'api', '--tcp=80:8080', '-n', 'team'],
        ['create', 'service', 'nodeport', 'edge', '--tcp=80:8080', '-n', 'team'],
        ['create', 'role', 'reader', '--verb=get', '--resource=pods', '-n', 'team'],
        ['create', 'rolebinding', 'reader', '--role=reader', '--user=ann', '-n', 'team'],
        ['create', 'pdb', 'web', '--selector=app=web', '--min-available=1', '-n', 'team'],
        ['autoscale', 'deployment', 'web', '--max=3', '-n', 'team'],
        ['expose', 'deployment', 'web', '--port=80', '-n', 'team'],
      ];
      for (const step of steps)
        expect({ step, ...(await kubectl(step)) }).toEqual({ step, code: 0, stderr: '' });
    } finally {
      abort.abort();
      await running;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
