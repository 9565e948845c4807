/** Acceptance: `npx mooring sandbox --once` prints the objects and exits 0. */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
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

/** The lines of the demo's output that are commands (`  npx mooring ...`, `  kubectl ...`). */
function printedCommands(out: string): string[][] {
  return out
    .split('\n')
    .filter((l) => /^ {2}(npx mooring|kubectl) /.test(l))
    .map((l) => l.trim().split(' '));
}

describe("the demo's next steps, run as printed", () => {
  it('status, cp list, cp patch (rolled out), diff (nothing to change), check (passes); Ctrl-C removes the directory', async () => {
    const child = spawn(process.execPath, [path.join(REPO, 'bin', 'mooring.js'), 'sandbox'], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    const dir = () => /removes (\S+) \(it holds the API key\)/.exec(out)?.[1];
    try {
      await waitFor('the sandbox running', () => out.includes('running; Ctrl-C to stop'), 90_000, 200);
      const commands = printedCommands(out);
      const env = { ...process.env, npm_config_update_notifier: 'false' };
      // Each as printed: `npx ...` from the repository, `kubectl` being the one the tools install.
      const runPrinted = (words: string[]) =>
        promisify(execFile)(words[0] === 'kubectl' ? toolPath('kubectl') : 'npx', words.slice(1), {
          cwd: REPO,
          env,
          timeout: 60_000,
        });
      const find = (prefix: string) => {
        const c = commands.find((w) => w.join(' ').startsWith(prefix));
        expect(c, prefix).toBeDefined();
        return c!;
      };
      expect(commands.length).toBe(7);
      for (const c of commands.filter((w) => w[0] === 'kubectl')) await runPrinted(c);
      expect((await runPrinted(find('npx mooring status'))).stdout).toMatch(
        /^hello-app\s+default\s+READY\s+Ready/m,
      );
      expect((await runPrinted(find('npx mooring cp'))).stdout).toMatch(
        /^hello-app\s+[0-9a-f-]{36}\s+READY\s+default\s+ghcr\.io\/example\/app:1\.0\.0$/m,
      );
      const patch = commands.find((w) => w.includes('patch'))!;
      expect((await runPrinted(patch)).stdout).toMatch(
        /^deployment hello-app \([0-9a-f-]{36}\): image ghcr\.io\/example\/app:1\.1\.0/,
      );
      const kubeconfig = find('kubectl')[2]!;
      await waitFor(
        'the new image rolled out',
        async () =>
          (
            await promisify(execFile)(toolPath('kubectl'), [
              '--kubeconfig',
              kubeconfig,
              'get',
              'deploy',
              'hello-app',
              '-n',
              'default',
              '-o',
              'jsonpath={.spec.template.spec.containers[0].image}',
            ])
          ).stdout === 'ghcr.io/example/app:1.1.0',
        30_000,
        500,
      );
      // diff with the agent's own settings: nothing deleted (the Ingress is the settings file's).
      const diffed = (await runPrinted(find('npx mooring diff'))).stdout;
      expect(diffed).toMatch(/^hello-app \([0-9a-f-]{36}\) in default/m);
      expect(diffed).not.toMatch(/deleted/);
      expect((await runPrinted(find('npx mooring check'))).stdout).toMatch(/\nall checks passed\n$/);
      expect(existsSync(dir()!)).toBe(true);
    } finally {
      child.kill('SIGINT');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    expect(existsSync(dir()!)).toBe(false);
  }, 200_000);
});
