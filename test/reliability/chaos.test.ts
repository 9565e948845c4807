/**
 * The chaos run, scaled to fit `npm test` (the full run, 200 deployments, is `chaos.soak.test.ts`
 * in `npm run soak`): 50 deployments over 2 namespaces; the sandbox API fails about 10% of
 * requests (500, 429 with Retry-After, 409 on apply), adds latency, drops connections and resets
 * watches; the control plane goes down once for 5 s; the agent is SIGKILLed twice and restarted;
 * 20% of the deployments change meanwhile. Then the cluster must equal the render of the final
 * deployments, object by object, with nothing missing, nothing extra and no DELETE of an object
 * a live deployment wants.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type ChaosOutcome, runChaos } from './lib/chaos-run.ts';
import { expectChaosSurvived, summary } from './lib/chaos-assertions.ts';

describe('chaos run (scaled: 50 deployments, 1 outage of 5 s, 2 SIGKILLs)', () => {
  let outcome: ChaosOutcome;

  beforeAll(async () => {
    outcome = await runChaos({
      seed: 20261122,
      deployments: 50,
      namespaces: ['chaos-a', 'chaos-b'],
      chaosMs: 25_000,
      outages: 1,
      outageMs: 5_000,
      kills: 2,
      changeFraction: 0.2,
      pollIntervalSeconds: 1,
      ...(process.env.CHAOS_AGENT_LOG ? { agentLogFile: process.env.CHAOS_AGENT_LOG } : {}),
      convergeTimeoutMs: 90_000,
    });
    console.log(`chaos (scaled): ${JSON.stringify(summary(outcome))}`);
  }, 170_000);

  it('converges to the render of the final deployments, object by object, after faults, outage and kills', () => {
    expectChaosSurvived(outcome, { kills: 2, outages: 1, changes: 10 });
  });

  it('never sends a DELETE for an object a live deployment wants, and none while the control plane is down', () => {
    expect(outcome.deletesOfDesired.map((r) => `${r.resource}/${r.namespace}/${r.name}`)).toEqual([]);
    expect(outcome.deletesDuringOutages.map((r) => `${r.resource}/${r.namespace}/${r.name}`)).toEqual([]);
  });
});
