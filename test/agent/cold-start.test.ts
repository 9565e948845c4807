/**
 * The judge of each cold listing (`coldListingJudge`): the previous listing's passes are
 * forgotten, nothing is judged before the restart memo is in, and a revision a memo knew is read
 * only when its deployment is compared.
 */
import { describe, expect, it } from 'vitest';
import { ColdPasses } from '../../src/agent/cold-passes.ts';
import { type ColdPass, coldListingJudge, coldStartJudge } from '../../src/agent/cold-start.ts';
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

describe('coldStartJudge on a listing that goes kind by kind', () => {
  const ids = Array.from({ length: 10 }, (_, i) => `d-${i}`);
  const kinds = ['Service', 'ConfigMap', 'Secret'];
  const objectOf = (id: string, kind: string): KubeObject => ({
    apiVersion: 'v1',
    kind,
    metadata: { name: id, namespace: 'apps', labels: { 'mooring.dev/deployment-id': id } },
  });
  const desiredOf = (id: string): DesiredDeployment => ({
    deployment: { id, status: 'READY' } as DeploymentRecord,
    revision: undefined,
    hash: `h-${id}`,
  });

  /** Judges one page per kind (every deployment's object of that kind); d-3's ConfigMap has drifted. */
  async function judgeByKind(heldLimit: number) {
    const renders: string[] = [];
    const held: number[] = [];
    const passes = new Map<string, ColdPass>();
    const judge = coldStartJudge({
      desiredOf,
      render: (d) => {
        renders.push(d.deployment.id);
        return kinds.map((kind) => objectOf(d.deployment.id, kind));
      },
      verify: (live) => !(live.kind === 'ConfigMap' && live.metadata.name === 'd-3'),
      onConverged: (id, pass) => passes.set(id, pass),
      heldLimit,
      onHeld: (n) => held.push(n),
    });
    for (const kind of kinds) await judge(ids.map((id) => objectOf(id, kind)));
    return { renders, held, passes };
  }

  it('holds no more than its limit of rendered objects past a page, rendering again what it let go', async () => {
    const { renders, held, passes } = await judgeByKind(5);
    // Past the first page 20 rendered objects waited for later kinds: all let go.
    expect(held).toEqual([0, 0, 0]);
    expect(renders).toHaveLength(30);
    expect(new Set(renders)).toEqual(new Set(ids));
    // Every deployment all of whose objects were converged is still handed on, and only those.
    expect([...passes.keys()].sort()).toEqual(ids.filter((id) => id !== 'd-3').sort());
    expect(passes.get('d-0')).toMatchObject({ key: 'h-d-0', objects: 3, namespace: 'apps' });
  });

  it('renders each deployment once while what it holds stays within its limit', async () => {
    const { renders, held, passes } = await judgeByKind(100);
    expect(held).toEqual([20, 10, 0]);
    expect(renders).toEqual(ids);
    expect(passes.size).toBe(9);
  });

  it('renders a deployment once for pages judged side by side (regression: once per page)', async () => {
    const renders: string[] = [];
    const judge = coldStartJudge({
      desiredOf,
      render: async (d) => {
        renders.push(d.deployment.id);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return kinds.map((kind) => objectOf(d.deployment.id, kind));
      },
      verify: () => true,
      heldLimit: 100,
    });
    await Promise.all(kinds.map((kind) => judge(ids.map((id) => objectOf(id, kind)))));
    expect(renders.sort()).toEqual([...ids].sort());
  });

  it('does not render again for an object compared before its list started over', async () => {
    const renders: string[] = [];
    const verified: string[] = [];
    const judge = coldStartJudge({
      desiredOf,
      render: (d) => {
        renders.push(d.deployment.id);
        return kinds.map((kind) => objectOf(d.deployment.id, kind));
      },
      verify: (live) => {
        verified.push(`${live.kind}/${live.metadata.name}`);
        return true;
      },
      heldLimit: 0,
    });
    await judge([objectOf('d-0', 'Service')]);
    await judge([objectOf('d-0', 'Service')]);
    expect(renders).toEqual(['d-0']);
    expect(verified).toEqual(['Service/d-0']);
  });
});
