/**
 * Real kubectl 1.34 against the sandbox: discovery, table printing, -o yaml, server-side apply
 * with strict field validation (kubectl checks /openapi/v3 for `fieldValidation` support),
 * conflicts between field managers, delete, and get --watch.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { toolPath } from '../../scripts/install-tools.ts';
import { manifest, type Sandbox, startSandbox } from './helpers.ts';

const WEB = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: apps
  labels: {app: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        ports: [{containerPort: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: apps}
spec:
  selector: {app: web}
  ports: [{port: 80}]
`;

describe('real kubectl against the sandbox API', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['apps'] });
  });
  afterAll(async () => {
    await sb.close();
  });

  it('discovery: kubectl version and api-resources read /version and the group resource lists', async () => {
    const version = await sb.kubectl(['version', '-o', 'json']);
    expect(version.code).toBe(0);
    expect(JSON.parse(version.stdout).serverVersion.gitVersion).toBe('v1.34.0');
    const resources = await sb.kubectl(['api-resources', '--no-headers', '-o', 'name']);
    expect(resources.stdout.split('\n')).toEqual(
      expect.arrayContaining(['deployments.apps', 'secrets', 'horizontalpodautoscalers.autoscaling']),
    );
  });

  it('apply --server-side with strict validation creates objects; get prints server-side Table columns', async () => {
    const file = manifest(sb, 'web.yaml', WEB);
    const applied = await sb.kubectl(['apply', '--server-side', '--validate=strict', '-f', file]);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('deployment.apps/web serverside-applied');
    expect(applied.stdout).toContain('service/web serverside-applied');
    const get = await sb.kubectl(['get', 'deploy,svc', '-n', 'apps']);
    expect(get.code).toBe(0);
    expect(get.stdout).toMatch(/deployment\.apps\/web\s+2\/2\s+2\s+2/);
    expect(get.stdout).toMatch(/service\/web\s+ClusterIP\s+10\.96\.\d+\.\d+\s+<none>\s+80\/TCP/);
  });

  it('get -o yaml shows the defaults a real API server adds (strategy, imagePullPolicy, protocol)', async () => {
    const out = await sb.kubectl(['get', 'deployment', 'web', '-n', 'apps', '-o', 'yaml']);
    const obj = parse(out.stdout);
    expect(obj.spec.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' },
    });
    expect(obj.spec.revisionHistoryLimit).toBe(10);
    expect(obj.spec.template.spec.containers[0].imagePullPolicy).toBe('IfNotPresent');
    expect(obj.spec.template.spec.containers[0].ports[0].protocol).toBe('TCP');
    expect(obj.metadata.managedFields).toBeUndefined(); // kubectl hides them unless --show-managed-fields
  });

  it('re-applying the same manifest is a no-op: resourceVersion unchanged', async () => {
    const before = sb.api.getObject('apps/v1', 'Deployment', 'apps', 'web')?.metadata?.resourceVersion;
    const file = manifest(sb, 'web.yaml', WEB);
    const again = await sb.kubectl(['apply', '--server-side', '-f', file]);
    expect(again.code).toBe(0);
    expect(sb.api.getObject('apps/v1', 'Deployment', 'apps', 'web')?.metadata?.resourceVersion).toBe(before);
  });

  it('strict validation: an unknown field is rejected by the server (kubectl delegates via fieldValidation=Strict)', async () => {
    const file = manifest(sb, 'bad.yaml', WEB.replace('replicas: 2', 'replicaz: 2'));
    const out = await sb.kubectl(['apply', '--server-side', '--validate=strict', '-f', file]);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('.spec.replicaz: field not declared in schema');
    const patches = sb.api.requests({ verb: 'apply', resource: 'deployments' });
    expect(patches.at(-1)?.status).toBe(400);
  });

  it('conflict: applying a field owned by another manager is reported by kubectl, --force-conflicts takes it', async () => {
    const file = manifest(sb, 'other.yaml', WEB.split('---')[0]?.replace('replicas: 2', 'replicas: 5') ?? '');
    const out = await sb.kubectl(['apply', '--server-side', '--field-manager=other', '-f', file]);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');
    const forced = await sb.kubectl([
      'apply',
      '--server-side',
      '--field-manager=other',
      '--force-conflicts',
      '-f',
      file,
    ]);
    expect(forced.code).toBe(0);
    const obj = sb.api.getObject('apps/v1', 'Deployment', 'apps', 'web');
    expect((obj?.spec as { replicas: number } | undefined)?.replicas).toBe(5);
  });

  it('get --watch prints the initial rows then a change made by another client', async () => {
    const child = spawn(toolPath('kubectl'), [
      '--kubeconfig',
      sb.kubeconfigPath,
      '--cache-dir',
      `${sb.dir}/watch-cache`,
      'get',
      'configmaps',
      '-n',
      'apps',
      '--watch',
    ]);
    // One listener for the whole output; each wait is for a whole row (kubectl may write a row in
    // several chunks), so the row is in `out` once the wait ends.
    let out = '';
    let waiting: { row: RegExp; resolve: () => void } | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (waiting?.row.test(out)) waiting.resolve();
    });
    const seen = (row: RegExp): Promise<void> =>
      new Promise((resolve) => {
        waiting = { row, resolve };
        if (row.test(out)) resolve();
      });
    await sb.call('POST', '/api/v1/namespaces/apps/configmaps', {
      metadata: { name: 'first' },
      data: { a: '1' },
    });
    await seen(/first\s+1/);
    await sb.call('POST', '/api/v1/namespaces/apps/configmaps', {
      metadata: { name: 'second' },
      data: { a: '1', b: '2' },
    });
    await seen(/second\s+2/);
    child.kill();
    expect(out).toMatch(/first\s+1/);
    expect(out).toMatch(/second\s+2/);
  });

  it('client-side kubectl apply: re-applying is "unchanged" (openapi v3 carries list merge keys)', async () => {
    const file = manifest(
      sb,
      'client.yaml',
      WEB.replaceAll('name: web', 'name: client').replaceAll('app: web', 'app: client'),
    );
    expect((await sb.kubectl(['apply', '-f', file])).stdout).toContain('deployment.apps/client created');
    const again = await sb.kubectl(['apply', '-f', file]);
    expect(again.stdout).toContain('deployment.apps/client unchanged');
    expect(again.stdout).toContain('service/client unchanged');
  });

  it('kubectl rollout status and wait --for=condition=Available follow the simulated controller', async () => {
    const rollout = await sb.kubectl([
      'rollout',
      'status',
      'deployment/client',
      '-n',
      'apps',
      '--timeout=15s',
    ]);
    expect(rollout.stdout).toContain('deployment "client" successfully rolled out');
    const wait = await sb.kubectl([
      'wait',
      '--for=condition=Available',
      'deployment/client',
      '-n',
      'apps',
      '--timeout=15s',
    ]);
    expect(wait.stdout).toContain('condition met');
  });

  it('delete removes the objects; get then reports NotFound', async () => {
    const file = manifest(sb, 'web.yaml', WEB);
    const del = await sb.kubectl(['delete', '-f', file]);
    expect(del.code).toBe(0);
    expect(del.stdout).toContain('deployment.apps "web" deleted');
    const get = await sb.kubectl(['get', 'deployment', 'web', '-n', 'apps']);
    expect(get.code).not.toBe(0);
    expect(get.stderr).toContain('deployments.apps "web" not found');
  });

  it('a namespaced object in a missing namespace is 404 namespaces "x" not found', async () => {
    const file = manifest(
      sb,
      'nons.yaml',
      WEB.split('---')[0]?.replace('namespace: apps', 'namespace: nowhere') ?? '',
    );
    const out = await sb.kubectl(['apply', '--server-side', '-f', file]);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('namespaces "nowhere" not found');
  });
});
