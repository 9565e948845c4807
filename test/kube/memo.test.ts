/** The apply memo's one writer (`ApplyMemo`): what remembers, forgets and adopts entries. */
import { describe, expect, it } from 'vitest';
import { ApplyMemo, isVerified, remember } from '../../src/kube/memo.ts';
import { flat } from '../../src/kube/object-version.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { heapHeldBy } from '../heap-held.ts';

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
    memo.adopt(
      new Map([
        ['Service/apps/a', { key: 'older', version: 'g1#y' }],
        ['Secret/apps/a', { key: 'older', version: 'g1#x' }],
      ]),
    );
    expect(memo.get('Service/apps/a')).toEqual({ key: 'newer', version: 'g2#z' });
    expect(memo.get('Secret/apps/a')).toEqual({ key: 'older', version: 'g1#x' });
  });

  it('moves a restart memo in, never copying it: the snapshot is emptied as its entries are taken', () => {
    const memo = new ApplyMemo();
    const taken = { key: 'k', version: 'g1#x' };
    const snapshot = new Map([
      ['Secret/apps/a', taken],
      ['Service/apps/a', { key: 'k', version: 'g1#y' }],
    ]);
    memo.adopt(snapshot);
    expect(snapshot.size).toBe(0);
    expect(memo.get('Secret/apps/a')).toBe(taken);
    expect(memo.size).toBe(2);
  });

  it('forgets an object being deleted', () => {
    const memo = new ApplyMemo();
    memo.remember('Service/apps/a', 'k1', 'g1#v');
    memo.forget('Service/apps/a');
    expect(memo.has('Service/apps/a')).toBe(false);
    expect([...memo]).toEqual([]);
  });

  it('keeps the live version it confirmed in place of its own equal copy (measured on the heap)', async () => {
    const objects = 20_000;
    const key = 'k'.repeat(64);
    // What the memo and the live entries hold of `objects` objects once every one was confirmed
    // (or not): the memo's own copies of the versions are made inside, as an apply's answers are.
    const held = (confirm: boolean) =>
      heapHeldBy(() => {
        const memo = new ApplyMemo();
        const liveVersions: string[] = [];
        for (let i = 0; i < objects; i++) {
          const version = `g1#${String(i).padStart(16, '0')}`;
          memo.remember(`Service/apps/s-${i}`, key, flat(version));
          liveVersions.push(flat(version));
        }
        if (confirm) {
          for (let i = 0; i < objects; i++) {
            const id = `Service/apps/s-${i}`;
            const verified = isVerified(
              { dryRun: false, verified: memo },
              id,
              key,
              live,
              () => liveVersions[i],
            );
            if (!verified) throw new Error(`${id} not verified`);
          }
        }
        return [memo, liveVersions];
      });
    await held(false);
    const apart = await held(false);
    const shared = await held(true);
    // Each copy of a 19-character version is at least 32 bytes.
    expect(apart - shared).toBeGreaterThan(objects * 28);
  });

  it('confirms only the key and version it holds, and asks the version only when the key matches', () => {
    const memo = new ApplyMemo();
    memo.remember('Service/apps/a', 'k1', 'g1#v');
    let asked = 0;
    const version = (v: string | undefined) => () => {
      asked += 1;
      return v;
    };
    expect(memo.holds('Service/apps/a', 'k2', version('g1#v'))).toBe(false);
    expect(asked).toBe(0);
    expect(memo.holds('Service/apps/a', 'k1', version('g2#v'))).toBe(false);
    expect(memo.holds('Service/apps/a', 'k1', version(undefined))).toBe(false);
    expect(memo.holds('Secret/apps/a', 'k1', version('g1#v'))).toBe(false);
    expect(memo.holds('Service/apps/a', 'k1', version('g1#v'))).toBe(true);
    expect(memo.get('Service/apps/a')).toEqual({ key: 'k1', version: 'g1#v' });
  });
});
