/**
 * A revision whose status can still change is read again at every poll (src/agent/poller.ts):
 * the latest revision DEPLOYING runs, and once it turns DEPLOY_FAILED the deployment falls back
 * to its active revision. A revision in a final status is read once.
 */
import { describe, expect, it } from 'vitest';
import { type PollClient, Poller } from '../../src/agent/poller.ts';
import type { DeploymentRecord, RevisionRecord } from '../../src/contract/index.ts';
import { silentLogger } from '../../src/log.ts';

const LISTENER = 'cccccccc-0000-4000-8000-000000000001';
const D1 = 'aaaaaaaa-0000-4000-8000-000000000001';
const R_ACTIVE = 'bbbbbbbb-0000-4000-8000-000000000001';
const R_LATEST = 'bbbbbbbb-0000-4000-8000-000000000002';
const T = '2026-01-01T00:00:00Z';

const record = (): DeploymentRecord =>
  ({
    id: D1,
    name: 'web',
    source: 'external_docker',
    source_config: { listener_id: LISTENER, listener_config: { k8s_namespace: 'apps' } },
    source_revision_config: { image_uri: 'img:1' },
    secrets: [],
    created_at: T,
    updated_at: T,
    status: 'READY',
    latest_revision_id: R_LATEST,
    active_revision_id: R_ACTIVE,
  }) as unknown as DeploymentRecord;

const revision = (id: string, status: string): RevisionRecord =>
  ({
    id,
    created_at: T,
    updated_at: T,
    status,
    source: 'external_docker',
    source_revision_config: { image_uri: `img:${id}` },
  }) as unknown as RevisionRecord;

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
