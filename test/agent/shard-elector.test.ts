import { afterEach, describe, expect, it } from 'vitest';
import { ShardElector } from '../../src/agent/shard-elector.ts';
import { createLogger, type Logger, silentLogger } from '../../src/log.ts';
import { FakeClock } from './fake-clock.ts';
import { FakeLeases } from './fake-leases.ts';

const LEASE_MS = 15_000;

interface Replica {
  identity: string;
  elector: ShardElector;
  cut: { off: boolean };
  events: string[];
  stop: AbortController;
  done: Promise<void>;
}

function replica(
  leases: FakeLeases,
  clock: FakeClock,
  identity: string,
  shards = 6,
  logger: Logger = silentLogger(),
  quiet: (shard: number) => boolean = () => true,
): Replica {
  const cut = { off: false };
  const events: string[] = [];
  const stop = new AbortController();
  const elector = new ShardElector({
    shards,
    leaseName: 'mooring-leader',
    clientFor: leases.clientsOf(identity, cut),
    identity,
    leaseDurationMs: LEASE_MS,
    clock,
    random: () => 0.5,
    logger,
    onGained: (s) => events.push(`gained ${s}`),
    onLost: (s) => events.push(`lost ${s}`),
    beforeRelease: async (s) => {
      events.push(`releasing ${s}`);
      return quiet(s);
    },
  });
  return { identity, elector, cut, events, stop, done: elector.run(stop.signal) };
}

let running: Replica[] = [];
let clockInUse: FakeClock | undefined;
afterEach(async () => {
  for (const r of running) r.stop.abort();
  await clockInUse?.advance(5_000);
  running = [];
});

function start(leases: FakeLeases, clock: FakeClock, ...ids: string[]): Replica[] {
  clockInUse = clock;
  const rs = ids.map((id) => replica(leases, clock, id));
  running.push(...rs);
  return rs;
}

/** Each shard's holder, by the Leases themselves. */
function shardHolders(leases: FakeLeases): (string | undefined)[] {
  return Array.from({ length: 6 }, (_, i) => leases.records.get(`mooring-leader-${i}`)?.holderIdentity);
}

describe('ShardElector: fair share over 6 shards', () => {
  it('one replica holds all 6', async () => {
    const clock = new FakeClock();
    const leases = new FakeLeases();
    const [a] = start(leases, clock, 'a');
    await clock.advance(10_000);
    expect(a!.elector.held()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(shardHolders(leases)).toEqual(['a', 'a', 'a', 'a', 'a', 'a']);
  });

  it('two replicas hold 3 each, three replicas 2 each; every shard has exactly one holder', async () => {
    for (const ids of [
      ['a', 'b'],
      ['a', 'b', 'c'],
    ]) {
      const clock = new FakeClock();
      const leases = new FakeLeases();
      const rs = start(leases, clock, ...ids);
      await clock.advance(60_000);
      const share = 6 / ids.length;
      for (const r of rs) expect(r.elector.held()).toHaveLength(share);
      const all = rs.flatMap((r) => r.elector.held()).sort();
      expect(all).toEqual([0, 1, 2, 3, 4, 5]);
      expect(shardHolders(leases).every((h) => h !== undefined)).toBe(true);
      for (const r of rs) r.stop.abort();
      await clock.advance(5_000);
    }
    running = [];
  });
});

describe('ShardElector: replicas started together', () => {
  it('no replica takes more than its fair share when the others start within one retry period of it', async () => {
    const clock = new FakeClock();
    const leases = new FakeLeases();
    const rs = start(leases, clock, 'a');
    const most = new Map<string, number>();
    const watch = () => {
      for (const r of rs) most.set(r.identity, Math.max(most.get(r.identity) ?? 0, r.elector.held().length));
    };
    for (const next of ['b', 'c']) {
      for (let t = 0; t < 600; t += 100) {
        await clock.advance(100);
        watch();
      }
      rs.push(...start(leases, clock, next));
    }
    for (let t = 0; t < 30_000; t += 100) {
      await clock.advance(100);
      watch();
    }
    expect([...most.values()]).toEqual([2, 2, 2]);
    expect(rs.flatMap((r) => r.elector.held()).sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe('ShardElector: a replica joins', () => {
  it('the holder of all gives back the extras (work stopped first), and the newcomer takes them', async () => {
    const clock = new FakeClock();
    const leases = new FakeLeases();
    const [a] = start(leases, clock, 'a');
    await clock.advance(10_000);
    expect(a!.elector.held()).toHaveLength(6);
    const [b] = start(leases, clock, 'b');
    await clock.advance(20_000);
    expect(a!.elector.held()).toEqual([0, 1, 2]);
    expect(b!.elector.held()).toEqual([3, 4, 5]);
    // a stopped its work on each shard before its Lease was cleared, and never took it back.
    for (const s of [3, 4, 5]) {
      expect(a!.events.indexOf(`releasing ${s}`)).toBeLessThan(a!.events.indexOf(`lost ${s}`));
      expect(a!.events.filter((e) => e === `gained ${s}`)).toHaveLength(1);
    }
    // Nobody else wrote a shard Lease while a still held it: b's takes came after a's release.
    for (const s of [3, 4, 5]) {
      const writes = leases.writes.filter((w) => w.includes(`mooring-leader-${s} `));
      const released = writes.indexOf(`a mooring-leader-${s} (none)`);
      const taken = writes.indexOf(`b mooring-leader-${s} b`);
      expect(released).toBeGreaterThanOrEqual(0);
      expect(taken).toBeGreaterThan(released);
    }
  });
});

describe('ShardElector: a shard given back with work cut in flight', () => {
  it('is left to expire, not cleared: the newcomer takes it a lease duration after the last renewal, and it is not taken back', async () => {
    const clock = new FakeClock();
    const leases = new FakeLeases();
    clockInUse = clock;
    // Shard 4's work was cut in flight (a write may still land); the others' was not.
    const a = replica(leases, clock, 'a', 6, silentLogger(), (s) => s !== 4);
    running.push(a);
    await clock.advance(10_000);
    expect(a.elector.held()).toHaveLength(6);
    start(leases, clock, 'b');
    const renewals = () => leases.writes.filter((w) => w === 'a mooring-leader-4 a').length;
    let lastRenewalAt = 0;
    let renewed = renewals();
    let takenAt: number | undefined;
    for (let t = 0; t < 40_000; t += 100) {
      await clock.advance(100);
      if (renewals() > renewed) [renewed, lastRenewalAt] = [renewals(), clock.now()];
      if (takenAt === undefined && leases.records.get('mooring-leader-4')?.holderIdentity === 'b')
        takenAt = clock.now();
    }
    expect(a.elector.held()).toEqual([0, 1, 2]);
    expect(a.events).toContain('releasing 4');
    // Shards 3 and 5 were cleared for b at once; shard 4 never was, and a never renewed it again.
    expect(leases.writes).toContain('a mooring-leader-3 (none)');
    expect(leases.writes).toContain('a mooring-leader-5 (none)');
    expect(leases.writes).not.toContain('a mooring-leader-4 (none)');
    expect(a.events.filter((e) => e === 'gained 4')).toHaveLength(1);
    expect(takenAt).toBeDefined();
    expect(takenAt! - lastRenewalAt).toBeGreaterThanOrEqual(LEASE_MS);
  });
});

describe('ShardElector: the reason logged for a shard given back', () => {
  it('says given back, not released on shutdown, for a shard a joining replica takes', async () => {
    const clock = new FakeClock();
    const leases = new FakeLeases();
    const lines: Array<{ lease?: string; reason?: string; msg?: string }> = [];
    const logger = createLogger({
      level: 'info',
      destination: { write: (l: string) => lines.push(JSON.parse(l)) },
    });
    clockInUse = clock;
    const a = replica(leases, clock, 'a', 6, logger);
    running.push(a);
    await clock.advance(10_000);
    expect(a.elector.held()).toHaveLength(6);
    start(leases, clock, 'b');
    await clock.advance(20_000);
    expect(a.elector.held()).toEqual([0, 1, 2]);
    const stopped = lines.filter((l) => l.msg === 'stopped leading');
    expect(stopped.map((l) => [l.lease, l.reason]).sort()).toEqual(
      [3, 4, 5].map((s) => [`mooring-leader-${s}`, 'given back: above the fair share']),
    );
  });
});

describe('ShardElector: a holder stops renewing', () => {
  it('it drops its shards within the renew deadline; the other takes them after the lease duration, never both at once', async () => {
    const clock = new FakeClock();
    const leases = new FakeLeases();
    const [a, b] = start(leases, clock, 'a', 'b');
    await clock.advance(60_000);
    expect(a!.elector.held()).toHaveLength(3);
    const aShards = a!.elector.held();
    const cutAt = clock.now();
    const lostAt = new Map<number, number>();
    const gainedAt = new Map<number, number>();
    a!.cut.off = true;
    for (let t = 0; t < 40_000; t += 100) {
      await clock.advance(100);
      for (const s of aShards) {
        if (!a!.elector.held().includes(s) && !lostAt.has(s)) lostAt.set(s, clock.now());
        if (b!.elector.held().includes(s) && !gainedAt.has(s)) gainedAt.set(s, clock.now());
      }
    }
    expect(b!.elector.held()).toEqual([0, 1, 2, 3, 4, 5]);
    for (const s of aShards) {
      // a stopped writing before its lease could expire (renew deadline 10 s of 15 s)...
      expect(lostAt.get(s)! - cutAt).toBeLessThanOrEqual(LEASE_MS);
      // ...and b took the shard only after that, within a lease duration and two retry periods.
      expect(gainedAt.get(s)!).toBeGreaterThan(lostAt.get(s)!);
      expect(gainedAt.get(s)! - cutAt).toBeLessThanOrEqual(LEASE_MS + 2 * 2_000 + 500);
    }
  });
});

describe('ShardElector: one shard', () => {
  it('campaigns for the single old Lease name alone, with no membership slots', async () => {
    const clock = new FakeClock();
    const leases = new FakeLeases();
    clockInUse = clock;
    const a = replica(leases, clock, 'a', 1);
    const b = replica(leases, clock, 'b', 1);
    running.push(a, b);
    await clock.advance(10_000);
    expect([...leases.records.keys()]).toEqual(['mooring-leader']);
    expect([a.elector.held(), b.elector.held()]).toEqual([[0], []]);
  });
});

describe('ShardElector: replicas of another shard count', () => {
  it('take no shard while the replicas of the count before hold the Lease name, then all of them once those are gone', async () => {
    const clock = new FakeClock();
    const leases = new FakeLeases();
    clockInUse = clock;
    const a = replica(leases, clock, 'a', 6);
    const b = replica(leases, clock, 'b', 6);
    running.push(a, b);
    await clock.advance(30_000);
    expect(leases.records.get('mooring-leader')?.holderIdentity).toBe('mooring-shards-6');
    // A replica with 4 shards joins (a change of --shards rolled out while the old ones run).
    const c = replica(leases, clock, 'c', 4);
    running.push(c);
    await clock.advance(30_000);
    expect(c.elector.held()).toEqual([]);
    expect([...a.elector.held(), ...b.elector.held()].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    // Both old replicas stop: c takes the lock once it expired, then every one of its 4 shards.
    a.stop.abort();
    b.stop.abort();
    await clock.advance(LEASE_MS + 10_000);
    expect(leases.records.get('mooring-leader')?.holderIdentity).toBe('mooring-shards-4');
    expect(c.elector.held()).toEqual([0, 1, 2, 3]);
  });

  it('a single leader of old holding the Lease keeps sharded replicas off, and they keep it off', async () => {
    const clock = new FakeClock();
    const leases = new FakeLeases();
    clockInUse = clock;
    const old = replica(leases, clock, 'old', 1);
    running.push(old);
    await clock.advance(5_000);
    expect(old.elector.held()).toEqual([0]);
    const sharded = replica(leases, clock, 's', 6);
    running.push(sharded);
    await clock.advance(30_000);
    expect(sharded.elector.held()).toEqual([]);
    expect(old.elector.held()).toEqual([0]);
    old.stop.abort();
    await clock.advance(10_000);
    expect(sharded.elector.held()).toEqual([0, 1, 2, 3, 4, 5]);
    // A new single leader now finds the Lease held by the sharded replicas' count: it waits.
    const again = replica(leases, clock, 'again', 1);
    running.push(again);
    await clock.advance(30_000);
    expect(again.elector.held()).toEqual([]);
  });
});

describe('ShardElector on a slow API server', () => {
  it('keeps its shards when every Lease request takes 2.5 s: renewals do not wait for the count', async () => {
    const clock = new FakeClock();
    const leases = new FakeLeases();
    clockInUse = clock;
    let delayMs = 0;
    const slow = <T>(answer: () => Promise<T>, signal?: AbortSignal) =>
      new Promise<T>((resolve, reject) => {
        const timer = clock.setTimeout(() => answer().then(resolve, reject), delayMs);
        signal?.addEventListener('abort', () => {
          clock.clearTimeout(timer);
          reject(signal.reason);
        });
      });
    const fast = leases.clientsOf('a', { off: false });
    const events: string[] = [];
    const stop = new AbortController();
    const elector = new ShardElector({
      shards: 6,
      leaseName: 'mooring-leader',
      clientFor: (name) => {
        const c = fast(name);
        return {
          get: (signal) => slow(() => c.get(signal), signal),
          create: (r, signal) => slow(() => c.create(r, signal), signal),
          update: (r, signal) => slow(() => c.update(r, signal), signal),
        };
      },
      identity: 'a',
      leaseDurationMs: LEASE_MS,
      clock,
      random: () => 0.5,
      logger: silentLogger(),
      onGained: (s) => events.push(`gained ${s}`),
      onLost: (s) => events.push(`lost ${s}`),
      beforeRelease: async () => true,
    });
    const done = elector.run(stop.signal);
    await clock.advance(10_000);
    expect(elector.held()).toEqual([0, 1, 2, 3, 4, 5]);
    delayMs = 2_500;
    await clock.advance(60_000);
    expect(events.filter((e) => e.startsWith('lost'))).toEqual([]);
    expect(elector.held()).toEqual([0, 1, 2, 3, 4, 5]);
    stop.abort();
    delayMs = 0;
    await clock.advance(5_000);
    await done;
  });
});

describe('ShardElector: a slot taken twice', () => {
  it('gives back a second slot found held in its own name (a take that timed out but landed)', async () => {
    const clock = new FakeClock();
    const leases = new FakeLeases();
    leases.records.set('mooring-leader-member-3', {
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTimeMs: 0,
      renewTimeMs: 0,
      leaseTransitions: 0,
      resourceVersion: '900',
    });
    const [a] = start(leases, clock, 'a');
    await clock.advance(10_000);
    const slots = [...leases.records].filter(
      ([name, r]) => name.includes('-member-') && r.holderIdentity === 'a',
    );
    expect(slots).toHaveLength(1);
    expect(a!.elector.held()).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
