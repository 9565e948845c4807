/**
 * No log line of the agent repeats a key: a child logger's bindings (listenerId, deploymentId)
 * and the same key in a call's object would both be written, and readers keep one or the other.
 * The agent runs through start, converging, resyncs, a repair and a pause.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentProcess } from '../support/agent-process.ts';
import { repeatedTopLevelKeys } from '../support/json-keys.ts';
import { waitFor } from '../support/wait.ts';
import { deploymentBody, NAMESPACE, spawnAgent, type Stack, startStack, waitForState } from './harness.ts';

describe('log lines', () => {
  let stack: Stack;
  let agent: AgentProcess;

  beforeAll(async () => {
    stack = await startStack();
    const id = (await stack.client.createDeployment(deploymentBody('keys', 'registry.example/keys:1'))).id;
    // Leader election on: its lines carry the identity the logger binds.
    agent = spawnAgent(stack.agentEnv({ MOORING_LEADER_ELECTION: 'true' }));
    await waitForState(agent, id, 'Ready', 30_000);
    await stack.kubectl(['scale', 'deploy', 'keys', '-n', NAMESPACE, '--replicas=3']);
    await stack.kubectl([
      'annotate',
      'deploy',
      'keys-redis',
      '-n',
      NAMESPACE,
      'mooring.dev/reconcile=disabled',
    ]);
    await waitFor('the repair', async () => agent.stdout().includes('drift at'), 20_000);
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await stack?.close();
  });

  it('the scanner finds a repeated key', () => {
    expect(repeatedTopLevelKeys('{"a":1,"b":{"a":2},"a":3}')).toEqual(['a']);
    expect(repeatedTopLevelKeys('{"a":"x\\",\\"a\\":1","b":[{"a":1}]}')).toEqual([]);
  });

  it('no line repeats a key', () => {
    const lines = agent
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.some((l) => l.includes('"msg":"became the leader"'))).toBe(true);
    const repeats = lines
      .map((l) => ({ msg: (JSON.parse(l) as { msg: string }).msg, keys: repeatedTopLevelKeys(l) }))
      .filter((r) => r.keys.length > 0);
    expect(repeats).toEqual([]);
  });
});

describe('what the start-up log claims', () => {
  it('never says the control plane was reached while it cannot be', async () => {
    const stack = await startStack();
    const agent = spawnAgent(stack.agentEnv({ MOORING_CONTROL_PLANE_URL: 'http://127.0.0.1:9' }));
    try {
      await waitFor(
        'a failed start-up check',
        () => agent.stdout().includes('start-up check failed'),
        30_000,
      );
      expect(agent.stdout()).toContain('control plane to be reached directly');
      expect(agent.stdout()).not.toMatch(/control plane reached/);
    } finally {
      await agent.stop();
      await stack.close();
    }
  }, 60_000);
});
