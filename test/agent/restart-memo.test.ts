/**
 * The restart memo's snapshot (ADR 0010): what goes in, what a start takes back, and everything
 * it refuses to trust. The agent-level behaviour (saved on stop, taken over, drift repaired) is in
 * restart-memo-agent.test.ts.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { ApplyMemo } from '../../src/kube/memo.ts';
import type { ColdPass } from '../../src/agent/cold-start.ts';
import { ColdPasses } from '../../src/agent/cold-passes.ts';
import { RestartMemoKeeper } from '../../src/agent/restart-memo-keeper.ts';
import { openMemo, seal, sealMemo, snapshotEntries } from '../../src/agent/restart-memo.ts';
import { silentLogger } from '../../src/log.ts';

const SECRET = 'the-api-key';
const FINGERPRINT = 'code-and-settings';

/** A memo and passes for `n` deployments of three objects each, in namespace `apps`. */
function state(n: number): { memo: ApplyMemo; passes: [string, ColdPass][] } {
  const memo = new ApplyMemo();
  const passes: [string, ColdPass][] = [];
  for (let i = 0; i < n; i++) {
    const key = `key-${i}`;
    for (const kind of ['Deployment', 'Service', 'Secret']) {
      memo.remember(`${kind}/apps/app-${i}`, key, `g1#${kind}${i}`);
    }
    passes.push([`dep-${i}`, { key, objects: 3, claimPrefixes: [], namespace: 'apps' }]);
  }
  return { memo, passes };
}

const opts = { secret: SECRET, fingerprint: FINGERPRINT };

describe('the restart memo snapshot', () => {
  it('gives back the memo entries and passes it was made from, and shows none of them', () => {
    const { memo, passes } = state(2);
    const sealed = sealMemo(snapshotEntries(memo, passes), opts);
    expect(sealed?.deployments).toBe(2);
    const opened = openMemo(sealed!.data, opts);
    if (typeof opened === 'string') throw new Error(opened);
    expect(opened.memo).toEqual(new Map(memo));
    expect([...opened.passes]).toEqual(passes);
    // Input keys digest records that hold secret values: nothing of the content is readable.
    const text = sealed!.data.toString('latin1');
    for (const clue of ['key-0', 'app-0', 'apps', 'Deployment']) expect(text).not.toContain(clue);
  });

  it('leaves out a deployment whose objects the memo does not hold, all of them, in its namespace', () => {
    const { memo, passes } = state(3);
    memo.forget('Service/apps/app-0'); // one object fewer than its pass counts
    memo.remember('Secret/apps/app-1', 'another-key', 'g1#x'); // verified for another key
    memo.forget('Deployment/apps/app-2');
    memo.remember('Deployment/other/app-2', 'key-2', 'g1#y'); // in another namespace
    expect(snapshotEntries(memo, passes)).toEqual([]);
  });

  it('has the same digest for the same state, in whatever order it was gathered', () => {
    const { memo, passes } = state(4);
    const reversedMemo = new Map([...memo].reverse());
    const a = sealMemo(snapshotEntries(memo, passes), opts);
    const b = sealMemo(snapshotEntries(reversedMemo, [...passes].reverse()), opts);
    expect(b?.digest).toBe(a?.digest);
    memo.remember('Secret/apps/app-1', 'key-1', 'g2#moved');
    expect(sealMemo(snapshotEntries(memo, passes), opts)?.digest).not.toBe(a?.digest);
  });

  it('is not trusted with another key, another fingerprint, or a changed byte', () => {
    const { memo, passes } = state(2);
    const sealed = sealMemo(snapshotEntries(memo, passes), opts)!;
    expect(openMemo(sealed.data, { ...opts, secret: 'another-key' })).toBe('seal');
    expect(openMemo(sealed.data, { ...opts, fingerprint: 'another-build' })).toBe('fingerprint');
    for (const at of [0, 20, sealed.data.length - 1]) {
      const tampered = Buffer.from(sealed.data);
      tampered[at] = (tampered[at] ?? 0) ^ 1;
      expect(openMemo(tampered, opts)).toBe('seal');
    }
    expect(openMemo(Buffer.alloc(5), opts)).toBe('seal');
  });

  it('refuses what does not read as a snapshot, a gzip bomb included, even sealed with the right key', () => {
    expect(openMemo(seal(SECRET, gzipSync('not json')), opts)).toBe('format');
    const wrongShape = gzipSync(JSON.stringify({ v: 1, fingerprint: FINGERPRINT, deployments: [['x']] }));
    expect(openMemo(seal(SECRET, wrongShape), opts)).toBe('format');
    expect(openMemo(seal(SECRET, gzipSync(Buffer.alloc(80 * 1024 * 1024))), opts)).toBe('format');
  });

  it('parses its entries one at a time, never its whole document at once (the restart heap peak)', () => {
    const { memo, passes } = state(50);
    const entries = snapshotEntries(memo, passes);
    const sealed = sealMemo(entries, opts)!;
    const whole = JSON.stringify({ v: 2, fingerprint: FINGERPRINT, deployments: entries }).length;
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const opened = openMemo(sealed.data, opts);
      if (typeof opened === 'string') throw new Error(opened);
      expect(opened.memo).toEqual(new Map(memo));
      expect(parse.mock.calls.length).toBeGreaterThan(1);
      const longest = Math.max(...parse.mock.calls.map(([text]) => text.length));
      expect(longest).toBeLessThan(whole / 10);
    } finally {
      parse.mockRestore();
    }
  });

  it('refuses a snapshot with anything but entries among its deployments, or cut short', () => {
    const one = state(1);
    const [entry] = snapshotEntries(one.memo, one.passes);
    const sealedText = (text: string) => seal(SECRET, gzipSync(text));
    const doc = (deployments: string) =>
      `{"v":2,"fingerprint":"${FINGERPRINT}","deployments":[${deployments}]}`;
    const good = JSON.stringify(entry);
    expect(typeof openMemo(sealedText(doc(`${good}, ${good}`)), opts)).toBe('object');
    for (const bad of [`${good},5`, `"x",${good}`, `${good},{"a":1}`, `${good},["x"]`, `${good},null`]) {
      expect(openMemo(sealedText(doc(bad)), opts)).toBe('format');
    }
    expect(openMemo(sealedText(doc(good).slice(0, -3)), opts)).toBe('format');
    expect(openMemo(sealedText(`[${good}]`), opts)).toBe('format');
  });

  it('keeps the first deployments that fit the size limit, and nothing when not even an empty one does', () => {
    const { memo, passes } = state(400);
    const entries = snapshotEntries(memo, passes);
    const whole = sealMemo(entries, opts)!;
    const part = sealMemo(entries, { ...opts, maxBytes: Math.floor(whole.data.length / 2) });
    expect(part?.deployments).toBeGreaterThan(0);
    expect(part?.deployments).toBeLessThan(400);
    expect(part?.data.length).toBeLessThanOrEqual(Math.floor(whole.data.length / 2));
    expect(sealMemo(entries, { ...opts, maxBytes: 10 })).toBeUndefined();
    expect(sealMemo(entries, { ...opts, maxBytes: 120 })?.deployments).toBe(0);
  });
});

/** A store in memory that counts its writes (holding at most `maxBytes` when given). */
function memoryStore(maxBytes?: number): {
  read(): Promise<Buffer | undefined>;
  write(d: Buffer): Promise<void>;
  writes: number;
  maxBytes?: number;
} {
  let stored: Buffer | undefined;
  return {
    writes: 0,
    ...(maxBytes === undefined ? {} : { maxBytes }),
    async read() {
      return stored;
    },
    async write(data) {
      this.writes += 1;
      stored = data;
    },
  };
}

describe('the restart memo keeper', () => {
  const keeper = (store: ReturnType<typeof memoryStore>, memo: ApplyMemo, settings = {}) =>
    new RestartMemoKeeper({
      store,
      secret: SECRET,
      settings: () => settings,
      memo,
      logger: silentLogger(),
      code: async () => 'this-build',
    });

  it('saves, gives it back to a new process, and does not write an unchanged one again', async () => {
    const store = memoryStore();
    const { memo, passes } = state(2);
    await keeper(store, memo).save(passes);
    expect(store.writes).toBe(1);

    const restarted = new ApplyMemo();
    const cold = new ColdPasses();
    const next = keeper(store, restarted);
    await next.load(cold);
    expect(new Map(restarted)).toEqual(new Map(memo));
    expect(cold.take('dep-1', 'key-1', 'apps')).toEqual({ key: 'key-1', objects: 3, claimPrefixes: [] });
    await next.save(passes);
    expect(store.writes).toBe(1);
  });

  it("an upgrade's start takes nothing of another build's memo but the number of objects it held", async () => {
    const store = memoryStore();
    const { memo, passes } = state(2);
    await keeper(store, memo).save(passes);
    const restarted = new ApplyMemo();
    const cold = new ColdPasses();
    const upgraded = new RestartMemoKeeper({
      store,
      secret: SECRET,
      settings: () => ({}),
      memo: restarted,
      logger: silentLogger(),
      code: async () => 'the-next-build',
    });
    expect(await upgraded.load(cold)).toBe(6);
    expect(new Map(restarted)).toEqual(new Map());
    expect(cold.restored('dep-0')).toBe(false);
    expect(await upgraded.revisions()).toBeUndefined();
    // The same build's memo is taken over: no count of another build's.
    expect(await keeper(store, new ApplyMemo()).load(new ColdPasses())).toBe(0);
  });

  it('counts the deployments it gave back as restored, through a new cold listing, until their pass is taken', async () => {
    const store = memoryStore();
    const { memo, passes } = state(2);
    await keeper(store, memo).save(passes);
    const cold = new ColdPasses();
    await keeper(store, new ApplyMemo()).load(cold);
    expect(cold.restored('dep-0')).toBe(true);
    expect(cold.restored('dep-1')).toBe(true);
    expect(cold.restored('dep-2')).toBe(false);
    // A start's listing given up and listed again forgets the passes, not who the memo vouched for.
    cold.clear();
    expect(cold.restored('dep-1')).toBe(true);
    cold.take('dep-1', 'key-1', 'apps');
    expect(cold.restored('dep-1')).toBe(false);
    expect(cold.restored('dep-0')).toBe(true);
  });

  it('vouches for its deployments before they are taken over, once, and a listing that no longer names one forgets it', async () => {
    const store = memoryStore();
    const { memo, passes } = state(3);
    await keeper(store, memo).save(passes);
    const cold = new ColdPasses();
    const restarted = keeper(store, new ApplyMemo());
    await restarted.vouch(cold);
    expect(cold.restoring).toBe(3);
    expect(cold.restored('dep-2')).toBe(true);
    // Its first reconcile takes dep-0 (no pass yet: it is judged in full); asked again, the memo
    // does not vouch for it anew.
    cold.take('dep-0', 'key-0', 'apps');
    await restarted.vouch(cold);
    expect(cold.restored('dep-0')).toBe(false);
    // dep-2 was deleted while no agent ran: the first complete listing does not name it.
    cold.keepListed(new Set(['dep-0', 'dep-1']));
    expect(cold.restoring).toBe(1);
    // Taken over later, its passes stand for the deployments still vouched for, and only those.
    await restarted.load(cold);
    expect(cold.restoring).toBe(1);
    expect(cold.take('dep-1', 'key-1', 'apps')).toMatchObject({ key: 'key-1' });
    expect(cold.restoring).toBe(0);
    // A memo that cannot be trusted vouches for none.
    const untrusted = new ColdPasses();
    await new RestartMemoKeeper({
      store,
      secret: 'another-api-key',
      settings: () => ({}),
      memo: new ApplyMemo(),
      logger: silentLogger(),
    }).vouch(untrusted);
    expect(untrusted.restoring).toBe(0);
  });

  it('hands its revisions over once, keeping no second copy of them', async () => {
    const store = memoryStore();
    const { memo, passes } = state(2);
    const revision = { id: 'rev-1', status: 'READY', digest: 'd1' };
    await new RestartMemoKeeper({
      store,
      secret: SECRET,
      settings: () => ({}),
      memo,
      logger: silentLogger(),
      code: async () => 'this-build',
      revisionsOf: (id) => (id === 'dep-1' ? [revision] : []),
    }).save(passes);
    const next = keeper(store, new ApplyMemo());
    await next.load(new ColdPasses());
    expect([...((await next.revisions()) ?? [])]).toEqual([['rev-1', revision]]);
    expect((await next.revisions())?.size).toBe(0);
  });

  it("keeps within its store's size: past one ConfigMap only when the store holds more (in parts)", async () => {
    const { memo, passes } = state(400);
    const whole = sealMemo(snapshotEntries(memo, passes), { secret: SECRET, fingerprint: 'f' })!;
    const small = memoryStore(Math.floor(whole.data.length / 2));
    await keeper(small, memo).save(passes);
    const cold = new ColdPasses();
    await keeper(small, new ApplyMemo()).load(cold);
    const kept = passes.filter(([id, p]) => cold.take(id, p.key, 'apps')).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(400);
    const large = memoryStore(whole.data.length * 2);
    await keeper(large, memo).save(passes);
    const all = new ColdPasses();
    await keeper(large, new ApplyMemo()).load(all);
    expect(passes.filter(([id, p]) => all.take(id, p.key, 'apps'))).toHaveLength(400);
  });

  it('takes nothing over when the settings differ, and never replaces what the memo holds', async () => {
    const store = memoryStore();
    const { memo, passes } = state(1);
    await keeper(store, memo, { podSecurity: 'baseline' }).save(passes);

    const other = new ApplyMemo();
    await keeper(store, other, { podSecurity: 'restricted' }).load(new ColdPasses());
    expect(other.size).toBe(0);

    const held = new ApplyMemo();
    held.remember('Service/apps/app-0', 'newer', 'g2#z');
    await keeper(store, held, { podSecurity: 'baseline' }).load(new ColdPasses());
    expect(held.get('Service/apps/app-0')).toEqual({ key: 'newer', version: 'g2#z' });
    expect(held.get('Deployment/apps/app-0')).toEqual({ key: 'key-0', version: 'g1#Deployment0' });
  });

  it('a store that fails costs nothing but the memo', async () => {
    const failing = {
      writes: 0,
      read: async () => {
        throw new Error('forbidden');
      },
      write: async () => {
        throw new Error('forbidden');
      },
    };
    const memo = new ApplyMemo();
    const k = keeper(failing, memo);
    await expect(k.load(new ColdPasses())).resolves.toBe(0);
    await expect(k.save(state(1).passes)).resolves.toBeUndefined();
  });
});
