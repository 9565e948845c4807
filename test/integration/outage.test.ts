/**
 * Acceptance: the control plane stopped for 60 s changes nothing in the cluster (zero deletes, no
 * writes at all), the agent stays live (/healthz 200 throughout), and it polls successfully again
 * within one interval of the control plane's return.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deploymentBody,
  deploymentState,
  spawnAgent,
  type Stack,
  startStack,
  waitForState,
} from './harness.ts';
import type { AgentProcess } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';

const OUTAGE_MS = 60_000;
const INTERVAL_S = 5;

describe('control plane outage', () => {
  let stack: Stack;
  let agent: AgentProcess;
  let id = '';

  beforeAll(async () => {
    stack = await startStack();
    id = (await stack.client.createDeployment(deploymentBody('outage', 'registry.example/outage:1'))).id;
    agent = spawnAgent(stack.agentEnv({ MOORING_POLL_INTERVAL: String(INTERVAL_S) }));
    await waitForState(agent, id, 'Ready', 40_000);
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await stack?.close();
  });

  it(
    'changes nothing, stays live, recovers within one interval',
    async () => {
      const writesBefore = stack.kube.requests().filter((r) => r.write && r.resource !== 'events').length;
      await stack.cp.stop();
      const stoppedAt = Date.now();
      const health: number[] = [];
      while (Date.now() - stoppedAt < OUTAGE_MS) {
        health.push((await fetch(`${await agent.opsUrl}/healthz`)).status);
        await new Promise((r) => setTimeout(r, 2000));
      }
      const writesDuring = stack.kube.requests().filter((r) => r.write && r.resource !== 'events');
      expect(writesDuring.length - writesBefore).toBe(0);
      expect(stack.kube.requests({ verb: 'delete' })).toEqual([]);
      expect(health.length).toBeGreaterThanOrEqual(25);
      expect(health.every((s) => s === 200)).toBe(true);
      const failures = await agent.text('/metrics');
      expect(failures).toMatch(/mooring_polls_total\{result="failure"\} [1-9]/);
      // The objects are still there and the deployment still Ready as far as the agent knows.
      expect((await deploymentState(agent, id))?.state).toBe('Ready');

      await stack.cp.start();
      const back = Date.now();
      const recoveredAt = await waitFor(
        'a successful poll after the return',
        async () => {
          const doc = await agent.json<{ lastPollAt: string | null }>('/status');
          return doc.lastPollAt !== null && Date.parse(doc.lastPollAt) >= back && Date.parse(doc.lastPollAt);
        },
        INTERVAL_S * 1000 * 3,
        100,
      );
      const recoveryMs = recoveredAt - back;
      process.stdout.write(
        `outage: recovered ${recoveryMs} ms after the control plane returned (interval ${INTERVAL_S} s)\n`,
      );
      // One interval, its +10% jitter, and the time one poll takes.
      expect(recoveryMs).toBeLessThanOrEqual(INTERVAL_S * 1100 + 1500);
      expect(stack.kube.requests({ verb: 'delete' })).toEqual([]);
    },
    OUTAGE_MS + 40_000,
  );
});
