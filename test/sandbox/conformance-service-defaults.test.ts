/**
 * Write defaults of Services and Secrets as kube-apiserver 1.34 applies them, driven by real
 * kubectl: NodePort and LoadBalancer Services get node ports from 30000-32767 (unique in the
 * cluster, kept on update, a taken or out-of-range request refused with 422 in the server's
 * words), `externalTrafficPolicy: Cluster`, and LoadBalancers `allocateLoadBalancerNodePorts`;
 * a Secret without a type is `Opaque`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from './helpers.ts';

type Port = { name?: string; port: number; nodePort?: number; protocol?: string };
type Service = { spec: { type: string; ports: Port[]; [k: string]: unknown } };

describe('Service and Secret write defaults', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['a', 'b'] });
  });
  afterAll(async () => {
    await sb.close();
  });

  async function service(ns: string, name: string): Promise<Service> {
    const got = await sb.kubectl(['get', 'service', name, '-n', ns, '-o', 'json']);
    expect(got.stderr).toBe('');
    return JSON.parse(got.stdout) as Service;
  }

  const inRange = (n: unknown) => typeof n === 'number' && n >= 30000 && n <= 32767;

  it('a NodePort Service gets a node port per port and externalTrafficPolicy Cluster', async () => {
    const made = await sb.kubectl([
      'create',
      'service',
      'nodeport',
      'edge',
      '--tcp=80:8080,443:8443',
      '-n',
      'a',
    ]);
    expect(made.stderr).toBe('');
    const svc = await service('a', 'edge');
    expect(svc.spec.ports.map((p) => inRange(p.nodePort))).toEqual([true, true]);
    expect(svc.spec.ports[0]?.nodePort).not.toBe(svc.spec.ports[1]?.nodePort);
    expect(svc.spec.externalTrafficPolicy).toBe('Cluster');
    expect(svc.spec).not.toHaveProperty('allocateLoadBalancerNodePorts');
  });

  it('a LoadBalancer gets node ports, externalTrafficPolicy Cluster, allocateLoadBalancerNodePorts true', async () => {
    const made = await sb.kubectl(['create', 'service', 'loadbalancer', 'lb', '--tcp=80:8080', '-n', 'b']);
    expect(made.stderr).toBe('');
    const svc = await service('b', 'lb');
    expect(inRange(svc.spec.ports[0]?.nodePort)).toBe(true);
    expect(svc.spec.externalTrafficPolicy).toBe('Cluster');
    expect(svc.spec.allocateLoadBalancerNodePorts).toBe(true);
  });

  it('node ports are unique across namespaces', async () => {
    const all = [...(await service('a', 'edge')).spec.ports, ...(await service('b', 'lb')).spec.ports];
    const ports = all.map((p) => p.nodePort);
    expect(new Set(ports).size).toBe(ports.length);
  });

  it('a ClusterIP Service gets neither a node port nor externalTrafficPolicy', async () => {
    expect(
      (await sb.kubectl(['create', 'service', 'clusterip', 'inner', '--tcp=80', '-n', 'a'])).stderr,
    ).toBe('');
    const svc = await service('a', 'inner');
    expect(svc.spec.ports[0]).not.toHaveProperty('nodePort');
    expect(svc.spec).not.toHaveProperty('externalTrafficPolicy');
  });

  const manifest = (name: string, nodePort?: number, label = 'one') => `apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: a, labels: {rev: ${label}}}
spec:
  type: NodePort
  selector: {app: ${name}}
  ports: [{name: web, port: 80${nodePort ? `, nodePort: ${nodePort}` : ''}}]
`;

  it('the allocated node port is kept by apply and by a replace that leaves it out', async () => {
    expect((await sb.kubectl(['apply', '-f', '-'], manifest('kept'))).stderr).toBe('');
    const first = (await service('a', 'kept')).spec.ports[0]?.nodePort;
    expect(inRange(first)).toBe(true);
    expect((await sb.kubectl(['apply', '-f', '-'], manifest('kept', undefined, 'two'))).stderr).toBe('');
    expect((await service('a', 'kept')).spec.ports[0]?.nodePort).toBe(first);
    expect((await sb.kubectl(['replace', '-f', '-'], manifest('kept', undefined, 'three'))).stderr).toBe('');
    expect((await service('a', 'kept')).spec.ports[0]?.nodePort).toBe(first);
    expect(
      (await sb.kubectl(['apply', '--server-side', '-f', '-'], manifest('kept', undefined, 'three'))).stderr,
    ).toBe('');
    expect((await service('a', 'kept')).spec.ports[0]?.nodePort).toBe(first);
  });

  it('a requested node port is used; one already allocated is refused with 422', async () => {
    expect((await sb.kubectl(['create', '-f', '-'], manifest('fixed', 30080))).stderr).toBe('');
    expect((await service('a', 'fixed')).spec.ports[0]?.nodePort).toBe(30080);
    const dup = await sb.kubectl(['create', '-f', '-'], manifest('dup', 30080));
    expect(dup.code).not.toBe(0);
    expect(dup.stderr.trim()).toBe(
      'The Service "dup" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated',
    );
    const res = await sb.call('POST', '/api/v1/namespaces/a/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'dup' },
      spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] },
    });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual({
      name: 'dup',
      kind: 'Service',
      causes: [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 30080: provided port is already allocated',
          field: 'spec.ports[0].nodePort',
        },
      ],
    });
  });

  it('a node port outside 30000-32767 is refused with 422', async () => {
    const out = await sb.kubectl(['create', '-f', '-'], manifest('low', 8080));
    expect(out.stderr.trim()).toBe(
      'The Service "low" is invalid: spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
  });

  it('a deleted Service frees its node port', async () => {
    expect((await sb.kubectl(['delete', 'service', 'fixed', '-n', 'a'])).stderr).toBe('');
    expect((await sb.kubectl(['create', '-f', '-'], manifest('again', 30080))).stderr).toBe('');
  });

  it('a Secret written without a type is Opaque', async () => {
    const secret =
      'apiVersion: v1\nkind: Secret\nmetadata: {name: plain, namespace: a}\nstringData: {k: v}\n';
    expect((await sb.kubectl(['create', '-f', '-'], secret)).stderr).toBe('');
    const got = JSON.parse((await sb.kubectl(['get', 'secret', 'plain', '-n', 'a', '-o', 'json'])).stdout);
    expect(got.type).toBe('Opaque');
    expect(got.data).toEqual({ k: 'dg==' });
  });
});
