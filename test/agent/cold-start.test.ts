/**
 * The judge of each cold listing (`coldListingJudge`): the previous listing's passes are
 * forgotten, nothing is judged before the restart memo is in, and a revision a memo knew is read
 * only when its deployment is compared.
 */
import { describe, expect, it } from 'vitest';
import { ColdPasses, coldListingJudge } from '../../src/agent/cold-start.ts';
import type { DesiredDeployment } from '../../src/agent/poll-cycle.ts';
import type { DeploymentRecord, RevisionRecord } from '../../src/contract/index.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';

const D = 'd-1';
const live: KubeObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'apps', labels: { 'mooring.dev/deployment-id': D } },
};

describe('coldListingJudge', () => {
  it('forgets the last passes, waits for the memo, and reads a pending revision to render', async () => {
    const passes = new ColdPasses();
    passes.set('old', { key: 'k', objects: 1, claimPrefixes: [], namespace: 'apps' });
    const order: string[] = [];
    let memoIn: () => void = () => {};
    const desired: DesiredDeployment = {
      deployment: { id: D, status: 'READY' } as DeploymentRecord,
      revision: undefined,
      pendingRevision: 'r-7',
      hash: 'h',
    };
    const judge = coldListingJudge({
      passes,
      desiredOf: () => desired,
      loadRevision: async (deploymentId, revisionId) => {
        order.push(`load ${deploymentId} ${revisionId}`);
        return { id: revisionId } as RevisionRecord;
      },
      render: (_deployment, revision) => {
        order.push(`render ${revision?.id}`);
        return [live];
      },
      verify: () => {
        order.push('verify');
        return true;
      },
      listedVerified: () => false,
      beforeFirstPage: (p) =>
        new Promise<void>((resolve) => {
          memoIn = () => {
            order.push('memo in');
            expect(p).toBe(passes);
            resolve();
          };
        }),
    });
    expect(passes.take('old', 'k', 'apps')).toBeUndefined();
    const judging = judge([live]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(order).toEqual([]);
    memoIn();
    await judging;
    expect(order).toEqual(['memo in', `load ${D} r-7`, 'render r-7', 'verify']);
    expect(passes.take(D, 'h', 'apps')).toMatchObject({ key: 'h', objects: 1 });
  });
});
