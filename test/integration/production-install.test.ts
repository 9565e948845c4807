/**
 * The agent from a production install: only `dependencies`, as `npm ci --omit=dev` and the image
 * leave it (the lock file says which packages that is). `mooring run` converges a deployment from
 * there; `mooring kube-api` says in one coded line how to get the emulator it lacks.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_PACKAGES } from '../../src/cli/emulator.ts';
import { REPO } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';
import { deploymentBody, NAMESPACE, type Stack, startStack } from './harness.ts';
import { spawnAgent as spawnAgentAt } from '../support/agent-process.ts';

const run = promisify(execFile);

/** A copy of bin/, src/ and package.json beside links to the production packages of the lock file. */
function productionInstall(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'mooring-prod-'));
  for (const entry of ['bin', 'src', 'package.json'])
    cpSync(path.join(REPO, entry), path.join(root, entry), { recursive: true });
  const lock = JSON.parse(readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  mkdirSync(path.join(root, 'node_modules', '.bin'), { recursive: true });
  for (const [key, meta] of Object.entries(lock.packages)) {
    const name = key.replace(/^node_modules\//, '');
    if (!key.startsWith('node_modules/') || name.includes('/node_modules/') || meta.dev) continue;
    const target = path.join(root, 'node_modules', name);
    mkdirSync(path.dirname(target), { recursive: true });
    symlinkSync(realpathSync(path.join(REPO, 'node_modules', name)), target);
  }
  // The runtime, as the image's base provides it.
  symlinkSync(
    realpathSync(path.join(REPO, 'node_modules', '.bin', 'node')),
    path.join(root, 'node_modules', '.bin', 'node'),
  );
  return root;
}

describe('a production install (no devDependencies)', { timeout: 90_000 }, () => {
  let root: string;
  let stack: Stack;

  beforeAll(async () => {
    root = productionInstall();
    stack = await startStack();
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('lacks every emulator package', async () => {
    const { stdout } = await run(
      path.join(root, 'node_modules', '.bin', 'node'),
      [
        '--input-type=module',
        '-e',
        `for (const p of ${JSON.stringify(EMULATOR_PACKAGES)}) { try { import.meta.resolve(p); console.log('found ' + p) } catch { console.log('absent ' + p) } }`,
      ],
      { cwd: path.join(root, 'src') },
    );
    expect(stdout.trim().split('\n')).toEqual(EMULATOR_PACKAGES.map((p) => `absent ${p}`));
  });

  it('mooring kube-api: one coded line naming the packages and the install command, exit 2', async () => {
    const result = await run(
      path.join(root, 'node_modules', '.bin', 'node'),
      [path.join(root, 'bin', 'mooring.js'), 'kube-api'],
      {
        cwd: root,
      },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^mooring kube-api: MOORING_E_EMULATOR_MISSING: .*@kubernetes\/client-node.*npm install --no-save /,
    );
  });

  it('mooring run converges a deployment', async () => {
    const created = await stack.client.createDeployment(
      deploymentBody('lean', 'registry.example/lean:1.0.0'),
    );
    const agent = spawnAgentAt(stack.agentEnv(), { root, stopGraceMs: 0 });
    try {
      const dep = await waitFor(
        'Deployment lean',
        async () =>
          JSON.parse(await stack.kubectl(['get', 'deployment', 'lean', '-n', NAMESPACE, '-o', 'json'])),
        40_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; agent stderr: ${agent.stderr().slice(-2000)}`);
      });
      expect(dep.spec.template.spec.containers[0].image).toBe('registry.example/lean:1.0.0');
      expect(created.id).toBeTruthy();
    } finally {
      await agent.stop();
    }
  });
});
