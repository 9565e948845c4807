/**
 * The full chaos run (`npm run soak`): 200 deployments over 4 namespaces; the sandbox API fails
 * about 10% of requests (500, 429 with Retry-After, 409 on apply), adds latency, drops
 * connections and resets watches; the control plane goes down 3 times for 10 s; the agent is
 * SIGKILLed 5 times at seeded random points and restarted; 20% of the deployments (40) change
 * meanwhile. Then the cluster must equal the render of the final deployments, object by object.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectChaosSurvived, summary } from './lib/chaos-assertions.ts';
import { type ChaosOutcome, runChaos } from './lib/chaos-run.ts';

describe('chaos run (full: 200 deployments, 3 outages of 10 s, 5 SIGKILLs)', () => {
  let outcome: ChaosOutcome;

  beforeAll(async () => {
    outcome = await runChaos({
      seed: Number(process.env.CHAOS_SEED ?? 7),
      deployments: 200,
      namespaces: ['chaos-a', 'chaos-b', 'chaos-c', 'chaos-d'],
      chaosMs: 120_000,
      outages: 3,
      outageMs: 10_000,
      kills: 5,
      changeFraction: 0.2,
      pollIntervalSeconds: 1,
      ...(process.env.CHAOS_AGENT_LOG ? { agentLogFile: process.env.CHAOS_AGENT_LOG } : {}),
      convergeTimeoutMs: 480_000,
      log: (line) => console.log(`[chaos] ${line}`),
    });
    console.log(`chaos (full): ${JSON.stringify(summary(outcome))}`);
  }, 900_000);

  it('converges to the render of the final deployments, object by object, after faults, outages and kills', () => {
    expectChaosSurvived(outcome, { kills: 5, outages: 3, changes: 40 });
  });

  it('never sends a DELETE for an object a live deployment wants, and none while the control plane is down', () => {
    expect(outcome.deletesOfDesired.map((r) => `${r.resource}/${r.namespace}/${r.name}`)).toEqual([]);
    expect(outcome.deletesDuringOutages.map((r) => `${r.resource}/${r.namespace}/${r.name}`)).toEqual([]);
  });
});
