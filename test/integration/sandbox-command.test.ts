/** Acceptance: `npx mooring sandbox --once` prints the objects and exits 0. */
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { toolPath } from '../../scripts/install-tools.ts';
import { REPO } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';

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

describe('npx mooring sandbox (running)', () => {
  it('exposes the example deployment: kubectl get ingress -A shows its host, describe its backend; describe deployment shows the controller Events', async () => {
    const child = spawn(process.execPath, [path.join(REPO, 'bin', 'mooring.js'), 'sandbox'], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    try {
      await waitFor('the sandbox running', () => out.includes('running; Ctrl-C to stop'), 90_000, 200);
      expect(out).toMatch(/^Ingress\s+default\s+hello-app\s+yes$/m);
      const kubeconfig = /--kubeconfig (\S+kubeconfig\.yaml) get ingress -A/.exec(out)?.[1];
      expect(kubeconfig).toBeDefined();
      const kubectl = (args: string[]) =>
        promisify(execFile)(toolPath('kubectl'), ['--kubeconfig', kubeconfig!, ...args], { timeout: 20_000 });
      const { stdout: listed } = await kubectl(['get', 'ingress', '-A']);
      expect(listed).toMatch(/^NAMESPACE\s+NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE$/m);
      expect(listed).toMatch(/^default\s+hello-app\s+nginx\s+hello\.example\.com\s+80\s/m);
      const { stdout: described } = await kubectl(['describe', 'ingress', 'hello-app', '-n', 'default']);
      expect(described).toMatch(/hello\.example\.com\s*\n\s+\/\s+hello-app:8000/);
      // The controller's Events, as a cluster's describe shows them.
      const { stdout: deployment } = await kubectl(['describe', 'deployment', 'hello-app', '-n', 'default']);
      const events = deployment.slice(deployment.indexOf('\nEvents:'));
      expect(events).toMatch(/^\s+Type\s+Reason\s+Age\s+From\s+Message$/m);
      expect(events).toMatch(
        /^\s+Normal\s+ScalingReplicaSet\s+\S+\s+deployment-controller\s+Scaled up replica set hello-app-\w+ from 0 to \d+$/m,
      );
    } finally {
      child.kill('SIGINT');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }, 120_000);
});
