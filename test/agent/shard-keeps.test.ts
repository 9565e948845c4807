import { describe, expect, it } from 'vitest';
import { ShardKeeps } from '../../src/agent/shard-keeps.ts';
import { shardOf } from '../../src/agent/shards.ts';

const ids = Array.from(
  { length: 30 },
  (_, i) => `7a1c${String(i).padStart(4, '0')}-0000-4000-8000-000000000000`,
);

describe('ShardKeeps', () => {
  it('keeps the held shards, tells the watch cache of each change and whether a shard was taken', () => {
    const told: boolean[] = [];
    const keeps = new ShardKeeps(3);
    keeps.watching({ reshard: (gained) => told.push(gained) });
    const also: number[][] = [];
    const onShards = keeps.alongside((held) => also.push(held));
    const now = keeps.now;
    onShards([0, 1]);
    const fixed = keeps.fixed();
    onShards([1]);
    onShards([1]);
    onShards([1, 2]);
    expect(told).toEqual([true, false, true]);
    expect(also).toEqual([[0, 1], [1], [1], [1, 2]]);
    // `now` follows the held shards; `fixed` stays as it was when made.
    expect(ids.filter((id) => now?.(id))).toEqual(ids.filter((id) => shardOf(id, 3) !== 0));
    expect(ids.filter((id) => fixed?.(id))).toEqual(ids.filter((id) => shardOf(id, 3) !== 2));
  });

  it('keeps everything (no rule) with one shard', () => {
    const keeps = new ShardKeeps(1);
    expect(keeps.now).toBeUndefined();
    expect(keeps.fixed()).toBeUndefined();
  });
});
