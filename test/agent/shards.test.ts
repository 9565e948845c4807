import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  extraShards,
  fairShare,
  memberLeaseName,
  shardLeaseName,
  shardMemoName,
  shardOf,
} from '../../src/agent/shards.ts';

describe('shardOf', () => {
  it('is in range and the same on every call, whatever the case of the id', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.integer({ min: 1, max: 256 }), (id, n) => {
        const s = shardOf(id, n);
        expect(Number.isInteger(s)).toBe(true);
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThan(n);
        expect(shardOf(id, n)).toBe(s);
        expect(shardOf(id.toUpperCase(), n)).toBe(s);
      }),
    );
  });

  it('spreads ids evenly: every shard within 20 % of its mean over 6,000 ids', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 12 }),
        fc.array(fc.uuid(), { minLength: 6000, maxLength: 6000 }),
        (n, ids) => {
          const counts = new Array<number>(n).fill(0);
          for (const id of new Set(ids)) counts[shardOf(id, n)]! += 1;
          const mean = new Set(ids).size / n;
          for (const c of counts) expect(Math.abs(c - mean)).toBeLessThan(mean * 0.2);
        },
      ),
      { numRuns: 10 },
    );
  });

  it('puts everything in shard 0 with one shard', () => {
    fc.assert(fc.property(fc.string(), (id) => shardOf(id, 1) === 0));
  });

  it('is a known value for a known id (the hash never changes across versions)', () => {
    // sha256 of the id begins b60f79ff. Fixed figures, so that a change of hash (which would move every deployment) is seen.
    const id = '3f1c8a52-6a43-4a51-9a0e-0c1f7f3f9d11';
    expect([shardOf(id, 6), shardOf(id, 7), shardOf(id, 256)]).toEqual([3, 6, 255]);
  });
});

describe('fairShare', () => {
  it('is ceil(shards / replicas) for 1, 2 and 3 replicas over 6 shards', () => {
    expect([1, 2, 3, 4].map((r) => fairShare(6, r))).toEqual([6, 3, 2, 2]);
  });

  it('covers every shard, and gives nobody more than one over the even split', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 256 }), fc.integer({ min: 1, max: 300 }), (n, r) => {
        const f = fairShare(n, r);
        expect(f * r).toBeGreaterThanOrEqual(n);
        expect(f).toBeLessThanOrEqual(Math.floor(n / r) + 1);
        expect(f).toBeGreaterThanOrEqual(1);
      }),
    );
  });

  it('counts no live replica as one (the replica itself)', () => {
    expect(fairShare(6, 0)).toBe(6);
  });
});

describe('extraShards', () => {
  it('gives up the highest-numbered shards beyond the fair share', () => {
    expect(extraShards([0, 5, 2, 3, 1, 4], 3)).toEqual([5, 4, 3]);
    expect(extraShards([1, 2], 3)).toEqual([]);
  });
});

describe('names', () => {
  it('keep the single Lease and memo names with one shard, and suffix the shard otherwise', () => {
    expect(shardLeaseName('mooring-leader', 0, 1)).toBe('mooring-leader');
    expect(shardLeaseName('mooring-leader', 4, 6)).toBe('mooring-leader-4');
    expect(shardMemoName('mooring-restart-memo', 0, 1)).toBe('mooring-restart-memo');
    expect(shardMemoName('mooring-restart-memo', 2, 6)).toBe('mooring-restart-memo-2');
    expect(memberLeaseName('mooring-leader', 1)).toBe('mooring-leader-member-1');
  });
});
