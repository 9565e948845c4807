/**
 * The agent as a child process, idle after converging: its resyncs take the shortcut (nothing
 * rendered, nothing written, the `reconciled` line at debug), and yet a hand edit, a hand deletion
 * or an extra object of ours is repaired at the next resync (ADR 0005). This is the production
 * path: the cycle's shared, slimmed listing, the apply memo and the shortcut together.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentProcess } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';
import {
  deploymentBody,
  LISTENER_ID,
  NAMESPACE,
  spawnAgent,
  type Stack,
  startStack,
  waitForState,
} from './harness.ts';

interface Line {
  level: string;
  msg: string;
  deploymentId?: string;
  changes?: string;
}

describe('idle resyncs: the shortcut, and drift still repaired', () => {
  let stack: Stack;
  let agent: AgentProcess;
  let id: string;

  const lines = (): Line[] =>
    agent
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Line);
  const shortcuts = () =>
    lines().filter((l) => l.msg === 'converged: not rendered' && l.deploymentId === id).length;
  const infoReconciled = () =>
    lines().filter((l) => l.msg === 'reconciled' && l.level === 'info' && l.deploymentId === id);
  const replicas = async () =>
    Number(
      await stack.kubectl(['get', 'deploy', 'calm', '-n', NAMESPACE, '-o', 'jsonpath={.spec.replicas}']),
    );
  const exists = async (kind: string, name: string) =>
    (await stack.kubectl(['get', kind, '-n', NAMESPACE, '--ignore-not-found', '-o', 'name', name])).trim() !==
    '';

  beforeAll(async () => {
    stack = await startStack();
    id = (await stack.client.createDeployment(deploymentBody('calm', 'registry.example/calm:1'))).id;
    agent = spawnAgent(stack.agentEnv());
    await waitForState(agent, id, 'Ready', 30_000);
    // Two resyncs that took the shortcut: the memo and the passed-on pass are in place.
    await waitFor('two shortcut resyncs', () => shortcuts() >= 2, 20_000);
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await stack?.close();
  });

  it('idle resyncs write nothing and log their reconciled line at debug only', async () => {
    stack.kube.clearRequests();
    const infoBefore = infoReconciled().length;
    // Each resync's duration is on /metrics (the cold start's, then every one since).
    const resyncs = async () =>
      Number(/^mooring_resync_duration_seconds_count (\d+)$/m.exec(await agent.text('/metrics'))?.[1]);
    const resyncsBefore = await resyncs();
    expect(resyncsBefore).toBeGreaterThanOrEqual(3);
    // With watches (ADR 0014), most idle resyncs leave the deployment alone; the rest take the shortcut.
    await waitFor('three more resyncs', async () => (await resyncs()) >= resyncsBefore + 3, 20_000);
    const writes = stack.kube.requests({ write: true }).filter((r) => r.resource !== 'leases');
    expect(writes.map((w) => `${w.verb} ${w.path}`)).toEqual([]);
    expect(infoReconciled().length).toBe(infoBefore);
  });

  it('a replica count changed by hand is restored at the next resync, at info', async () => {
    const infoBefore = infoReconciled().length;
    // The agent may restore it before a read here could see 4: kubectl's answer proves the scale.
    expect(await stack.kubectl(['scale', 'deploy', 'calm', '-n', NAMESPACE, '--replicas=4'])).toMatch(
      /deployment\.apps\/calm scaled/,
    );
    await waitFor('replicas restored', async () => (await replicas()) === 1, 20_000);
    await waitFor('an info line for the repair', () => infoReconciled().length > infoBefore, 10_000);
    expect(
      infoReconciled()
        .slice(infoBefore)
        .map((l) => l.changes)
        .join(' '),
    ).toMatch(/configured 1/);
  });

  it('a Service deleted by hand is created again, and one more of ours is pruned', async () => {
    await stack.kubectl(['delete', 'svc', 'calm-redis', '-n', NAMESPACE, '--wait=false']);
    await waitFor('the Service back', () => exists('svc', 'calm-redis'), 20_000);
    const shortcutsBefore = shortcuts();
    await waitFor('the shortcut again', () => shortcuts() > shortcutsBefore, 20_000);
    // Written with our field manager, as a render of an earlier revision would have left it.
    const extra = path.join(stack.dir, 'calm-extra.yaml');
    await writeFile(
      extra,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: {
          name: 'calm-extra',
          namespace: NAMESPACE,
          labels: {
            'app.kubernetes.io/managed-by': 'mooring',
            'mooring.dev/listener-id': LISTENER_ID,
            'mooring.dev/deployment-id': id,
          },
        },
        spec: { ports: [{ port: 80 }] },
      }),
    );
    // The agent may prune it before a read here could see it: the apply's answer proves it was made.
    expect(await stack.kubectl(['apply', '--server-side', '--field-manager=mooring', '-f', extra])).toMatch(
      /service\/calm-extra serverside-applied/,
    );
    await waitFor('the extra Service pruned', async () => !(await exists('svc', 'calm-extra')), 20_000);
  });
});
