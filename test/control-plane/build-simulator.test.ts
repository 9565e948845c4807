/**
 * `--simulate-builds`: revisions of built sources move through the interface's statuses to
 * DEPLOYED within the given time (or stop at BUILD_FAILED at the failure rate); off by default.
 * The clock is injected, so each status is checked at an exact time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Deployment } from '../../src/contract/index.ts';
import {
  type Harness,
  harness,
  INTEGRATION_ID,
  LISTENER_ID,
  manualClock,
  dockerDeployment,
} from './helpers.ts';

const vcshost = (name: string) => ({
  name,
  source: 'vcshost' as const,
  source_config: { integration_id: INTEGRATION_ID, listener_id: LISTENER_ID },
  source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
});

describe('simulated builds', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function statusAt(d: Deployment, revisionId = d.latest_revision_id!) {
    return (await h!.client.getRevision(d.id, revisionId)).status;
  }

  it('moves a new revision through QUEUED, AWAITING_BUILD, BUILDING, AWAITING_DEPLOY, DEPLOYING to DEPLOYED within S seconds', async () => {
    const clock = manualClock();
    h = await harness({ server: { now: clock.now, simulateBuildsSeconds: 10 } });
    const d = await h.client.createDeployment(vcshost('built'));
    const seen: string[] = [];
    for (let t = 0; t <= 10_000; t += 1000) {
      seen.push(await statusAt(d));
      clock.advance(1000);
    }
    expect(seen).toEqual([
      'QUEUED',
      'QUEUED',
      'AWAITING_BUILD',
      'AWAITING_BUILD',
      'BUILDING',
      'BUILDING',
      'AWAITING_DEPLOY',
      'AWAITING_DEPLOY',
      'DEPLOYING',
      'DEPLOYING',
      'DEPLOYED',
    ]);
    // The deployed revision is the active one, as a deploy service would record it.
    const after = (await h.client.listAllDeployments({ deployment_ids: [d.id] })).items[0]!;
    expect(after.active_revision_id).toBe(d.latest_revision_id);
  });

  it('a later revision follows its own clock; the earlier one stays deployed and active until it is', async () => {
    const clock = manualClock();
    h = await harness({ server: { now: clock.now, simulateBuildsSeconds: 1 } });
    const d = await h.client.createDeployment(vcshost('rebuilt'));
    clock.advance(1000);
    expect(await statusAt(d)).toBe('DEPLOYED');
    const p = await h.client.patchDeployment(d.id, { source_revision_config: { repo_ref: 'dev' } });
    clock.advance(500);
    expect(await statusAt(p)).toBe('BUILDING');
    expect((await h.client.listAllDeployments({ deployment_ids: [d.id] })).items[0]!.active_revision_id).toBe(
      d.latest_revision_id,
    );
    clock.advance(500);
    expect(await statusAt(p)).toBe('DEPLOYED');
    expect((await h.client.listAllDeployments({ deployment_ids: [d.id] })).items[0]!.active_revision_id).toBe(
      p.latest_revision_id,
    );
  });

  it('fails a build at the failure rate: BUILD_FAILED when it would leave BUILDING, and the active revision stays', async () => {
    const clock = manualClock();
    const draws = [0.9, 0.1];
    h = await harness({
      server: {
        now: clock.now,
        simulateBuildsSeconds: 5,
        buildFailureRate: 0.5,
        random: () => draws.shift() ?? 0.9,
      },
    });
    const d = await h.client.createDeployment(vcshost('flaky'));
    expect(await statusAt(d)).toBe('QUEUED');
    clock.advance(5000);
    expect(await statusAt(d)).toBe('DEPLOYED');
    const p = await h.client.patchDeployment(d.id, { source_revision_config: { repo_ref: 'broken' } });
    clock.advance(2000);
    expect(await statusAt(p)).toBe('BUILDING');
    clock.advance(1000);
    expect(await statusAt(p)).toBe('BUILD_FAILED');
    clock.advance(10_000);
    expect(await statusAt(p)).toBe('BUILD_FAILED');
    const after = (await h.client.listAllDeployments({ deployment_ids: [d.id] })).items[0]!;
    expect(after.latest_revision_id).toBe(p.latest_revision_id);
    expect(after.active_revision_id).toBe(d.latest_revision_id);
  });

  it('is off by default: a built source stays QUEUED; external_docker revisions start DEPLOYED either way', async () => {
    const clock = manualClock();
    h = await harness({ server: { now: clock.now } });
    const d = await h.client.createDeployment(vcshost('not-built'));
    const docker = await h.client.createDeployment(dockerDeployment('docker'));
    clock.advance(3_600_000);
    expect(await statusAt(d)).toBe('QUEUED');
    expect(await statusAt(docker)).toBe('DEPLOYED');
  });

  it('refuses a duration that is not positive and a rate outside 0..1', async () => {
    await expect(harness({ server: { simulateBuildsSeconds: 0 } })).rejects.toThrow(/positive/);
    await expect(harness({ server: { simulateBuildsSeconds: 1, buildFailureRate: 1.5 } })).rejects.toThrow(
      /between 0 and 1/,
    );
  });
});
