/**
 * A Pod created without status starts as kube-apiserver 1.34 records it: `status.phase: Pending`
 * and the QoS class of its requests and limits, so `kubectl get pods` prints STATUS Pending.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifest, type Sandbox, startSandbox } from './helpers.ts';

function pod(name: string, resources: string): string {
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: team
spec:
  containers:
    - name: app
      image: nginx:1.27
      resources: ${resources}
`;
}

describe('conformance: Pod create defaults', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['team'] });
  });
  afterAll(async () => {
    await sb.close();
  });

  it('kubectl get pods shows Pending and each pod has the QoS class of its resources', async () => {
    const docs = [
      pod('best', '{}'),
      pod('burst', '{requests: {cpu: 100m}}'),
      pod('guar', '{limits: {cpu: "0.5", memory: 1Gi}}'),
      pod('guar2', '{requests: {cpu: 500m, memory: 1024Mi}, limits: {cpu: "0.5", memory: 1Gi}}'),
      pod('uneven', '{requests: {cpu: 100m, memory: 1Gi}, limits: {cpu: 200m, memory: 1Gi}}'),
    ].join('---\n');
    const applied = await sb.kubectl(['apply', '-f', manifest(sb, 'pods.yaml', docs)]);
    expect(applied.stderr).toBe('');
    const table = await sb.kubectl(['get', 'pods', '-n', 'team', '--no-headers']);
    const status = table.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/).slice(0, 3).join(' '));
    expect(status).toEqual([
      'best 0/1 Pending',
      'burst 0/1 Pending',
      'guar 0/1 Pending',
      'guar2 0/1 Pending',
      'uneven 0/1 Pending',
    ]);
    const qos = await sb.kubectl([
      'get',
      'pods',
      '-n',
      'team',
      '-o',
      'jsonpath={range .items[*]}{.metadata.name}={.status.phase}/{.status.qosClass} {end}',
    ]);
    expect(qos.stdout.trim().split(' ')).toEqual([
      'best=Pending/BestEffort',
      'burst=Pending/Burstable',
      'guar=Pending/Guaranteed',
      'guar2=Pending/Guaranteed',
      'uneven=Pending/Burstable',
    ]);
  });
});
