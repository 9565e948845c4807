/**
 * The chaos run with the listener sharded: three replicas with `--leader-election --shards 6
 * --lease-duration 3s`, the reliability suite's fault mix on every request (Lease renewals
 * included, so shards also change hands without a kill), one control-plane outage, and three
 * SIGKILLs of a seeded choice of replica, each restarted under a new identity. Then the cluster
 * must equal the render of the final deployments, object by object, and no object may have been
 * written by a replica that did not hold its shard's Lease at that moment: so never by two
 * replicas in one lease term (terms from the sandbox's own record of every Lease write).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectChaosSurvived, expectFenced, summary } from './lib/chaos-assertions.ts';
import { type ChaosOutcome, runChaos } from './lib/chaos-run.ts';

describe('chaos run, sharded (3 replicas, 6 shards, 30 deployments, 3 SIGKILLs)', () => {
  let outcome: ChaosOutcome;

  beforeAll(async () => {
    outcome = await runChaos({
      seed: 20261129,
      deployments: 30,
      namespaces: ['chaos-a', 'chaos-b'],
      chaosMs: 25_000,
      outages: 1,
      outageMs: 4_000,
      kills: 3,
      // More changes than the single-agent run's 20%: their applies keep the 409s certain in a
      // short run whose cold start may fall mostly before the faults on a loaded machine.
      changeFraction: 0.4,
      pollIntervalSeconds: 1,
      sharding: { replicas: 3, shards: 6, leaseDurationSeconds: 3 },
      ...(process.env.CHAOS_AGENT_LOG ? { agentLogFile: process.env.CHAOS_AGENT_LOG } : {}),
      convergeTimeoutMs: 60_000,
    });
    const f = outcome.fencing;
    console.log(
      `chaos (sharded): ${JSON.stringify({
        ...summary(outcome),
        logCodes: undefined,
        termsPerShard: f?.termsPerShard,
        writesChecked: f?.objects.checked,
        neverStored: f?.neverStored,
      })}`,
    );
  }, 170_000);

  it('converges to the render of the final deployments, object by object', () => {
    expectChaosSurvived(outcome, { kills: 3, outages: 1, changes: 12 });
  });

  it('every write came from the holder of its shard at that moment: no object written by two replicas in one term', () => {
    expectFenced(outcome, 30);
  });

  it('never sends a DELETE for an object a live deployment wants, and none while the control plane is down', () => {
    expect(outcome.deletesOfDesired.map((r) => `${r.resource}/${r.namespace}/${r.name}`)).toEqual([]);
    expect(outcome.deletesDuringOutages.map((r) => `${r.resource}/${r.namespace}/${r.name}`)).toEqual([]);
  });
});
