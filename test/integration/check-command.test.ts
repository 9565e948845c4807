/**
 * `mooring check` against the reference control plane and the sandbox Kubernetes API, as a child
 * process with the agent's own environment: passes on a healthy set-up, and fails naming the
 * control plane when it cannot be reached.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../support/agent-process.ts';
import { type Stack, startStack } from './harness.ts';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function mooringCheck(env: Record<string, string>, args: string[] = []): Promise<Outcome> {
  return promisify(execFile)(
    path.join(REPO, 'node_modules', '.bin', 'node'),
    [path.join(REPO, 'bin', 'mooring.js'), 'check', ...args],
    { cwd: REPO, env, timeout: 60_000 },
  ).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({
      code: err.code,
      stdout: err.stdout,
      stderr: err.stderr,
    }),
  );
}

describe('mooring check', { timeout: 60_000 }, () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
    await stack.kubectl(['label', 'namespace', 'apps', 'pod-security.kubernetes.io/enforce=baseline']);
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
  });

  it('passes on a healthy set-up: every check ok, exit 0, the API key never printed', async () => {
    stack.kube.clearRequests();
    const out = await mooringCheck(stack.agentEnv());
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    for (const line of [
      /^ok {4}Kubernetes API reachable: https?:\/\/127\.0\.0\.1:\d+, v1\.\d+/m,
      /^ok {4}clock skew against the Kubernetes API: \d+ s/m,
      /^ok {4}namespace apps: exists; enforces Pod Security baseline$/m,
      /^ok {4}exposure: off/m,
      /^ok {4}permissions in namespace apps: all \d+ granted$/m,
      /^ok {4}control plane reachable: http:\/\/127\.0\.0\.1:\d+$/m,
      /^ok {4}API key accepted/m,
      /^ok {4}listener [0-9a-f-]{36}: exists, compute_type k8s$/m,
      /^ok {4}listener namespaces: apps: all among --namespaces$/m,
      /^ok {4}clock skew against the control plane: \d+ s/m,
    ]) {
      expect(out.stdout).toMatch(line);
    }
    expect(out.stdout).toMatch(/\nall checks passed\n$/);
    expect(out.stdout).not.toContain(stack.apiKey);
    // It wrote nothing to the cluster.
    expect(
      stack.kube.requests({ write: true }).filter((r) => r.resource !== 'selfsubjectaccessreviews'),
    ).toEqual([]);
  });

  it('-o json: the same checks as a document with ok true', async () => {
    const out = await mooringCheck(stack.agentEnv(), ['-o', 'json']);
    expect(out.code).toBe(0);
    const doc = JSON.parse(out.stdout) as { ok: boolean; checks: { check: string; status: string }[] };
    expect(doc.ok).toBe(true);
    expect(doc.checks.map((c) => c.check)).toContain('control plane reachable');
    expect(doc.checks.every((c) => c.status === 'ok')).toBe(true);
  });

  it('fails naming the control plane when it cannot be reached, exit 1', async () => {
    const out = await mooringCheck(stack.agentEnv({ MOORING_CONTROL_PLANE_URL: 'http://127.0.0.1:9' }), [
      '-o',
      'text',
    ]);
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(
      /^FAIL {2}control plane reachable: MOORING_E_CP_UNREACHABLE: control plane http:\/\/127\.0\.0\.1:9: /m,
    );
    expect(out.stdout).toMatch(/^ {6}fix: check --control-plane-url/m);
    // The Kubernetes side still passes: the failure is the control plane's alone.
    expect(out.stdout).toMatch(/^ok {4}Kubernetes API reachable/m);
    expect(out.stdout).toMatch(/\n1 check failed\n$/);
  });

  it('a wrong API key: the key check fails with MOORING_E_CP_UNAUTHORIZED', async () => {
    const out = await mooringCheck(
      stack.agentEnv({ MOORING_API_KEY_FILE: '', MOORING_API_KEY: 'wrong-key-0c1d' }),
    );
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/^FAIL {2}API key accepted: MOORING_E_CP_UNAUTHORIZED: /m);
    expect(out.stdout).not.toContain('wrong-key-0c1d');
  });

  it('bad settings: a coded problem and exit 2, as mooring run', async () => {
    const out = await mooringCheck(stack.agentEnv(), ['--poll-interval', '-5']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(
      'mooring check: MOORING_E_CONFIG_INVALID: --poll-interval (MOORING_POLL_INTERVAL): must be a positive number of seconds (got "-5")',
    );
  });
});
