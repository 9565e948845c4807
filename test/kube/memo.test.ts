/** The apply memo's one writer (`ApplyMemo`): what remembers, forgets and adopts entries. */
import { describe, expect, it } from 'vitest';
import { ApplyMemo, isVerified, remember } from '../../src/kube/memo.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';

const live = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'a', namespace: 'apps' } } as KubeObject;
const versionOf = () => 'g1#v';

describe('ApplyMemo', () => {
  it('remembers through an apply context, and a dry run or an unknown key enters nothing', () => {
    const memo = new ApplyMemo();
    remember({ dryRun: true, verified: memo }, 'Service/apps/a', 'k1', live, versionOf);
    remember({ dryRun: false, verified: memo }, 'Service/apps/a', undefined, live, versionOf);
    expect(memo.size).toBe(0);
    remember({ dryRun: false, verified: memo }, 'Service/apps/a', 'k1', live, versionOf);
    expect(isVerified({ dryRun: false, verified: memo }, 'Service/apps/a', 'k1', live, versionOf)).toBe(true);
    expect(isVerified({ dryRun: false, verified: memo }, 'Service/apps/a', 'k2', live, versionOf)).toBe(
      false,
    );
  });

  it('adopts a restart memo only for objects it holds nothing of: what it holds is newer', () => {
    const memo = new ApplyMemo();
    memo.remember('Service/apps/a', 'newer', 'g2#z');
    memo.adopt([
      ['Service/apps/a', { key: 'older', version: 'g1#y' }],
      ['Secret/apps/a', { key: 'older', version: 'g1#x' }],
    ]);
    expect(memo.get('Service/apps/a')).toEqual({ key: 'newer', version: 'g2#z' });
    expect(memo.get('Secret/apps/a')).toEqual({ key: 'older', version: 'g1#x' });
  });

  it('forgets an object being deleted', () => {
    const memo = new ApplyMemo();
    memo.remember('Service/apps/a', 'k1', 'g1#v');
    memo.forget('Service/apps/a');
    expect(memo.has('Service/apps/a')).toBe(false);
    expect([...memo]).toEqual([]);
  });
});
