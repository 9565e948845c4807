import { describe, expect, it } from 'vitest';
import { HeldShards } from '../../src/agent/held-shards.ts';
import type { DesiredDeployment, Snapshot } from '../../src/agent/poll-cycle.ts';
import { shardOf } from '../../src/agent/shards.ts';
import { MooringError } from '../../src/errors.ts';

const ids = Array.from(
  { length: 40 },
  (_, i) => `6f2b${String(i).padStart(4, '0')}-0000-4000-8000-000000000000`,
);
const desired = (id: string) => ({ deployment: { id }, hash: id }) as unknown as DesiredDeployment;

describe('HeldShards: filter of deployments by shard', () => {
  it('keeps the deployments and refused records of held shards only', () => {
    const held = new HeldShards(4);
    held.gain(1);
    held.gain(3);
    const snapshot: Snapshot = {
      deployments: ids.map(desired),
      rejected: [
        { index: 0, id: ids[0], code: 'MOORING_E_RECORD_INVALID', reason: 'x' },
        { index: 1, code: 'MOORING_E_RECORD_INVALID', reason: 'no id' },
      ],
      atMs: 0,
    };
    const mine = held.filterSnapshot(snapshot);
    const expected = ids.filter((id) => [1, 3].includes(shardOf(id, 4)));
    expect(mine.deployments.map((d) => d.deployment.id)).toEqual(expected);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(ids.length);
    // A refused record without an id is kept: it may be anyone's, so it holds back pruning.
    expect(mine.rejected.map((r) => r.index)).toEqual(
      [1, ...([1, 3].includes(shardOf(ids[0]!, 4)) ? [0] : [])].sort(),
    );
  });

  it('filters a poll cycle as it streams, and passes it unchanged with one shard', async () => {
    const held = new HeldShards(4);
    held.gain(0);
    async function* stream() {
      yield* ids.map(desired);
    }
    const cycle = {
      desired: stream(),
      snapshot: Promise.resolve({ deployments: ids.map(desired), rejected: [], atMs: 0 }),
    };
    const seen: string[] = [];
    const mine = held.filterCycle(cycle);
    for await (const d of mine.desired) seen.push(d.deployment.id);
    expect(seen).toEqual(ids.filter((id) => shardOf(id, 4) === 0));
    expect((await mine.snapshot).deployments.map((d) => d.deployment.id)).toEqual(seen);
    const one = new HeldShards(1);
    one.gainAll();
    expect(one.filterCycle(cycle)).toBe(cycle);
  });

  it('cuts a reconcile when its shard is lost, not when another is', async () => {
    const held = new HeldShards(4);
    held.gainAll();
    const [first, second] = [
      ids.find((id) => shardOf(id, 4) === 2)!,
      ids.find((id) => shardOf(id, 4) === 1)!,
    ];
    const signals: AbortSignal[] = [];
    const run = (id: string) =>
      held.guard(
        id,
        new AbortController().signal,
        async (s) => {
          signals.push(s);
          return 'ran';
        },
        'skipped',
      );
    await run(first);
    await run(second);
    held.lose(2, new MooringError('MOORING_E_LEADERSHIP_LOST', 'shard 2 lost'));
    expect(signals[0]!.aborted).toBe(true);
    expect((signals[0]!.reason as MooringError).code).toBe('MOORING_E_LEADERSHIP_LOST');
    expect(signals[1]!.aborted).toBe(false);
    // A deployment of a shard no longer held is not run at all.
    expect(await run(first)).toBe('skipped');
  });

  it("lets a snapshot's orphan pass act only for shards held both when it was taken and now", async () => {
    const held = new HeldShards(4);
    held.gain(0);
    held.gain(2);
    async function* none() {}
    const cycle = {
      desired: none(),
      snapshot: Promise.resolve({ deployments: ids.map(desired), rejected: [], atMs: 0 }),
    };
    const mine = held.filterCycle(cycle);
    // Gained after the poll was scoped: not in its listing, so not pruned by its pass.
    held.gain(1);
    // Lost meanwhile: another replica's now.
    held.lose(2, new MooringError('MOORING_E_LEADERSHIP_LOST', 'lost'));
    const scope = held.scopeOf(await mine.snapshot)!;
    for (const id of ids) expect(scope(id), id).toBe(shardOf(id, 4) === 0);
    expect(new HeldShards(1).scopeOf(await cycle.snapshot)).toBeUndefined();
  });
});

describe('HeldShards: a listing scoped before a shard was gained', () => {
  it('leaves the shard gained after the scope was taken out of that listing’s cycle and orphan pass', async () => {
    const held = new HeldShards(4);
    held.gain(0);
    const inScope = held.scope!;
    held.gain(1);
    async function* stream() {
      yield* ids.map(desired);
    }
    const cycle = {
      desired: stream(),
      snapshot: Promise.resolve({ deployments: ids.map(desired), rejected: [], atMs: 0 }),
    };
    const mine = held.filterCycle(cycle);
    const seen: string[] = [];
    for await (const d of mine.desired) seen.push(d.deployment.id);
    expect(seen).toEqual(ids.filter((id) => shardOf(id, 4) === 0));
    expect(ids.some((id) => shardOf(id, 4) === 1)).toBe(true);
    const orphanScope = held.scopeOf(await mine.snapshot)!;
    for (const id of ids) {
      expect(orphanScope(id), id).toBe(shardOf(id, 4) === 0);
      expect(inScope(id), id).toBe(shardOf(id, 4) === 0);
    }
  });
});
