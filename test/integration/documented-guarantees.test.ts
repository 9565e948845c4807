/**
 * What the operator guide promises and no other test held the agent to, against the real
 * programs: the six metrics it lists move, /readyz turns 503 while the API server is unreachable,
 * `--dry-run` holds no Lease, a second signal exits 130 at once, `mooring status --json` prints
 * /status, and `mooring diff` exits 0 when every deployment could be previewed and 1 otherwise.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentProcess } from '../support/agent-process.ts';
import { REPO } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';
import { deploymentBody, type Stack, spawnAgent, startStack, waitForState } from './harness.ts';

const run = promisify(execFile);

/** Runs `mooring <args>` with `env`; resolves to its exit code and output. */
async function mooring(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(
      path.join(REPO, 'node_modules', '.bin', 'node'),
      [path.join(REPO, 'bin', 'mooring.js'), ...args],
      { cwd: REPO, env, timeout: 60_000 },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** The value of one sample of /metrics (`name{labels}`), or undefined when it is absent. */
function sample(metrics: string, series: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('documented guarantees of the running agent', { timeout: 120_000 }, () => {
  let stack: Stack;
  let agent: AgentProcess | undefined;
  let id = '';

  beforeAll(async () => {
    stack = await startStack();
    id = (await stack.client.createDeployment(deploymentBody('promise', 'registry.example/promise:1'))).id;
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await stack?.close();
  });

  it('mooring diff exits 0 when every deployment could be previewed', async () => {
    const res = await mooring(['diff'], stack.agentEnv());
    expect(res.stdout).toMatch(/^promise \([0-9a-f-]{36}\) in apps/m);
    expect(res.code).toBe(0);
  });

  it('--dry-run with leader election: no Lease is read or written', async () => {
    stack.kube.clearRequests();
    const dry = spawnAgent(stack.agentEnv({ MOORING_DRY_RUN: 'true', MOORING_LEADER_ELECTION: 'true' }));
    try {
      await waitFor(
        'a dry-run reconcile',
        async () =>
          (await dry.json<{ deployments: { lastChanges: string | null }[] }>('/status')).deployments[0]
            ?.lastChanges,
        30_000,
      );
      expect(stack.kube.requests().filter((r) => r.resource === 'leases')).toEqual([]);
      expect(
        stack.kube.getObject('coordination.k8s.io/v1', 'Lease', 'apps', 'mooring-leader'),
      ).toBeUndefined();
    } finally {
      await dry.stop();
    }
  });

  it('the documented metrics move: polls, reconciles, control-plane requests, heartbeats', async () => {
    agent = spawnAgent(stack.agentEnv());
    await waitForState(agent, id, 'Ready', 40_000);
    // agentEnv sets a 5 s heartbeat: the first one follows start-up.
    await waitFor(
      'a heartbeat',
      async () =>
        (sample(await agent!.text('/metrics'), 'mooring_heartbeats_total{result="success"}') ?? 0) >= 1,
      20_000,
    );
    const metrics = await agent.text('/metrics');
    expect(sample(metrics, 'mooring_poll_duration_seconds_count{result="success"}')).toBeGreaterThan(0);
    const lastPoll = sample(metrics, 'mooring_last_poll_success_timestamp_seconds') ?? 0;
    expect(Math.abs(Date.now() / 1000 - lastPoll)).toBeLessThan(30);
    expect(sample(metrics, 'mooring_reconcile_duration_seconds_count{result="success"}')).toBeGreaterThan(0);
    expect(
      sample(metrics, 'mooring_control_plane_requests_total{route="GET /v2/deployments",result="200"}'),
    ).toBeGreaterThan(0);
    expect(sample(metrics, 'mooring_reconciles_in_flight')).toBeGreaterThanOrEqual(0);
    expect(sample(metrics, 'mooring_heartbeats_total{result="success"}')).toBeGreaterThanOrEqual(1);
  });

  it("mooring status --json prints the agent's /status document", async () => {
    const res = await mooring(['status', '--json', '--url', await agent!.opsUrl], {
      PATH: process.env.PATH ?? '',
    });
    expect(res.code).toBe(0);
    const printed = JSON.parse(res.stdout) as {
      listenerId: string;
      deployments: { id: string; state: string }[];
    };
    const served = await agent!.json<{ listenerId: string; deployments: { id: string }[] }>('/status');
    expect(printed.listenerId).toBe(served.listenerId);
    expect(printed.deployments.map((d) => d.id)).toEqual(served.deployments.map((d) => d.id));
    expect(printed.deployments.find((d) => d.id === id)?.state).toBe('Ready');
  });

  it('/readyz answers 503 while the API server is unreachable, and 200 again after', async () => {
    expect((await fetch(`${await agent!.opsUrl}/readyz`)).status).toBe(200);
    stack.kube.setFaults([{ dropConnection: true }]);
    try {
      await waitFor(
        'unready',
        async () => (await fetch(`${await agent!.opsUrl}/readyz`)).status === 503,
        30_000,
      );
      const body = (await (await fetch(`${await agent!.opsUrl}/readyz`)).json()) as {
        checks: { kubernetes: { ok: boolean } };
      };
      expect(body.checks.kubernetes.ok).toBe(false);
    } finally {
      stack.kube.clearFaults();
    }
    await waitFor(
      'ready again',
      async () => (await fetch(`${await agent!.opsUrl}/readyz`)).status === 200,
      30_000,
    );
  });

  it('a second signal during shutdown exits at once with 130', async () => {
    await agent?.stop();
    agent = undefined;
    // Every apply takes 2 s, so the shutdown waits on an in-flight reconcile (grace 20 s).
    stack.kube.setFaults([{ verb: 'apply', latencyMs: 2000 }]);
    await stack.client.patchDeployment(id, {
      source_revision_config: { image_uri: 'registry.example/promise:2' },
    });
    stack.kube.clearRequests();
    const busy = spawnAgent(stack.agentEnv({ MOORING_SHUTDOWN_GRACE_PERIOD: '20' }));
    try {
      await waitFor(
        'an apply in flight',
        () => stack.kube.requests({ verb: 'apply' }).length > 0,
        30_000,
        50,
      );
      busy.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(busy.running()).toBe(true);
      const sentAt = Date.now();
      busy.child.kill('SIGTERM');
      const exit = await busy.exited;
      expect(exit.code).toBe(130);
      expect(Date.now() - sentAt).toBeLessThan(2000);
    } finally {
      stack.kube.clearFaults();
      await busy.stop();
    }
  });

  it('mooring diff exits 1 when a deployment cannot be previewed', async () => {
    const body = deploymentBody('stray', 'registry.example/stray:1');
    body.source_config.listener_config = { k8s_namespace: 'not-watched' };
    await stack.client.createDeployment(body);
    const res = await mooring(['diff'], stack.agentEnv());
    expect(res.stdout).toContain('MOORING_E_NAMESPACE_NOT_ALLOWED');
    expect(res.code).toBe(1);
  });
});
