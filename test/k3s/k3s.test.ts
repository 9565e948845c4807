/**
 * The real-cluster suite: k3s in a container (testcontainers), the chart's RBAC applied to it, and
 * the agent running on the host with a token of the chart's ServiceAccount, against the reference
 * control plane started in-process. It proves on a real API server that the chart's Roles are
 * enough for the agent and that a deployment's objects appear.
 *
 * Needs a container engine (Docker or Podman socket). Where there is none, the suite is skipped
 * with one line saying so. The k3s image can be changed with MOORING_K3S_IMAGE.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { K3sContainer, type StartedK3sContainer } from '@testcontainers/k3s';
import { getContainerRuntimeClient } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { toolPath } from '../../scripts/install-tools.ts';
import { repoRoot } from '../../scripts/render-deploy.ts';
import type { ControlPlaneServer } from '../../src/control-plane/server/index.ts';
import { template } from '../chart/helm.ts';

const K3S_IMAGE = process.env.MOORING_K3S_IMAGE ?? 'rancher/k3s:v1.34.1-k3s1';
const RELEASE_NAMESPACE = 'mooring';
const APP_NAMESPACE = 'mooring-apps';
const LISTENER_ID = '5b0f0c4e-2a57-4c1e-9d3a-6f1e2b3c4d5e';
const DEPLOYMENT_ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const API_KEY = 'k3s-suite-api-key';

// getContainerRuntimeClient rejects within milliseconds when no engine answers.
const noEngine = await getContainerRuntimeClient().then(
  () => undefined,
  (err: Error) => err.message,
);
if (noEngine) console.log(`k3s suite skipped: no container engine on this machine (${noEngine})`);

/** Polls `check` until it returns a value (not undefined) or `timeoutMs` passes. */
async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

describe.skipIf(noEngine !== undefined)('the agent on a real cluster (k3s) with the chart RBAC', () => {
  let k3s: StartedK3sContainer | undefined;
  let controlPlane: ControlPlaneServer | undefined;
  let agent: ChildProcess | undefined;
  let agentOutput = '';
  let agentExit: number | null | undefined;
  let work = '';
  let adminConfig = '';
  let agentConfig = '';

  function kubectl(kubeconfig: string, args: string[], input?: string) {
    const res = spawnSync(toolPath('kubectl'), ['--kubeconfig', kubeconfig, ...args], {
      encoding: 'utf8',
      input,
      env: { PATH: process.env.PATH ?? '', HOME: work },
    });
    return { status: res.status ?? -1, stdout: res.stdout, stderr: res.stderr };
  }

  function mustKubectl(kubeconfig: string, args: string[], input?: string): string {
    const res = kubectl(kubeconfig, args, input);
    if (res.status !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${res.stderr}`);
    return res.stdout;
  }

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'mooring-k3s-'));
    k3s = await new K3sContainer(K3S_IMAGE).start();
    adminConfig = path.join(work, 'admin.kubeconfig');
    writeFileSync(adminConfig, k3s.getKubeConfig());

    // 1. The namespaces and exactly the chart's ServiceAccount and RBAC (rendered, not hand-written).
    for (const ns of [RELEASE_NAMESPACE, APP_NAMESPACE])
      mustKubectl(adminConfig, ['create', 'namespace', ns]);
    const rbac = template([
      {
        controlPlane: { url: 'http://127.0.0.1:1' },
        listenerId: LISTENER_ID,
        namespaces: [APP_NAMESPACE],
        existingSecret: 'unused-here',
      },
    ]).filter((o) => ['ServiceAccount', 'Role', 'RoleBinding'].includes(o.kind));
    mustKubectl(
      adminConfig,
      ['apply', '--server-side', '-f', '-'],
      rbac.map((o) => stringify(o)).join('---\n'),
    );

    // 2. A kubeconfig for the agent holding a token of that ServiceAccount (and nothing else).
    const token = mustKubectl(adminConfig, [
      'create',
      'token',
      'mooring',
      '-n',
      RELEASE_NAMESPACE,
      '--duration',
      '1h',
    ]).trim();
    const admin = parse(k3s.getKubeConfig()) as { clusters: Array<{ cluster: Record<string, unknown> }> };
    agentConfig = path.join(work, 'agent.kubeconfig');
    writeFileSync(
      agentConfig,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'k3s', cluster: admin.clusters[0]!.cluster }],
        users: [{ name: 'mooring', user: { token } }],
        contexts: [
          { name: 'mooring', context: { cluster: 'k3s', user: 'mooring', namespace: RELEASE_NAMESPACE } },
        ],
        'current-context': 'mooring',
      }),
    );

    // 3. The reference control plane with a listener and one deployment assigned to it. Imported
    // here so that a machine without an engine skips the suite without loading it.
    const { startControlPlane } = await import('../../src/control-plane/server/index.ts');
    controlPlane = await startControlPlane({
      apiKey: API_KEY,
      seed: {
        listeners: [
          {
            id: LISTENER_ID,
            compute_type: 'k8s',
            compute_id: 'k3s-suite',
            compute_config: { k8s_namespaces: [APP_NAMESPACE] },
          },
        ],
        deployments: [
          {
            id: DEPLOYMENT_ID,
            name: 'k3s-demo',
            source: 'external_docker',
            source_config: {
              listener_id: LISTENER_ID,
              listener_config: { k8s_namespace: APP_NAMESPACE },
              deployment_type: 'dev',
              resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.1, memory_mb: 128 },
            },
            source_revision_config: { image_uri: 'docker.io/library/nginx:1.27-alpine' },
            secrets: [{ name: 'GREETING', value: 'hello from the k3s suite' }],
          },
        ],
      },
    });

    // 4. The agent on the host, configured as the chart configures it, but with the token kubeconfig.
    const keyFile = path.join(work, 'api-key');
    writeFileSync(keyFile, `${API_KEY}\n`);
    agent = spawn(process.execPath, [path.join(repoRoot, 'bin', 'mooring.js'), 'run'], {
      env: {
        PATH: process.env.PATH ?? '',
        MOORING_CONTROL_PLANE_URL: controlPlane.url,
        MOORING_API_KEY_FILE: keyFile,
        MOORING_LISTENER_ID: LISTENER_ID,
        MOORING_NAMESPACES: APP_NAMESPACE,
        MOORING_KUBECONFIG: agentConfig,
        MOORING_POD_NAMESPACE: RELEASE_NAMESPACE,
        MOORING_POD_NAME: 'mooring-k3s-suite',
        MOORING_POLL_INTERVAL: '2',
        MOORING_OPS_HOST: '127.0.0.1',
        MOORING_OPS_PORT: '0',
        MOORING_LOG_LEVEL: 'debug',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    agent.stdout?.on('data', (d: Buffer) => {
      agentOutput += d.toString();
    });
    agent.stderr?.on('data', (d: Buffer) => {
      agentOutput += d.toString();
    });
    agent.on('exit', (code) => {
      agentExit = code;
    });
  }, 600_000);

  afterAll(async () => {
    if (agent && agentExit === undefined) {
      const exited = new Promise((resolve) => agent?.once('exit', resolve));
      agent.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
      if (agentExit === undefined) agent.kill('SIGKILL');
    }
    await controlPlane?.close();
    await k3s?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  }, 120_000);

  it('the ServiceAccount token may do what the chart grants and nothing more', () => {
    const can = (args: string[]) => kubectl(agentConfig, ['auth', 'can-i', ...args]).stdout.trim();
    expect(can(['patch', 'deployments.apps', '-n', APP_NAMESPACE])).toBe('yes');
    expect(can(['list', 'configmaps', '-n', APP_NAMESPACE])).toBe('no');
    expect(can(['create', 'deployments.apps', '-n', 'default'])).toBe('no');
    expect(can(['list', 'namespaces'])).toBe('no');
    expect(can(['list', 'nodes'])).toBe('no');
    // GET of its own namespace is a request in that namespace: a Role there may allow it (a real
    // request, since can-i does not model this special case the same way on every version).
    expect(kubectl(agentConfig, ['get', 'namespace', APP_NAMESPACE, '-o', 'name']).stdout.trim()).toBe(
      `namespace/${APP_NAMESPACE}`,
    );
    expect(kubectl(agentConfig, ['get', 'namespace', 'default']).stderr).toMatch(/forbidden/i);
  });

  it("a deployment's objects appear, with the ownership labels", async () => {
    const selector = `mooring.dev/deployment-id=${DEPLOYMENT_ID}`;
    const names = await waitFor(
      'the agent to create the deployment objects',
      () => {
        if (agentExit !== undefined) throw new Error(`the agent exited (${agentExit}):\n${agentOutput}`);
        const res = kubectl(agentConfig, [
          'get',
          'deployments,services,secrets',
          '-n',
          APP_NAMESPACE,
          '-l',
          selector,
          '-o',
          'name',
        ]);
        const found = res.stdout.trim().split('\n').filter(Boolean);
        return found.some((n) => n.startsWith('deployment.apps/')) &&
          found.some((n) => n.startsWith('service/'))
          ? found
          : undefined;
      },
      180_000,
    );
    expect(names).toContain('deployment.apps/k3s-demo');
    const deployment = JSON.parse(
      mustKubectl(adminConfig, ['get', 'deployment', 'k3s-demo', '-n', APP_NAMESPACE, '-o', 'json']),
    ) as { metadata: { labels: Record<string, string>; managedFields: Array<{ manager: string }> } };
    expect(deployment.metadata.labels).toMatchObject({
      'app.kubernetes.io/managed-by': 'mooring',
      'mooring.dev/listener-id': LISTENER_ID,
      'mooring.dev/deployment-id': DEPLOYMENT_ID,
    });
    expect(deployment.metadata.managedFields.map((f) => f.manager)).toContain('mooring');
  }, 240_000);

  it('the agent was never refused by the API server', () => {
    expect(agentOutput).not.toMatch(/forbidden|\b403\b/i);
    expect(agentOutput).not.toContain('hello from the k3s suite');
  });
});
