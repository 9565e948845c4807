/**
 * A revision whose status can still change is read again at every poll (src/agent/poller.ts):
 * the latest revision DEPLOYING runs, and once it turns DEPLOY_FAILED the deployment falls back
 * to its active revision. A revision in a final status is read once.
 */
import { describe, expect, it } from 'vitest';
import { type PollClient, Poller } from '../../src/agent/poller.ts';
import type { DeploymentRecord, RevisionRecord } from '../../src/contract/index.ts';
import { deploymentRecord, R_ACTIVE, R_LATEST, revisionRecord } from './revision-fixtures.ts';
import { silentLogger } from '../../src/log.ts';

const LISTENER = 'cccccccc-0000-4000-8000-000000000001';
const record = (): DeploymentRecord => deploymentRecord(LISTENER);
const revision = revisionRecord;

describe('revision status that changes', () => {
  it('latest DEPLOYING runs; once it is DEPLOY_FAILED the active revision runs (regression: kept running)', async () => {
    const revisions: Record<string, RevisionRecord> = {
      [R_ACTIVE]: revision(R_ACTIVE, 'DEPLOYED'),
      [R_LATEST]: revision(R_LATEST, 'DEPLOYING'),
    };
    const reads: string[] = [];
    const client: PollClient = {
      listAllDeployments: async () => ({ items: [record()], rejected: [], unsupported: [] }),
      getRevision: async (_d, id) => {
        reads.push(id);
        return structuredClone(revisions[id] as RevisionRecord);
      },
    };
    const poller = new Poller({
      client,
      listenerId: LISTENER,
      intervalMs: 10_000,
      logger: silentLogger(),
    });
    const first = await poller.pollOnce();
    expect(first.deployments[0]?.revision?.id).toBe(R_LATEST);
    revisions[R_LATEST] = revision(R_LATEST, 'DEPLOY_FAILED');
    const second = await poller.pollOnce();
    expect(second.deployments[0]?.revision?.id).toBe(R_ACTIVE);
    expect(second.deployments[0]?.hash).not.toBe(first.deployments[0]?.hash);
    // Both revisions are final now: an idle poll reads none.
    reads.length = 0;
    await poller.pollOnce();
    expect(reads).toEqual([]);
  });

  it('a revision in a final status is read once; one still moving is read at every poll', async () => {
    const revisions: Record<string, RevisionRecord> = {
      [R_ACTIVE]: revision(R_ACTIVE, 'DEPLOYED'),
      [R_LATEST]: revision(R_LATEST, 'BUILDING'),
    };
    const reads: string[] = [];
    const client: PollClient = {
      listAllDeployments: async () => ({ items: [record()], rejected: [], unsupported: [] }),
      getRevision: async (_d, id) => {
        reads.push(id);
        return structuredClone(revisions[id] as RevisionRecord);
      },
    };
    const poller = new Poller({
      client,
      listenerId: LISTENER,
      intervalMs: 10_000,
      logger: silentLogger(),
    });
    for (let i = 0; i < 3; i++) await poller.pollOnce();
    expect(reads).toEqual([R_LATEST, R_LATEST, R_LATEST]);
    revisions[R_LATEST] = revision(R_LATEST, 'DEPLOYED');
    reads.length = 0;
    for (let i = 0; i < 3; i++) await poller.pollOnce();
    expect(reads).toEqual([R_LATEST]);
  });
});
