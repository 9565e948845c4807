import { describe, expect, it } from 'vitest';
import {
  LeaderElector,
  type LeaseClient,
  leaseTimings,
  LeaseConflict,
  type LeaseRecord,
} from '../../src/agent/leader-election.ts';
import { silentLogger } from '../../src/log.ts';
import { FakeClock } from './fake-clock.ts';

/** One Lease with resourceVersion semantics; each candidate gets a view that can be cut off. */
class FakeLeaseStore {
  record: LeaseRecord | undefined;
  rv = 0;
  writes: string[] = [];

  calls: Record<string, number> = {};

  client(name: string, cut: { off: boolean }): LeaseClient {
    const guard = () => {
      this.calls[name] = (this.calls[name] ?? 0) + 1;
      if (cut.off) throw new Error(`${name}: network down`);
    };
    return {
      get: async () => {
        guard();
        return this.record && { ...this.record };
      },
      create: async (r) => {
        guard();
        if (this.record) throw new LeaseConflict();
        this.record = { ...r, resourceVersion: String(++this.rv) };
        this.writes.push(`${name} create ${r.holderIdentity}`);
        return { ...this.record };
      },
      update: async (r) => {
        guard();
        if (!this.record || r.resourceVersion !== this.record.resourceVersion) throw new LeaseConflict();
        this.record = { ...r, resourceVersion: String(++this.rv) };
        this.writes.push(`${name} update ${r.holderIdentity ?? '(none)'}`);
        return { ...this.record };
      },
    };
  }
}

function candidate(store: FakeLeaseStore, clock: FakeClock, identity: string) {
  const cut = { off: false };
  const events: string[] = [];
  const controller = new AbortController();
  const elector = new LeaderElector({
    client: store.client(identity, cut),
    identity,
    clock,
    random: () => 0.5,
    logger: silentLogger(),
    onStartedLeading: () => events.push('started'),
    onStoppedLeading: () => events.push('stopped'),
  });
  const done = elector.run(controller.signal);
  return { elector, cut, events, controller, done };
}

describe('LeaderElector', () => {
  it('elects exactly one leader and keeps it while it renews', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const a = candidate(store, clock, 'a');
    await clock.advance(0);
    const b = candidate(store, clock, 'b');
    await clock.advance(60_000);
    expect(a.elector.isLeader).toBe(true);
    expect(b.elector.isLeader).toBe(false);
    expect(b.events).toEqual([]);
    expect(store.record?.holderIdentity).toBe('a');
    // b never wrote: it only reads while a's lease is fresh.
    expect(store.writes.filter((w) => w.startsWith('b'))).toEqual([]);
    a.controller.abort();
    b.controller.abort();
    await clock.advance(10_000);
    await Promise.all([a.done, b.done]);
  });

  it('a leader that cannot renew steps down after the renew deadline; the other takes over after the lease duration', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const a = candidate(store, clock, 'a');
    await clock.advance(0);
    const b = candidate(store, clock, 'b');
    await clock.advance(4_000);
    expect(a.elector.isLeader).toBe(true);
    const cutAt = clock.now();
    a.cut.off = true;
    // a steps down once 10 s pass without a renewal (before its 15 s lease could be taken).
    await clock.advance(8_000);
    expect(a.elector.isLeader).toBe(true);
    await clock.advance(4_000);
    expect(a.elector.isLeader).toBe(false);
    expect(a.events).toEqual(['started', 'stopped']);
    expect(b.elector.isLeader).toBe(false);
    // b takes over once the record it saw has been unchanged for the lease duration: it tries at
    // that moment, not a retry period later.
    let tookOverAt = 0;
    for (let i = 0; i < 100 && !b.elector.isLeader; i++) {
      await clock.advance(100);
      if (b.elector.isLeader) tookOverAt = clock.now();
    }
    expect(b.elector.isLeader).toBe(true);
    // a's last renewal was at cutAt; b's attempts fall every 2.2 s (no jitter here), so it saw
    // that renewal 400 ms later and takes over 15 s after that (checked on a 100 ms grid), not
    // at its next regular attempt (which would be 15.8 s after the cut).
    expect(tookOverAt - cutAt).toBeGreaterThanOrEqual(15_000);
    expect(tookOverAt - cutAt).toBeLessThanOrEqual(15_500);
    expect(store.record).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    a.controller.abort();
    b.controller.abort();
    await clock.advance(10_000);
  });

  it('a standby whose takeover attempts fail keeps its retry period (no tight loop)', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const a = candidate(store, clock, 'a');
    await clock.advance(0);
    const b = candidate(store, clock, 'b');
    await clock.advance(4_000);
    a.cut.off = true;
    b.cut.off = true;
    const before = store.calls.b ?? 0;
    await clock.advance(30_000);
    expect(b.elector.isLeader).toBe(false);
    // One attempt per retry period (2.2 s here), even once the expiry it knew of has passed.
    expect((store.calls.b ?? 0) - before).toBeLessThanOrEqual(15);
    a.controller.abort();
    b.controller.abort();
    await clock.advance(10_000);
  });

  it('releases the lease on shutdown so a standby takes over within a retry period', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const a = candidate(store, clock, 'a');
    await clock.advance(0);
    const b = candidate(store, clock, 'b');
    await clock.advance(5_000);
    a.controller.abort();
    await clock.advance(0);
    await a.done;
    expect(store.record?.holderIdentity).toBeUndefined();
    expect(a.events).toEqual(['started', 'stopped']);
    await clock.advance(2_500);
    expect(b.elector.isLeader).toBe(true);
    b.controller.abort();
    await clock.advance(10_000);
  });

  it('two candidates racing on a free lease: one wins, the other gets a conflict', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const a = candidate(store, clock, 'a');
    const b = candidate(store, clock, 'b');
    await clock.advance(30_000);
    expect([a.elector.isLeader, b.elector.isLeader].filter(Boolean)).toHaveLength(1);
    a.controller.abort();
    b.controller.abort();
    await clock.advance(10_000);
  });
});

describe('LeaderElector: a lease request that hangs', () => {
  it('is cut when its time is up, not left to land later (regression: only given up on)', async () => {
    const clock = new FakeClock();
    const signals: (AbortSignal | undefined)[] = [];
    const client: LeaseClient = {
      get: (signal) => {
        signals.push(signal);
        return new Promise(() => undefined);
      },
      create: () => new Promise(() => undefined),
      update: () => new Promise(() => undefined),
    };
    const controller = new AbortController();
    const elector = new LeaderElector({
      client,
      identity: 'a',
      clock,
      random: () => 0.5,
      logger: silentLogger(),
      onStartedLeading: () => undefined,
      onStoppedLeading: () => undefined,
    });
    const done = elector.run(controller.signal);
    await clock.advance(0);
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(false);
    await clock.advance(2_000);
    expect(signals[0]?.aborted).toBe(true);
    controller.abort();
    await clock.advance(5_000);
    await done;
  });
});

describe('LeaderElector on a slow API server', () => {
  it('a leader whose renewals answer slower than a retry period, within the renew deadline, keeps its lease', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const fast = store.client('a', { off: false });
    let delayMs = 0;
    const slow = <T>(answer: () => Promise<T>, signal?: AbortSignal) =>
      new Promise<T>((resolve, reject) => {
        const timer = clock.setTimeout(() => answer().then(resolve, reject), delayMs);
        signal?.addEventListener('abort', () => {
          clock.clearTimeout(timer);
          reject(signal.reason);
        });
      });
    const client: LeaseClient = {
      get: (signal) => slow(() => fast.get(signal), signal),
      create: (r, signal) => slow(() => fast.create(r, signal), signal),
      update: (r, signal) => slow(() => fast.update(r, signal), signal),
    };
    const events: string[] = [];
    const controller = new AbortController();
    const elector = new LeaderElector({
      client,
      identity: 'a',
      clock,
      random: () => 0.5,
      logger: silentLogger(),
      onStartedLeading: () => events.push('started'),
      onStoppedLeading: () => events.push('stopped'),
    });
    const done = elector.run(controller.signal);
    await clock.advance(1_000);
    expect(elector.isLeader).toBe(true);
    // Each request now takes 2.5 s: a retry period (2 s) would cut every one of them.
    delayMs = 2_500;
    await clock.advance(60_000);
    expect(events).toEqual(['started']);
    expect(elector.isLeader).toBe(true);
    controller.abort();
    delayMs = 0;
    await clock.advance(10_000);
    await done;
  });

  it('steps down at the renew deadline even while a renewal hangs past it (regression: up to a second late)', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const fast = store.client('a', { off: false });
    const timings = leaseTimings(3_000);
    let failFrom = Number.POSITIVE_INFINITY;
    let hangFrom = Number.POSITIVE_INFINITY;
    const answer = <T>(call: () => Promise<T>, signal?: AbortSignal) => {
      if (clock.now() >= hangFrom)
        return new Promise<T>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));
      if (clock.now() >= failFrom) return Promise.reject(new Error('500'));
      return call();
    };
    const client: LeaseClient = {
      get: (signal) => answer(() => fast.get(signal), signal),
      create: (r, signal) => answer(() => fast.create(r, signal), signal),
      update: (r, signal) => answer(() => fast.update(r, signal), signal),
    };
    let stoppedAt: number | undefined;
    const controller = new AbortController();
    const elector = new LeaderElector({
      client,
      identity: 'a',
      ...timings,
      clock,
      random: () => 0.5,
      logger: silentLogger(),
      onStartedLeading: () => undefined,
      onStoppedLeading: () => {
        stoppedAt = clock.now();
      },
    });
    const done = elector.run(controller.signal);
    await clock.advance(1_000);
    expect(elector.isLeader).toBe(true);
    const renewedAt = store.record?.renewTimeMs ?? 0;
    // Renewals fail at once, then (the last attempt before the deadline) hang.
    failFrom = clock.now();
    hangFrom = renewedAt + timings.renewDeadlineMs - timings.retryPeriodMs / 2;
    for (let t = 0; t < 5_000 && stoppedAt === undefined; t += 10) await clock.advance(10);
    expect(stoppedAt).toBeDefined();
    // Another replica may take the lease a lease duration after the last renewal: the holder must
    // have stopped writing by the deadline, not a request timeout later.
    expect(stoppedAt! - renewedAt).toBeLessThanOrEqual(timings.renewDeadlineMs + 10);
    controller.abort();
    await clock.advance(5_000);
    await done;
  });
});
