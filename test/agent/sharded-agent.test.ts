/**
 * Agents sharing a listener over shard Leases (ADR 0015), with the fake clock and in-memory Leases:
 * each deployment is reconciled by the holder of its shard only, only shard 0's holder sends the
 * heartbeat, and a replica that cannot renew a shard cuts that shard's reconciles in flight and
 * starts none after.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, type AgentDeps } from '../../src/agent/agent.ts';
import type { PollClient } from '../../src/agent/poller.ts';
import type { ListenerClient } from '../../src/agent/registration.ts';
import { shardOf } from '../../src/agent/shards.ts';
import { parseAgentConfig } from '../../src/config.ts';
import type { DeploymentRecord, ListenerRecord } from '../../src/contract/index.ts';
import { silentLogger } from '../../src/log.ts';
import { createMetrics } from '../../src/ops/metrics.ts';
import type { ReconcileResult } from '../../src/reconcile/result.ts';
import { FakeClock } from './fake-clock.ts';
import { FakeLeases } from './fake-leases.ts';

const LISTENER = '11111111-1111-4111-8111-111111111111';
const T = '2026-01-01T00:00:00Z';
const SHARDS = 4;

const READY: ReconcileResult = {
  changeSet: { entries: [], dryRun: false },
  health: { state: 'Ready', reason: 'all ready', objects: [] } as unknown as ReconcileResult['health'],
};

function config(identity: string) {
  const r = parseAgentConfig({
    argv: ['--poll-interval', '10', '--shutdown-grace-period', '5', '--leader-election'],
    env: {
      MOORING_CONTROL_PLANE_URL: 'http://cp',
      MOORING_API_KEY: 'k',
      MOORING_LISTENER_ID: LISTENER,
      MOORING_NAMESPACES: 'apps',
      MOORING_SHARDS: String(SHARDS),
      MOORING_POD_NAME: identity,
    },
    hostname: () => 'h',
  });
  if (!r.ok || r.help) throw new Error('bad test config');
  return r.config;
}

function dep(i: number): DeploymentRecord {
  return {
    id: `0000000${i % 10}-0000-4000-8000-${String(i).padStart(12, '0')}`,
    name: `d${i}`,
    source: 'external_docker',
    source_config: { listener_id: LISTENER, listener_config: { k8s_namespace: 'apps' } },
    source_revision_config: { image_uri: 'img:1' },
    secrets: [],
    tenant_id: LISTENER,
    created_at: T,
    updated_at: T,
    status: 'READY',
    latest_revision_id: null,
    active_revision_id: null,
  } as DeploymentRecord;
}

/** What every replica did, in order: `<identity> <what> <deployment name>`. */
interface World {
  clock: FakeClock;
  leases: FakeLeases;
  deployments: DeploymentRecord[];
  log: string[];
  /** While set, reconciles wait until released (then succeed) or until their signal aborts. */
  hold: boolean;
  held: (() => void)[];
}

function replica(world: World, identity: string) {
  const cut = { off: false };
  const metrics = createMetrics({ version: '1.0.0' });
  const controlPlane: PollClient & ListenerClient = {
    listAllDeployments: async () => ({ items: world.deployments, rejected: [], unsupported: [] }),
    getRevision: async () => {
      throw new Error('no revisions in this test');
    },
    listListeners: async () => ({
      items: [
        {
          id: LISTENER,
          compute_type: 'k8s',
          compute_id: 'c',
          created_at: T,
          updated_at: T,
        } as ListenerRecord,
      ],
      rejected: [],
      unsupported: [],
    }),
    patchListener: async () => {
      world.log.push(`${identity} heartbeat`);
      return {} as ListenerRecord;
    },
  };
  const deps: AgentDeps = {
    config: config(identity),
    version: '1.0.0',
    logger: silentLogger(),
    metrics,
    controlPlane,
    readNamespace: async () => {},
    leaseClientFor: world.leases.clientsOf(identity, cut),
    reconcile: async (input, signal) => {
      const name = input.deployment.name;
      world.log.push(`${identity} reconcile ${name}`);
      if (world.hold)
        await new Promise<void>((resolve) => {
          signal.addEventListener('abort', () => resolve(), { once: true });
          world.held.push(resolve);
        });
      if (signal.aborted) {
        world.log.push(`${identity} cut ${name}`);
        throw signal.reason;
      }
      world.log.push(`${identity} wrote ${name}`);
      return READY;
    },
    collectOrphans: async () => ({}),
    clock: world.clock,
    random: () => 0.5,
  };
  const agent = new Agent(deps);
  const stop = new AbortController();
  return { identity, agent, cut, stop, metrics, running: agent.run(stop.signal) };
}

let replicas: ReturnType<typeof replica>[] = [];
let current: World | undefined;
afterEach(async () => {
  if (current) current.hold = false;
  for (const release of current?.held ?? []) release();
  for (const r of replicas) r.stop.abort();
  await current?.clock.advance(10_000);
  await Promise.all(replicas.map((r) => r.running));
  replicas = [];
});

function world(n: number): World {
  current = {
    clock: new FakeClock(),
    leases: new FakeLeases(),
    deployments: Array.from({ length: n }, (_, i) => dep(i)),
    log: [],
    hold: false,
    held: [],
  };
  return current;
}

const shardOfName = (w: World, name: string) =>
  shardOf(w.deployments.find((d) => d.name === name)!.id, SHARDS);

describe('sharded agents', () => {
  it('two replicas split the shards; each deployment is written by its shard holder alone, both write a share', async () => {
    const w = world(24);
    const a = replica(w, 'a');
    const b = replica(w, 'b');
    replicas.push(a, b);
    // Long enough for the membership count to settle, the extras to be given back and one more poll.
    await w.clock.advance(40_000);
    const heldA = a.agent.statusDocument().shards!.held;
    const heldB = b.agent.statusDocument().shards!.held;
    expect(heldA).toHaveLength(2);
    expect(heldB).toHaveLength(2);
    expect([...heldA, ...heldB].sort()).toEqual([0, 1, 2, 3]);
    // After the split (the last poll), every write came from the holder of the deployment's shard.
    w.log.length = 0;
    await w.clock.advance(30_000);
    const writes = w.log.filter((l) => l.includes(' wrote '));
    for (const d of w.deployments) {
      const writers = new Set(writes.filter((l) => l.endsWith(` ${d.name}`)).map((l) => l.split(' ')[0]));
      const holder = heldA.includes(shardOfName(w, d.name)) ? 'a' : 'b';
      expect([...writers], d.name).toEqual([holder]);
    }
    expect(new Set(writes.map((l) => l.split(' ')[0]))).toEqual(new Set(['a', 'b']));
    // Only shard 0's holder sends the listener heartbeat.
    const beaters = new Set(w.log.filter((l) => l.endsWith('heartbeat')).map((l) => l.split(' ')[0]));
    expect([...beaters]).toEqual([heldA.includes(0) ? 'a' : 'b']);
    // /status and the metrics say which shards each holds.
    expect(a.agent.statusDocument().shards).toEqual({ total: SHARDS, held: heldA });
    const text = await a.metrics.registry.metrics();
    expect(text).toContain('mooring_shards 4');
    expect(text).toContain('mooring_shards_held 2');
    for (const s of heldA) expect(text).toContain(`mooring_shard_held{shard="${s}"} 1`);
  });

  it('a replica that cannot renew its shards cuts their reconciles in flight and writes nothing after', async () => {
    const w = world(8);
    const a = replica(w, 'a');
    replicas.push(a);
    // One retry period (2 s) counting the replicas before the first take, then a round.
    await w.clock.advance(3_000);
    expect(a.agent.statusDocument().shards!.held).toEqual([0, 1, 2, 3]);
    // The next reconciles hang in flight; then a's Lease requests fail (a partition).
    w.hold = true;
    w.log.length = 0;
    await w.clock.advance(10_000);
    const inFlight = w.log.filter((l) => l.startsWith('a reconcile')).length;
    expect(inFlight).toBeGreaterThan(0);
    a.cut.off = true;
    const cutAt = w.clock.now();
    let lostAt: number | undefined;
    for (let t = 0; t < 20_000 && lostAt === undefined; t += 100) {
      await w.clock.advance(100);
      if (!a.agent.isLeader) lostAt = w.clock.now();
    }
    // Within the renew deadline (10 s of the 15 s lease): no one else could hold a shard yet.
    expect(lostAt! - cutAt).toBeLessThanOrEqual(10_000 + 2_000);
    expect(a.agent.statusDocument().shards!.held).toEqual([]);
    const after = w.log.length;
    // Every reconcile in flight was cut by the lost shard, none wrote.
    expect(w.log.filter((l) => l.startsWith('a cut'))).toHaveLength(inFlight);
    expect(w.log.filter((l) => l.startsWith('a wrote'))).toEqual([]);
    w.hold = false;
    for (const release of w.held) release();
    await w.clock.advance(30_000);
    // Nothing at all after the loss: no reconcile, no write, no heartbeat.
    expect(w.log.slice(after)).toEqual([]);
  });

  it('a shard whose Lease cannot be renewed has its reconciles cut; the other shards go on', async () => {
    const w = world(12);
    const a = replica(w, 'a');
    replicas.push(a);
    await w.clock.advance(1_000);
    w.hold = true;
    w.log.length = 0;
    await w.clock.advance(10_000);
    const inFlight = w.log.filter((l) => l.startsWith('a reconcile')).map((l) => l.split(' ')[2]!);
    const lost = shardOfName(w, inFlight[0]!);
    const ofLost = inFlight.filter((n) => shardOfName(w, n) === lost);
    const ofOthers = inFlight.filter((n) => shardOfName(w, n) !== lost);
    expect(ofOthers.length).toBeGreaterThan(0);
    w.leases.failing.add(`mooring-leader-${lost}`);
    await w.clock.advance(14_000);
    expect(a.agent.statusDocument().shards!.held).not.toContain(lost);
    expect(a.agent.isLeader).toBe(true);
    // Counted as cancelled, not as failures to retry: no Retrying state, no backoff.
    const text = await a.metrics.registry.metrics();
    expect(text).toContain(`mooring_reconciles_total{result="cancelled"} ${ofLost.length}`);
    const states = a.agent.statusDocument().deployments.filter((d) => ofLost.includes(d.name));
    expect(states.filter((d) => d.state === 'Retrying')).toEqual([]);
    // The lost shard's reconciles were cut; the others are still in flight, uncut.
    expect(
      w.log
        .filter((l) => l.startsWith('a cut'))
        .map((l) => l.split(' ')[2])
        .sort(),
    ).toEqual(ofLost.sort());
    const after = w.log.length;
    w.hold = false;
    for (const release of w.held) release();
    await w.clock.advance(30_000);
    // The rest wrote; nothing of the lost shard was started again.
    const later = w.log.slice(after);
    for (const n of ofOthers) expect(later).toContain(`a wrote ${n}`);
    expect(later.filter((l) => ofLost.some((n) => l.endsWith(` ${n}`)))).toEqual([]);
  });

  it('a shard given back with reconciles cut in flight is left to expire: the newcomer takes it a lease duration after the last renewal', async () => {
    const w = world(8);
    // Every reconcile hangs in flight: a write it sent may still land after it is cut.
    w.hold = true;
    const a = replica(w, 'a');
    replicas.push(a);
    await w.clock.advance(5_000);
    expect(a.agent.statusDocument().shards!.held).toEqual([0, 1, 2, 3]);
    const busy = new Set(
      w.log.filter((l) => l.startsWith('a reconcile')).map((l) => shardOfName(w, l.split(' ')[2]!)),
    );
    const lastRenewal = new Map<number, number>();
    const takenAt = new Map<number, number>();
    const renewals = (s: number) => w.leases.writes.filter((x) => x === `a mooring-leader-${s} a`).length;
    const seen = new Map<number, number>();
    const b = replica(w, 'b');
    replicas.push(b);
    for (let t = 0; t < 40_000; t += 100) {
      await w.clock.advance(100);
      for (let s = 0; s < SHARDS; s++) {
        const n = renewals(s);
        if (n !== seen.get(s)) {
          seen.set(s, n);
          lastRenewal.set(s, w.clock.now());
        }
        if (!takenAt.has(s) && w.leases.records.get(`mooring-leader-${s}`)?.holderIdentity === 'b')
          takenAt.set(s, w.clock.now());
      }
    }
    const given = [...takenAt.keys()];
    expect(given).toHaveLength(2);
    // A given shard whose reconciles were cut is left to expire; one with none running is cleared.
    expect(given.filter((s) => busy.has(s)).length).toBeGreaterThan(0);
    for (const s of given) {
      const clearedByA = w.leases.writes.includes(`a mooring-leader-${s} (none)`);
      expect(clearedByA, `shard ${s}`).toBe(!busy.has(s));
      if (busy.has(s)) expect(takenAt.get(s)! - lastRenewal.get(s)!).toBeGreaterThanOrEqual(15_000);
    }
    expect(w.log.filter((l) => l.startsWith('a cut')).length).toBeGreaterThan(0);
  });

  it('a shutdown clears the shard Leases when its reconciles finished, and leaves them to expire when one was cut', async () => {
    for (const hang of [false, true]) {
      const w = world(8);
      const a = replica(w, 'a');
      replicas.push(a);
      await w.clock.advance(5_000);
      expect(a.agent.statusDocument().shards!.held).toEqual([0, 1, 2, 3]);
      if (hang) {
        w.hold = true;
        await w.clock.advance(12_000);
        expect(w.held.length).toBeGreaterThan(0);
      }
      a.stop.abort();
      await w.clock.advance(10_000);
      await a.running;
      const cleared = [0, 1, 2, 3].filter((s) => w.leases.writes.includes(`a mooring-leader-${s} (none)`));
      expect(cleared, hang ? 'a reconcile was cut' : 'all finished').toEqual(hang ? [] : [0, 1, 2, 3]);
      // The membership slot fences no write: it is cleared either way.
      expect(w.leases.writes.some((x) => /^a mooring-leader-member-\d+ \(none\)$/.test(x))).toBe(true);
      w.hold = false;
      for (const release of w.held) release();
      replicas = [];
    }
  });
});
