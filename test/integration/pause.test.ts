/**
 * Pausing, end to end: `mooring.dev/reconcile: disabled` on a managed object makes the agent (a
 * child process, resyncing at every poll) leave a hand edit of it in place through several
 * resyncs, and say so in /status, a metric and an Event; removing the annotation repairs it at the
 * next resync. The same on the API server Deployment pauses the whole deployment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentProcess } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';
import { deploymentBody, NAMESPACE, spawnAgent, type Stack, startStack, waitForState } from './harness.ts';

const PAUSE = 'mooring.dev/reconcile';

describe('the pause annotation', () => {
  let stack: Stack;
  let agent: AgentProcess;
  let id: string;

  const resyncs = async () =>
    Number(/^mooring_resync_duration_seconds_count (\d+)$/m.exec(await agent.text('/metrics'))?.[1] ?? 0);
  const waitResyncs = async (n: number) => {
    const before = await resyncs();
    await waitFor(`${n} more resyncs`, async () => (await resyncs()) >= before + n, 30_000);
  };
  const replicas = async (name: string) =>
    Number(await stack.kubectl(['get', 'deploy', name, '-n', NAMESPACE, '-o', 'jsonpath={.spec.replicas}']));
  const exists = async (kind: string, name: string) =>
    (await stack.kubectl(['get', kind, name, '-n', NAMESPACE, '--ignore-not-found', '-o', 'name'])).trim() !==
    '';
  const paused = async () =>
    (await agent.json<{ deployments: { id: string; paused: string[] }[] }>('/status')).deployments.find(
      (d) => d.id === id,
    )?.paused ?? [];
  const pausedMetric = async () =>
    Number(/^mooring_paused_objects (\d+)$/m.exec(await agent.text('/metrics'))?.[1]);

  beforeAll(async () => {
    stack = await startStack();
    id = (await stack.client.createDeployment(deploymentBody('calm', 'registry.example/calm:1'))).id;
    agent = spawnAgent(stack.agentEnv());
    await waitForState(agent, id, 'Ready', 30_000);
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await stack?.close();
  });

  it('a paused object keeps its hand edit through resyncs; removing the annotation repairs it', async () => {
    await stack.kubectl(['annotate', 'deploy', 'calm-redis', '-n', NAMESPACE, `${PAUSE}=disabled`]);
    await stack.kubectl(['scale', 'deploy', 'calm-redis', '-n', NAMESPACE, '--replicas=3']);
    // Another object of the same deployment is still repaired meanwhile.
    await stack.kubectl(['scale', 'deploy', 'calm', '-n', NAMESPACE, '--replicas=4']);
    await waitFor('the unpaused Deployment restored', async () => (await replicas('calm')) === 1, 20_000);
    await waitResyncs(3);
    expect(await replicas('calm-redis')).toBe(3);
    expect(await paused()).toEqual([`Deployment/${NAMESPACE}/calm-redis`]);
    expect(await pausedMetric()).toBe(1);
    const events = await stack.kubectl(['get', 'events', '-n', NAMESPACE, '-o', 'json']);
    const reasons = (JSON.parse(events) as { items: { reason: string; message: string }[] }).items;
    expect(reasons.find((e) => e.reason === 'Paused')?.message).toContain(
      `Deployment/${NAMESPACE}/calm-redis`,
    );

    await stack.kubectl(['annotate', 'deploy', 'calm-redis', '-n', NAMESPACE, `${PAUSE}-`]);
    await waitFor('the hand edit repaired', async () => (await replicas('calm-redis')) === 1, 20_000);
    await waitFor('the pause gone from /status', async () => (await paused()).length === 0, 10_000);
    expect(await pausedMetric()).toBe(0);
  }, 90_000);

  it('the API server Deployment paused pauses the whole deployment: no apply, no recreate', async () => {
    await stack.kubectl(['annotate', 'deploy', 'calm', '-n', NAMESPACE, `${PAUSE}=disabled`]);
    await stack.kubectl(['scale', 'deploy', 'calm', '-n', NAMESPACE, '--replicas=4']);
    await stack.kubectl(['scale', 'deploy', 'calm-redis', '-n', NAMESPACE, '--replicas=2']);
    await stack.kubectl(['delete', 'svc', 'calm-redis', '-n', NAMESPACE, '--wait=false']);
    await waitResyncs(3);
    expect(await replicas('calm')).toBe(4);
    expect(await replicas('calm-redis')).toBe(2);
    expect(await exists('svc', 'calm-redis')).toBe(false);
    expect(await paused()).toContain(`Deployment/${NAMESPACE}/calm`);
    expect(await paused()).toContain(`Deployment/${NAMESPACE}/calm-redis`);

    await stack.kubectl(['annotate', 'deploy', 'calm', '-n', NAMESPACE, `${PAUSE}-`]);
    await waitFor('the deployment repaired', async () => (await replicas('calm')) === 1, 20_000);
    expect(await replicas('calm-redis')).toBe(1);
    expect(await exists('svc', 'calm-redis')).toBe(true);
    await waitForState(agent, id, 'Ready', 20_000);
  }, 90_000);
});
