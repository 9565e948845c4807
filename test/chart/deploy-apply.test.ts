import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { toolPath } from '../../scripts/install-tools.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { deployDir } from '../../scripts/render-deploy.ts';
import { ciValueSets, template } from './helm.ts';

/** Every namespace the value sets name, plus the release namespace; a real cluster has them first. */
const NAMESPACES = ['mooring', 'mooring-apps', 'apps', 'jobs', 'team-a', 'team-b', 'team-c'];

describe('kubectl apply --server-side of the plain manifests against the sandbox Kubernetes API', () => {
  let api: KubeApi | undefined;
  let work = '';
  let kubeconfig = '';
  let runs = 0;

  /**
   * Real kubectl with its own fresh discovery cache (the sandbox's answers, not a stale cache).
   * Asynchronous: the sandbox serves from this very process, so a blocking spawn would starve it.
   */
  function kubectl(
    args: string[],
    input?: string,
  ): Promise<{ status: number; stdout: string; stderr: string }> {
    runs += 1;
    const child = spawn(
      toolPath('kubectl'),
      ['--kubeconfig', kubeconfig, '--cache-dir', path.join(work, `cache-${runs}`), ...args],
      { env: { PATH: process.env.PATH ?? '', HOME: work }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdin.end(input ?? '');
    return new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr }));
    });
  }

  beforeAll(async () => {
    api = await startKubeApi({ namespaces: NAMESPACES });
    work = mkdtempSync(path.join(tmpdir(), 'mooring-deploy-apply-'));
    kubeconfig = path.join(work, 'kubeconfig');
    writeFileSync(kubeconfig, api.kubeconfig);
  });

  afterAll(async () => {
    await api?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('applies every object of deploy/ with strict field validation', async () => {
    const res = await kubectl([
      'apply',
      '--server-side',
      '--field-manager',
      'mooring-install',
      '-f',
      deployDir,
    ]);
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    const applied = res.stdout.trim().split('\n').sort();
    expect(applied).toEqual([
      'configmap/mooring-rendering serverside-applied',
      'deployment.apps/mooring serverside-applied',
      'role.rbac.authorization.k8s.io/mooring serverside-applied',
      'role.rbac.authorization.k8s.io/mooring-self serverside-applied',
      'rolebinding.rbac.authorization.k8s.io/mooring serverside-applied',
      'rolebinding.rbac.authorization.k8s.io/mooring-self serverside-applied',
      'service/mooring-metrics serverside-applied',
      'serviceaccount/mooring serverside-applied',
    ]);
  });

  it('reads back what it applied, and a second apply writes nothing new', async () => {
    const before = await kubectl(['get', '-f', deployDir, '-o', 'json']);
    expect(before.status, before.stderr).toBe(0);
    const items = (JSON.parse(before.stdout) as { items: Array<{ metadata: { resourceVersion: string } }> })
      .items;
    expect(items).toHaveLength(8);
    const again = await kubectl([
      'apply',
      '--server-side',
      '--field-manager',
      'mooring-install',
      '-f',
      deployDir,
    ]);
    expect(again.status, again.stderr).toBe(0);
    const after = JSON.parse((await kubectl(['get', '-f', deployDir, '-o', 'json'])).stdout) as {
      items: Array<{ metadata: { resourceVersion: string } }>;
    };
    expect(after.items.map((i) => i.metadata.resourceVersion)).toEqual(
      items.map((i) => i.metadata.resourceVersion),
    );
  });

  it('applies the deploy/ kustomization with kubectl apply -k', async () => {
    const res = await kubectl([
      'apply',
      '--server-side',
      '--field-manager',
      'mooring-install',
      '-k',
      deployDir,
    ]);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain('deployment.apps/mooring serverside-applied');
  });

  it('applies the render of every value set (ServiceMonitor and PrometheusRule aside: CRDs the API lacks)', async () => {
    for (const [name, file] of ciValueSets()) {
      const objects = template([file]).filter((o) => !o.apiVersion.startsWith('monitoring.coreos.com/'));
      const res = await kubectl(
        ['apply', '--server-side', '--field-manager', `values-${name}`, '--force-conflicts', '-f', '-'],
        objects.map((o) => stringify(o)).join('---\n'),
      );
      expect(res.status, `${name}: ${res.stderr}`).toBe(0);
    }
  });

  it('would fail with a kustomization.yaml beside the manifests (why deploy/ names it Kustomization)', async () => {
    const dir = path.join(work, 'with-kustomization-yaml');
    mkdirSync(dir);
    copyFileSync(path.join(deployDir, 'mooring.yaml'), path.join(dir, 'mooring.yaml'));
    copyFileSync(path.join(deployDir, 'Kustomization'), path.join(dir, 'kustomization.yaml'));
    const res = await kubectl(['apply', '--server-side', '--field-manager', 'mooring-install', '-f', dir]);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toMatch(/error validating "[^"]*kustomization\.yaml"/);
  });
});
