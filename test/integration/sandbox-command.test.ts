/** Acceptance: `npx mooring sandbox --once` prints the objects and exits 0. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO } from '../support/agent-process.ts';

describe('npx mooring sandbox --once', () => {
  it('prints the created objects and how to use kubectl, then exits 0', async () => {
    const { stdout } = await promisify(execFile)('npx', ['mooring', 'sandbox', '--once'], {
      cwd: REPO,
      timeout: 90_000,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    expect(stdout).toMatch(/hello-app: Ready/);
    expect(stdout).toMatch(/^Deployment\s+default\s+hello-app\s+yes$/m);
    expect(stdout).toMatch(/^StatefulSet\s+default\s+hello-app-postgres\s+yes$/m);
    expect(stdout).toMatch(/kubectl --kubeconfig \S+kubeconfig\.yaml get deploy,sts,svc,secret -n default/);
    // The seed's secret value is not printed.
    expect(stdout).not.toContain('hello-from-the-seed');
  }, 100_000);
});
