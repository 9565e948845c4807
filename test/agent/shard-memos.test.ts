import { describe, expect, it } from 'vitest';
import { ColdPasses } from '../../src/agent/cold-passes.ts';
import type { ColdPass } from '../../src/agent/cold-start.ts';
import type { RestartMemoStore } from '../../src/agent/restart-memo-keeper.ts';
import { ShardMemos } from '../../src/agent/shard-memos.ts';
import { shardOf } from '../../src/agent/shards.ts';
import { ApplyMemo } from '../../src/kube/memo.ts';
import { silentLogger } from '../../src/log.ts';

/** Deployments `dep-<i>` of one object each, all verified. */
function state(n: number) {
  const memo = new ApplyMemo();
  const passes: [string, ColdPass][] = [];
  for (let i = 0; i < n; i++) {
    memo.remember(`Deployment/apps/app-${i}`, `key-${i}`, `v${i}`);
    passes.push([`dep-${i}`, { key: `key-${i}`, objects: 1, claimPrefixes: [], namespace: 'apps' }]);
  }
  return { memo, passes };
}

/** ConfigMaps in memory, by name. */
function stores() {
  const data = new Map<string, Buffer>();
  const storeOf = (name: string): RestartMemoStore => ({
    read: async () => data.get(name),
    write: async (d) => {
      data.set(name, d);
    },
  });
  return { data, storeOf };
}

const memos = (shards: number, storeOf: (name: string) => RestartMemoStore, memo: ApplyMemo) =>
  new ShardMemos(shards, 'mooring-restart-memo', {
    storeOf,
    secret: 'k',
    settings: () => ({}),
    memo,
    logger: silentLogger(),
    code: async () => 'this-build',
  });

describe('ShardMemos: the restart memo per shard', () => {
  it("saves each held shard's deployments in its own ConfigMap, and a taker reads only the shard it holds", async () => {
    const { memo, passes } = state(30);
    const { data, storeOf } = stores();
    const a = memos(3, storeOf, memo);
    a.holding([0, 2]);
    await a.save(passes);
    expect([...data.keys()].sort()).toEqual(['mooring-restart-memo-0', 'mooring-restart-memo-2']);
    // Another replica takes shard 2 and reads its memo: its deployments, and none of another shard.
    const cold = new ColdPasses();
    const b = memos(3, storeOf, new ApplyMemo());
    b.holding([2]);
    await b.load(cold);
    for (const [id, pass] of passes) {
      const taken = cold.take(id, pass.key, 'apps');
      expect(taken !== undefined, id).toBe(shardOf(id, 3) === 2);
    }
  });

  it('saves one given-back shard alone when asked', async () => {
    const { memo, passes } = state(30);
    const { data, storeOf } = stores();
    const a = memos(3, storeOf, memo);
    a.holding([0]);
    await a.save(passes, [1]);
    expect([...data.keys()]).toEqual(['mooring-restart-memo-1']);
  });

  it('keeps the single old ConfigMap with one shard, whatever is held', async () => {
    const { memo, passes } = state(3);
    const { data, storeOf } = stores();
    await memos(1, storeOf, memo).save(passes);
    expect([...data.keys()]).toEqual(['mooring-restart-memo']);
  });
});
