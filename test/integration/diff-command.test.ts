/** `mooring diff` (and so `run --dry-run`'s write path): prints the change set, persists nothing. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentBody, type Stack, spawnAgent, startStack } from './harness.ts';
import { REPO } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';

describe('mooring diff against the three programs', { timeout: 60_000 }, () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
    await stack.client.createDeployment(
      deploymentBody('preview', 'registry.example/preview:1', [{ name: 'TOKEN', value: 'diff-canary-4a1f' }]),
    );
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
  });

  it('prints what would change per deployment and writes nothing', async () => {
    const { stdout } = await promisify(execFile)(
      path.join(REPO, 'node_modules', '.bin', 'node'),
      [path.join(REPO, 'bin', 'mooring.js'), 'diff'],
      {
        cwd: REPO,
        env: stack.agentEnv(),
        timeout: 60_000,
      },
    );
    expect(stdout).toMatch(/^preview \([0-9a-f-]{36}\) in apps, revision [0-9a-f-]{36}: created \d+/m);
    expect(stdout).toContain('  + Deployment/apps/preview created');
    expect(stdout).toContain('  + Secret/apps/preview-env created');
    expect(stdout).not.toContain('diff-canary-4a1f');
    const writes = stack.kube.requests().filter((r) => r.write);
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.filter((r) => !r.dryRun)).toEqual([]);
    // One cycle keeps nothing current: no watch is opened (ADR 0014).
    expect(stack.kube.requests().filter((r) => r.verb === 'watch')).toEqual([]);
    expect(stack.kube.getObject('apps/v1', 'Deployment', 'apps', 'preview')).toBeUndefined();
    // diff does not register the listener either (a control-plane write).
    expect(stack.cp.stats().byRoute['GET /v2/deployments']).toBeGreaterThan(0);
    expect(stack.cp.stats().byRoute['PATCH /v2/listeners/{listener_id}'] ?? 0).toBe(0);
  });

  it('a listener that does not exist fails with MOORING_E_LISTENER_NOT_FOUND instead of an empty diff', async () => {
    const missing = '00000000-0000-4000-8000-000000000042';
    const failed = await promisify(execFile)(
      path.join(REPO, 'node_modules', '.bin', 'node'),
      [path.join(REPO, 'bin', 'mooring.js'), 'diff', '--listener-id', missing],
      { cwd: REPO, env: stack.agentEnv(), timeout: 60_000 },
    ).then(
      () => undefined,
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain(
      `mooring diff: MOORING_E_LISTENER_NOT_FOUND: listener ${missing} does not exist`,
    );
    expect(failed?.stdout).toBe('');
  });

  it('mooring run --dry-run: reconciles and reports, persists nothing in the cluster', async () => {
    stack.kube.clearRequests();
    const agent = spawnAgent(stack.agentEnv({ MOORING_DRY_RUN: 'true' }));
    try {
      await waitFor(
        'a dry-run reconcile',
        async () =>
          (await agent.json<{ deployments: { lastChanges: string | null }[] }>('/status')).deployments[0]
            ?.lastChanges,
        30_000,
      );
      const status = await agent.json<{
        dryRun: boolean;
        deployments: { state: string; lastChanges: string }[];
      }>('/status');
      expect(status.dryRun).toBe(true);
      expect(status.deployments[0]!.lastChanges).toMatch(/^created \d+/);
      const writes = stack.kube.requests().filter((r) => r.write);
      expect(writes.length).toBeGreaterThan(0);
      expect(writes.filter((r) => !r.dryRun)).toEqual([]);
      expect(stack.kube.getObject('apps/v1', 'Deployment', 'apps', 'preview')).toBeUndefined();
    } finally {
      await agent.stop();
    }
  });
});
