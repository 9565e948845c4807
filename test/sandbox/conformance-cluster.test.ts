/**
 * What a fresh cluster has and checks, through real kubectl 1.34: the `kubernetes` Service in
 * `default`, Service cluster IPs checked as the registry allocates them, and the pod field
 * selectors kube-apiserver indexes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, manifest, type Sandbox, startSandbox } from './helpers.ts';

describe('a cluster as kube-apiserver starts it, through real kubectl', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['apps'] });
  });
  afterAll(async () => {
    await sb.close();
  });

  it('kubectl get svc -n default and get all show the kubernetes Service', async () => {
    const svc = await sb.kubectl(['get', 'svc', '-n', 'default', '--no-headers']);
    expect(svc.stdout).toMatch(/^kubernetes\s+ClusterIP\s+10\.96\.0\.1\s+<none>\s+443\/TCP\s+\S+\n$/);
    const all = await sb.kubectl(['get', 'all', '-n', 'default']);
    expect(all.stdout).toMatch(/^service\/kubernetes\s+ClusterIP\s+10\.96\.0\.1\s/m);
    const object: Json = JSON.parse(
      (await sb.kubectl(['get', 'svc', 'kubernetes', '-n', 'default', '-o', 'json'])).stdout,
    );
    expect(object.metadata.labels).toEqual({ component: 'apiserver', provider: 'kubernetes' });
    expect(object.spec).toMatchObject({
      type: 'ClusterIP',
      clusterIP: '10.96.0.1',
      clusterIPs: ['10.96.0.1'],
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: expect.any(Number) }],
      sessionAffinity: 'None',
    });
    expect(object.spec.selector).toBeUndefined();
  });

  it('a cluster IP already allocated, or outside 10.96.0.0/12, is refused with 422 in the server words', async () => {
    const file = (name: string, ip: string) =>
      manifest(
        sb,
        `${name}.yaml`,
        `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}, namespace: apps}\nspec: {clusterIP: "${ip}", ports: [{port: 80}]}\n`,
      );
    const taken = await sb.kubectl(['create', '-f', file('dup', '10.96.0.1')]);
    expect(taken.stderr.trim()).toBe(
      'The Service "dup" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: provided IP is already allocated',
    );
    const outside = await sb.kubectl(['create', '-f', file('far', '192.168.0.9')]);
    expect(outside.stderr.trim()).toBe(
      'The Service "far" is invalid: spec.clusterIPs: Invalid value: []string{"192.168.0.9"}: failed to allocate IP 192.168.0.9: the provided IP (192.168.0.9) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
    );
    const free = await sb.kubectl(['create', '-f', file('pinned', '10.96.200.7')]);
    expect(free.stderr).toBe('');
    // Deleting a Service frees its address for the next one.
    expect((await sb.kubectl(['delete', 'svc', 'pinned', '-n', 'apps'])).code).toBe(0);
    expect((await sb.kubectl(['create', '-f', file('again', '10.96.200.7')])).stderr).toBe('');
  });

  it('pod field selectors kube-apiserver indexes: spec.nodeName, status.phase, spec.hostNetwork, …', async () => {
    const pod = (name: string, extra: string) =>
      `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: apps}\nspec:\n  containers: [{name: c, image: busybox:1.36}]\n${extra}`;
    const file = manifest(
      sb,
      'pods.yaml',
      [
        pod('on-node', '  nodeName: node-a\n  restartPolicy: Never\n'),
        pod('host', '  hostNetwork: true\n  serviceAccountName: default\n'),
      ].join('---\n'),
    );
    expect((await sb.kubectl(['create', '-f', file])).code).toBe(0);
    const names = async (selector: string) => {
      const out = await sb.kubectl(['get', 'pods', '-n', 'apps', '--field-selector', selector, '-o', 'name']);
      expect(out.stderr).toBe('');
      return out.stdout.trim().split('\n').filter(Boolean);
    };
    expect(await names('spec.nodeName=node-a')).toEqual(['pod/on-node']);
    expect(await names('spec.nodeName=')).toEqual(['pod/host']);
    expect(await names('status.phase=Pending')).toEqual(['pod/host', 'pod/on-node']);
    expect(await names('status.phase!=Pending')).toEqual([]);
    expect(await names('spec.restartPolicy=Never')).toEqual(['pod/on-node']);
    expect(await names('spec.hostNetwork=false')).toEqual(['pod/on-node']);
    // A Pod without a service account gets `default` (the ServiceAccount admission plugin).
    expect(await names('spec.schedulerName=default-scheduler,spec.serviceAccountName=default')).toEqual([
      'pod/host',
      'pod/on-node',
    ]);
    expect(await names('status.podIP=,status.nominatedNodeName=')).toEqual(['pod/host', 'pod/on-node']);
    const bad = await sb.kubectl(['get', 'pods', '-n', 'apps', '--field-selector', 'spec.priority=1']);
    expect(bad.stderr).toContain('field label not supported: spec.priority');
  });

  it('/readyz?verbose and /livez?verbose list their checks; /readyz/<check> answers one', async () => {
    const ready = await sb.kubectl(['get', '--raw', '/readyz?verbose']);
    const lines = ready.stdout.trim().split('\n');
    expect(lines[0]).toBe('[+]ping ok');
    expect(lines).toContain('[+]etcd-readiness ok');
    expect(lines).toContain('[+]informer-sync ok');
    expect(lines).toContain('[+]shutdown ok');
    expect(lines.at(-1)).toBe('readyz check passed');
    const live = await sb.kubectl(['get', '--raw', '/livez?verbose']);
    expect(live.stdout.trim().split('\n').at(-1)).toBe('livez check passed');
    expect(live.stdout).not.toContain('shutdown');
    expect((await sb.kubectl(['get', '--raw', '/readyz/etcd'])).stdout).toBe('ok');
    expect((await sb.kubectl(['get', '--raw', '/readyz/nothing'])).code).not.toBe(0);
  });

  it('kubectl explain prints the API documentation: kinds, fields and type names as on a cluster', async () => {
    const kind = await sb.kubectl(['explain', 'deployments']);
    expect(kind.stdout).toContain(
      'DESCRIPTION:\n    Deployment enables declarative updates for Pods and ReplicaSets.\n',
    );
    expect(kind.stdout).toMatch(
      /^ {2}spec\t<DeploymentSpec>\n {4}Specification of the desired behavior of the Deployment\.$/m,
    );
    expect(kind.stdout).toMatch(
      /^ {2}apiVersion\t<string>\n {4}APIVersion defines the versioned schema of this representation of an object\.$/m,
    );
    const field = await sb.kubectl(['explain', 'deployment.spec.replicas']);
    expect(field.stdout).toContain(
      'DESCRIPTION:\n    Number of desired pods. This is a pointer to distinguish between explicit\n    zero and not specified. Defaults to 1.\n',
    );
    const nested = await sb.kubectl(['explain', 'pod.spec.containers.imagePullPolicy']);
    expect(nested.stdout).toContain('    Image pull policy.\n    One of Always, Never, IfNotPresent.\n');
  });

  it('a strategic merge patch puts list items new to the list first, as apimachinery orders them', async () => {
    const text = `apiVersion: apps/v1
kind: Deployment
metadata: {name: smp, namespace: apps}
spec:
  selector: {matchLabels: {app: smp}}
  template:
    metadata: {labels: {app: smp}}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        env: [{name: A, value: a}, {name: B, value: b}]
`;
    expect((await sb.kubectl(['create', '-f', manifest(sb, 'smp.yaml', text)])).stderr).toBe('');
    const env = async (patch: unknown) => {
      const out = await sb.kubectl(['patch', 'deployment', 'smp', '-n', 'apps', '-p', JSON.stringify(patch)]);
      expect(out.stderr).toBe('');
      const got: Json = JSON.parse(
        (await sb.kubectl(['get', 'deployment', 'smp', '-n', 'apps', '-o', 'json'])).stdout,
      );
      return got.spec.template.spec.containers.map(
        (c: Json) => `${c.name}:${(c.env ?? []).map((e: Json) => e.name).join(',')}`,
      );
    };
    const containers = (list: unknown[]) => ({ spec: { template: { spec: { containers: list } } } });
    expect(await env(containers([{ name: 'app', env: [{ name: 'NEW', value: '1' }] }]))).toEqual([
      'app:NEW,A,B',
    ]);
    // The patch's items keep the patch's order; a live item the patch names keeps its place after
    // the live items before it (mergeSortedSlice), so the new C, named first, comes first.
    expect(
      await env(
        containers([
          {
            name: 'app',
            env: [
              { name: 'C', value: '1' },
              { name: 'B', value: 'x' },
            ],
          },
        ]),
      ),
    ).toEqual(['app:C,NEW,A,B']);
    expect(await env(containers([{ name: 'sidecar', image: 'busybox:1.36' }]))).toEqual([
      'sidecar:',
      'app:C,NEW,A,B',
    ]);
  });
});
