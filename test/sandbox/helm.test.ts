/**
 * Real helm 4 against the sandbox: `helm template | kubectl apply --server-side -f -`, and a
 * release lifecycle (install, upgrade, history, uninstall). Helm stores releases in Secrets written
 * by client-go's typed client as protobuf; it applies manifests with server-side apply.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolPath } from '../../scripts/install-tools.ts';
import { type Sandbox, startSandbox } from './helpers.ts';

describe('real helm against the sandbox API', () => {
  let sb: Sandbox;
  let chart: string;
  const helm = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const home = path.join(sb.dir, 'helm-home');
      execFile(
        toolPath('helm'),
        ['--kubeconfig', sb.kubeconfigPath, ...args],
        {
          timeout: 30_000,
          env: {
            PATH: process.env.PATH ?? '',
            HELM_CACHE_HOME: `${home}/cache`,
            HELM_CONFIG_HOME: `${home}/config`,
            HELM_DATA_HOME: `${home}/data`,
          },
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
    });

  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['charts'], rolloutDelayMs: 200 });
    chart = path.join(sb.dir, 'demo');
    const created = await helm(['create', chart]);
    expect(created.code).toBe(0);
  });
  afterAll(async () => {
    await sb.close();
  });

  it('helm template | kubectl apply --server-side -f - creates the chart objects', async () => {
    const rendered = await helm(['template', 'piped', chart, '--namespace', 'charts', '--skip-tests']);
    expect(rendered.code).toBe(0);
    const applied = await sb.kubectl(['apply', '--server-side', '-n', 'charts', '-f', '-'], rendered.stdout);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('deployment.apps/piped-demo serverside-applied');
    expect(sb.api.getObject('v1', 'ServiceAccount', 'charts', 'piped-demo')).toBeDefined();
  });

  it('helm install --wait, upgrade, history and uninstall', async () => {
    // --wait follows the Deployment with kstatus until the simulated controller reports it Available.
    const install = await helm([
      'install',
      'rel',
      chart,
      '--namespace',
      'charts',
      '--wait',
      '--timeout',
      '20s',
    ]);
    expect(install.stderr).toBe('');
    expect(install.code).toBe(0);
    const status = sb.api.getObject('apps/v1', 'Deployment', 'charts', 'rel-demo')?.status as {
      availableReplicas?: number;
    };
    expect(status.availableReplicas).toBe(1);
    const release = sb.api.getObject('v1', 'Secret', 'charts', 'sh.helm.release.v1.rel.v1');
    expect(release?.metadata?.labels).toMatchObject({ owner: 'helm', name: 'rel', status: 'deployed' });
    expect(
      sb.api.requests({ verb: 'apply', resource: 'deployments', namespace: 'charts' }).at(-1)?.fieldManager,
    ).toBe('helm');

    const upgrade = await helm(['upgrade', 'rel', chart, '--namespace', 'charts', '--set', 'replicaCount=3']);
    expect(upgrade.code).toBe(0);
    const deploymentSpec = sb.api.getObject('apps/v1', 'Deployment', 'charts', 'rel-demo')?.spec as {
      replicas: number;
    };
    expect(deploymentSpec.replicas).toBe(3);
    const history = await helm(['history', 'rel', '--namespace', 'charts', '-o', 'json']);
    expect(JSON.parse(history.stdout).map((r: { status: string }) => r.status)).toEqual([
      'superseded',
      'deployed',
    ]);

    const uninstall = await helm(['uninstall', 'rel', '--namespace', 'charts']);
    expect(uninstall.code).toBe(0);
    expect(sb.api.getObject('apps/v1', 'Deployment', 'charts', 'rel-demo')).toBeUndefined();
    expect(sb.api.getObject('v1', 'Secret', 'charts', 'sh.helm.release.v1.rel.v1')).toBeUndefined();
  });
});
