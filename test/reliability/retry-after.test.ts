/**
 * A 20 s burst of 429s with `Retry-After` while the agent converges (the agent as a child
 * process): about a third of every request is turned away, as an API server's priority and
 * fairness would. Each turned-away request is sent again after the server's wait, so no reconcile
 * fails over a 429 and no cycle's listing is given up; the cluster ends in exactly the desired
 * state, and the waits are on /metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCluster, converged, describeReport, finalDeployments } from './lib/cluster-check.ts';
import { generateDeployments } from './lib/deployments.ts';
import { type Stack, spawnAgent, startStack } from './lib/stack.ts';
import { AgentLogs } from '../support/agent-logs.ts';
import type { AgentProcess } from '../support/agent-process.ts';
import { seededRandom } from '../support/prng.ts';
import { sleep, waitFor } from '../support/wait.ts';

const NS = 'polite-apps';
const BURST_MS = 20_000;

describe('a 20 s burst of 429 with Retry-After during convergence', () => {
  let stack: Stack;
  let agent: AgentProcess;
  const logs = new AgentLogs();
  let metrics = '';
  let refused = 0;

  beforeAll(async () => {
    stack = await startStack({ namespaces: [NS] });
    for (const b of generateDeployments({
      count: 12,
      namespaces: [NS],
      listenerId: stack.listenerId,
      random: seededRandom(27),
      prefix: 'polite',
    })) {
      await stack.client.createDeployment(b);
    }
    stack.kube.setFaults([{ status: 429, retryAfterSeconds: 1, probability: 0.3 }]);
    agent = spawnAgent(stack.agentEnv({ MOORING_LOG_LEVEL: 'info' }), logs);
    await sleep(BURST_MS);
    refused = stack.kube.requests().filter((r) => r.status === 429).length;
    stack.kube.clearFaults();
    const all = await finalDeployments(stack.client, stack.listenerId);
    await waitFor(
      'convergence after the burst',
      async () => converged(await checkCluster(stack.kube, [NS], stack.renderSettings(), all)),
      60_000,
      500,
    ).catch(async (err: Error) => {
      const report = await checkCluster(stack.kube, [NS], stack.renderSettings(), all);
      throw new Error(`${err.message}: ${describeReport(report)}`);
    });
    metrics = await agent.text('/metrics');
  }, 110_000);

  afterAll(async () => {
    await agent?.stop();
    await stack?.close();
  });

  it('ends in exactly the desired state, having been refused many times', () => {
    expect(refused).toBeGreaterThan(20);
  });

  it('no reconcile failed and no cycle listing was given up over a 429 (regression: each 429 failed its reconcile)', () => {
    const lines = logs.lines();
    const over429 = lines.filter(
      (l) =>
        (l.msg === 'reconcile failed; will retry' ||
          l.msg === "cycle inventory listing failed; this cycle's reconciles list for themselves") &&
        JSON.stringify(l).includes('429'),
    );
    expect(over429.map((l) => l.msg)).toEqual([]);
  });

  it('the waits are visible in the metrics', () => {
    const waited = /^mooring_kube_wait_seconds_total\{reason="retry_after"\} ([0-9.e+]+)$/m.exec(metrics);
    expect(Number(waited?.[1])).toBeGreaterThanOrEqual(10);
    expect(metrics).toMatch(/^mooring_kube_requests_total\{verb="[a-z]+",result="429"\} [1-9]/m);
  });
});
