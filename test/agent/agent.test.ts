import { describe, expect, it } from 'vitest';
import { Agent, type AgentDeps } from '../../src/agent/agent.ts';
import type { LeaseClient, LeaseRecord } from '../../src/agent/leader-election.ts';
import { MemoryBudget } from '../../src/agent/memory-budget.ts';
import type { PollClient } from '../../src/agent/poller.ts';
import type { ListenerClient } from '../../src/agent/registration.ts';
import { parseAgentConfig } from '../../src/config.ts';
import type { DeploymentRecord, ListenerRecord } from '../../src/contract/index.ts';
import { MooringError, TerminalError } from '../../src/errors.ts';
import { silentLogger } from '../../src/log.ts';
import { createMetrics } from '../../src/ops/metrics.ts';
import type { ReconcileResult } from '../../src/reconcile/result.ts';
import { FakeClock, flush } from './fake-clock.ts';

const LISTENER = '11111111-1111-4111-8111-111111111111';
const T = '2026-01-01T00:00:00Z';

function config(extra: string[] = []) {
  const r = parseAgentConfig({
    argv: ['--poll-interval', '10', '--shutdown-grace-period', '5', ...extra],
    env: {
      MOORING_CONTROL_PLANE_URL: 'http://cp',
      MOORING_API_KEY: 'k',
      MOORING_LISTENER_ID: LISTENER,
      MOORING_NAMESPACES: 'apps',
    },
    hostname: () => 'h',
  });
  if (!r.ok || r.help) throw new Error('bad test config');
  return r.config;
}

function dep(id: string, name: string, extra: Partial<DeploymentRecord> = {}): DeploymentRecord {
  return {
    id,
    name,
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
    ...extra,
  } as DeploymentRecord;
}

const READY: ReconcileResult = {
  changeSet: {
    entries: [
      { id: 'Deployment/apps/a', apiVersion: 'apps/v1', kind: 'Deployment', name: 'a', action: 'created' },
    ],
    dryRun: false,
  },
  health: { state: 'Ready', reason: 'all ready', objects: [] } as unknown as ReconcileResult['health'],
};

function setup(deployments: DeploymentRecord[], extraDeps: Partial<AgentDeps> = {}) {
  const clock = new FakeClock();
  const state = { deployments, listFails: false };
  const calls: string[] = [];
  const pending: { id: string; resolve: (r: ReconcileResult) => void; reject: (e: unknown) => void }[] = [];
  const controlPlane: PollClient & ListenerClient = {
    listAllDeployments: async () => {
      if (state.listFails) throw new MooringError('MOORING_E_CP_UNREACHABLE');
      return { items: state.deployments, rejected: [], unsupported: [] };
    },
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
      calls.push('patch listener');
      return {} as ListenerRecord;
    },
  };
  const orphanPasses: number[] = [];
  const deps: AgentDeps = {
    config: config(),
    version: '1.0.0',
    logger: silentLogger(),
    metrics: createMetrics({ version: '1.0.0' }),
    controlPlane,
    readNamespace: async () => {},
    reconcile: (input) =>
      new Promise((resolve, reject) => {
        calls.push(`reconcile ${input.deployment.name}`);
        pending.push({ id: input.deployment.id, resolve, reject });
      }),
    collectOrphans: async (snapshot) => {
      orphanPasses.push(snapshot.deployments.length);
      return {};
    },
    clock,
    random: () => 0.5,
    ...extraDeps,
  };
  const agent = new Agent(deps);
  return { agent, clock, state, calls, pending, orphanPasses, controlPlane };
}

describe('Agent', () => {
  it('registers, reconciles each deployment, records status and feeds the orphan pass', async () => {
    const { agent, calls, pending, orphanPasses } = setup([dep('d1', 'alpha'), dep('d2', 'beta')]);
    const controller = new AbortController();
    const running = agent.run(controller.signal);
    await flush();
    expect(agent.ready().ok).toBe(true);
    expect(calls).toEqual(['patch listener', 'reconcile alpha', 'reconcile beta']);
    expect(orphanPasses).toEqual([2]);
    pending[0]!.resolve(READY);
    pending[1]!.reject(new TerminalError('MOORING_E_RENDER_POLICY', 'hostPath refused'));
    await flush();
    const states = agent.statusDocument().deployments.map((d) => [d.name, d.state, d.reason]);
    expect(states).toEqual([
      ['alpha', 'Ready', null],
      ['beta', 'Refused', 'MOORING_E_RENDER_POLICY: hostPath refused'],
    ]);
    controller.abort();
    await running;
  });

  it('a cold start reconciles each deployment once its revision is in, not after the last one', async () => {
    const revisionRecord = (id: string) =>
      ({ id, created_at: T, updated_at: T, status: 'DEPLOYED', source: 'external_docker' }) as never;
    const { agent, calls, pending, orphanPasses, controlPlane } = setup([
      dep('d1', 'alpha', { latest_revision_id: 'r1' }),
      dep('d2', 'beta', { latest_revision_id: 'r2' }),
    ]);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    controlPlane.getRevision = async (_d, r) => {
      if (r === 'r2') await held;
      return revisionRecord(r);
    };
    const controller = new AbortController();
    const running = agent.run(controller.signal);
    await flush();
    // beta's revision is still on its way, so there is no snapshot yet (no orphan pass).
    expect(calls).toEqual(['patch listener', 'reconcile alpha']);
    expect(orphanPasses).toEqual([]);
    release();
    await flush();
    expect(calls).toEqual(['patch listener', 'reconcile alpha', 'reconcile beta']);
    expect(orphanPasses).toEqual([2]);
    for (const p of pending) p.resolve(READY);
    controller.abort();
    await running;
  });

  it('resyncs every poll, parks terminal errors, and drops deployments that left the listing', async () => {
    const { agent, clock, state, calls, pending } = setup([dep('d1', 'alpha'), dep('d2', 'beta')]);
    const controller = new AbortController();
    const running = agent.run(controller.signal);
    await flush();
    pending[0]!.resolve(READY);
    pending[1]!.reject(new TerminalError('MOORING_E_RENDER_POLICY', 'refused'));
    await flush();
    calls.length = 0;
    await clock.advance(10_000);
    // alpha is resynced (drift repair); beta stays parked: its desired state did not change.
    expect(calls).toEqual(['reconcile alpha']);
    pending[2]!.resolve(READY);
    state.deployments = [dep('d2', 'beta', { status: 'UNUSED' })];
    await clock.advance(10_000);
    expect(calls).toEqual(['reconcile alpha', 'reconcile beta']);
    expect(agent.statusDocument().deployments.map((d) => d.name)).toEqual(['beta']);
    pending[3]!.resolve(READY);
    controller.abort();
    await running;
  });

  it('a refused orphan pass is counted in /metrics and shown in /status until a pass runs', async () => {
    let refused = true;
    const metrics = createMetrics({ version: '1.0.0' });
    const { agent, clock, pending } = setup([dep('d1', 'alpha')], {
      metrics,
      collectOrphans: async () =>
        refused
          ? { refused: { code: 'MOORING_E_PRUNE_CAP_EXCEEDED', message: 'prune refused: 80 objects due' } }
          : {},
    });
    const controller = new AbortController();
    const running = agent.run(controller.signal);
    await flush();
    expect(agent.statusDocument().pruneRefused).toMatchObject({ code: 'MOORING_E_PRUNE_CAP_EXCEEDED' });
    expect(await metrics.registry.metrics()).toContain(
      'mooring_prune_refusals_total{code="MOORING_E_PRUNE_CAP_EXCEEDED"} 1',
    );
    refused = false;
    pending[0]!.resolve(READY);
    await clock.advance(10_000);
    expect(agent.statusDocument().pruneRefused).toBeNull();
    pending[1]?.resolve(READY);
    controller.abort();
    await running;
  });

  it('a failed inventory listing is a prune refusal: counted from 0 and shown in /status', async () => {
    let listingFails = true;
    const metrics = createMetrics({ version: '1.0.0' });
    // Both documented codes have a sample before the first refusal, so increase() sees the first.
    const before = await metrics.registry.metrics();
    expect(before).toContain('mooring_prune_refusals_total{code="MOORING_E_PRUNE_LISTING_INCOMPLETE"} 0');
    expect(before).toContain('mooring_prune_refusals_total{code="MOORING_E_PRUNE_CAP_EXCEEDED"} 0');
    const { agent, clock, pending } = setup([dep('d1', 'alpha')], {
      metrics,
      collectOrphans: async () => {
        if (listingFails) {
          throw new MooringError('MOORING_E_PRUNE_LISTING_INCOMPLETE', 'listing apps/Deployment failed: 503');
        }
        return {};
      },
    });
    const controller = new AbortController();
    const running = agent.run(controller.signal);
    await flush();
    expect(agent.statusDocument().pruneRefused).toMatchObject({
      code: 'MOORING_E_PRUNE_LISTING_INCOMPLETE',
      message: 'listing apps/Deployment failed: 503',
    });
    expect(await metrics.registry.metrics()).toContain(
      'mooring_prune_refusals_total{code="MOORING_E_PRUNE_LISTING_INCOMPLETE"} 1',
    );
    listingFails = false;
    pending[0]!.resolve(READY);
    await clock.advance(10_000);
    expect(agent.statusDocument().pruneRefused).toBeNull();
    pending[1]?.resolve(READY);
    controller.abort();
    await running;
  });

  it('a failed listing acts on nothing and leaves the status as it was', async () => {
    const { agent, clock, state, calls, pending, orphanPasses } = setup([dep('d1', 'alpha')]);
    const controller = new AbortController();
    const running = agent.run(controller.signal);
    await flush();
    pending[0]!.resolve(READY);
    await flush();
    state.listFails = true;
    state.deployments = [];
    calls.length = 0;
    await clock.advance(60_000);
    expect(calls.filter((c) => c.startsWith('reconcile'))).toEqual([]);
    expect(orphanPasses).toEqual([1]);
    expect(agent.statusDocument().deployments.map((d) => [d.name, d.state])).toEqual([['alpha', 'Ready']]);
    expect(agent.health().ok).toBe(true);
    controller.abort();
    await running;
  });

  it('shutdown waits for an in-flight reconcile within the grace period', async () => {
    const { agent, clock, pending } = setup([dep('d1', 'alpha')]);
    const controller = new AbortController();
    let done = false;
    const running = agent.run(controller.signal).then(() => {
      done = true;
    });
    await flush();
    expect(agent.recordsEvents).toBe(true);
    controller.abort();
    await clock.advance(2000);
    expect(done).toBe(false);
    // No longer leading, but the finishing reconcile may still record its event.
    expect(agent.isLeader).toBe(false);
    expect(agent.recordsEvents).toBe(true);
    pending[0]!.resolve(READY);
    await flush();
    expect(done).toBe(true);
    await running;
  });

  it('shutdown gives up on a reconcile that outlives the grace period', async () => {
    const { agent, clock } = setup([dep('d1', 'alpha')]);
    const controller = new AbortController();
    let done = false;
    const running = agent.run(controller.signal).then(() => {
      done = true;
    });
    await flush();
    controller.abort();
    await clock.advance(4999);
    expect(done).toBe(false);
    await clock.advance(1);
    expect(done).toBe(true);
    await running;
  });
});

/** One in-memory Lease; `down` makes every call fail (a partition). */
function memoryLease(initial: LeaseRecord | undefined) {
  const state = { record: initial, rv: 1, down: false };
  const guard = () => {
    if (state.down) throw new Error('unreachable');
  };
  const client: LeaseClient = {
    get: async () => {
      guard();
      return state.record && { ...state.record };
    },
    create: async (r) => {
      guard();
      state.record = { ...r, resourceVersion: String(++state.rv) };
      return { ...state.record };
    },
    update: async (r) => {
      guard();
      state.record = { ...r, resourceVersion: String(++state.rv) };
      return { ...state.record };
    },
  };
  return { state, client };
}

/** A Lease another replica holds, renewed at time 0. */
const HELD_BY_OTHER: LeaseRecord = {
  holderIdentity: 'other',
  leaseDurationSeconds: 15,
  acquireTimeMs: 0,
  renewTimeMs: 0,
  leaseTransitions: 0,
  resourceVersion: '1',
};

describe('Agent with leader election', () => {
  it('writes nothing while another replica holds the lease; takes over when it expires', async () => {
    const lease = memoryLease(HELD_BY_OTHER);
    const { agent, clock, calls, pending } = setup([dep('d1', 'alpha')], {
      config: config(['--leader-election', '--identity', 'me']),
      leaseClient: lease.client,
    });
    const controller = new AbortController();
    const running = agent.run(controller.signal);
    await clock.advance(10_000);
    expect(agent.isLeader).toBe(false);
    expect(agent.recordsEvents).toBe(false);
    expect(calls.filter((c) => c.startsWith('reconcile'))).toEqual([]);
    expect(agent.ready().ok).toBe(true);
    await clock.advance(10_000);
    expect(agent.isLeader).toBe(true);
    expect(lease.state.record?.holderIdentity).toBe('me');
    expect(calls.filter((c) => c.startsWith('reconcile'))).toEqual(['reconcile alpha']);
    pending[0]!.resolve(READY);
    controller.abort();
    await clock.advance(1000);
    await running;
    expect(lease.state.record?.holderIdentity).toBeUndefined();
  });

  it('under a short heap, a new deployment waits for memory but one being deleted is reconciled: deleting frees memory', async () => {
    const heap = { liveBytes: 95, limitBytes: 100 };
    const { agent, calls, clock, pending } = setup(
      [dep('d1', 'alpha'), dep('d2', 'beta', { status: 'AWAITING_DELETE' })],
      { memory: new MemoryBudget({ read: () => heap, logger: silentLogger() }) },
    );
    const controller = new AbortController();
    const running = agent.run(controller.signal);
    await flush();
    expect(calls.filter((c) => c.startsWith('reconcile'))).toEqual(['reconcile beta']);
    const states = Object.fromEntries(agent.statusDocument().deployments.map((d) => [d.name, d.state]));
    expect(states.alpha).toBe('Pending');
    for (const p of pending.splice(0)) p.resolve(READY);
    controller.abort();
    await clock.advance(10_000);
    await running;
  });

  it('under a short heap, a new deployment waits without its revision read (this client fails every revision read)', async () => {
    const heap = { liveBytes: 95, limitBytes: 100 };
    const { agent, calls, clock, pending } = setup(
      [dep('d1', 'alpha', { latest_revision_id: 'r1' }), dep('d2', 'beta', { status: 'AWAITING_DELETE' })],
      { memory: new MemoryBudget({ read: () => heap, logger: silentLogger() }) },
    );
    const controller = new AbortController();
    const running = agent.run(controller.signal);
    await flush();
    expect(calls.filter((c) => c.startsWith('reconcile'))).toEqual(['reconcile beta']);
    const alpha = agent.statusDocument().deployments.find((d) => d.name === 'alpha');
    expect(alpha?.state).toBe('Pending');
    expect(alpha?.revision).toBe('r1');
    for (const p of pending.splice(0)) p.resolve(READY);
    controller.abort();
    await clock.advance(10_000);
    await running;
  });

  it('a leader saves its restart memo every five minutes while it runs, not only at shutdown, unless the heap is short', async () => {
    for (const short of [false, true]) {
      const saved: unknown[][] = [];
      const heap = { liveBytes: (short ? 95 : 10) * 1024 * 1024, limitBytes: 100 * 1024 * 1024 };
      const t = setup([dep('d1', 'alpha')], {
        saveRestartMemo: async (passes) => {
          saved.push([...passes]);
        },
        memory: new MemoryBudget({ read: () => heap, logger: silentLogger() }),
      });
      const controller = new AbortController();
      const running = t.agent.run(controller.signal);
      // Six minutes of 10 s polls, every reconcile converged.
      for (let step = 0; step < 36; step++) {
        await t.clock.advance(10_000);
        for (const p of t.pending.splice(0)) {
          p.resolve({ ...READY, converged: { key: 'k', objects: 2, claimPrefixes: [] } });
        }
      }
      expect(saved.length).toBe(short ? 0 : 1);
      // What it holds then: here the resync's own reconcile of d1 is running, so it holds no pass.
      if (!short) expect(Array.isArray(saved[0])).toBe(true);
      controller.abort();
      await t.clock.advance(10_000);
      await running;
    }
  });

  it('a stopping leader saves its restart memo while it still holds the lease; a standby saves none', async () => {
    const lease = memoryLease(undefined);
    const saved: { passes: unknown[]; holder: string | undefined }[] = [];
    const saveRestartMemo = async (passes: Iterable<unknown>) => {
      saved.push({ passes: [...passes], holder: lease.state.record?.holderIdentity });
    };
    const leader = setup([dep('d1', 'alpha')], {
      config: config(['--leader-election', '--identity', 'me']),
      leaseClient: lease.client,
      saveRestartMemo,
    });
    const controller = new AbortController();
    const running = leader.agent.run(controller.signal);
    await leader.clock.advance(100);
    leader.pending[0]!.resolve({ ...READY, converged: { key: 'k', objects: 2, claimPrefixes: [] } });
    await leader.clock.advance(100);
    controller.abort();
    await leader.clock.advance(1000);
    await running;
    const pass = { key: 'k', objects: 2, claimPrefixes: [], namespace: 'apps' };
    expect(saved).toEqual([{ passes: [['d1', pass]], holder: 'me' }]);
    expect(lease.state.record?.holderIdentity).toBeUndefined();

    const held = memoryLease(HELD_BY_OTHER);
    saved.length = 0;
    const standby = setup([dep('d1', 'alpha')], {
      config: config(['--leader-election', '--identity', 'me']),
      leaseClient: held.client,
      saveRestartMemo,
    });
    const stop = new AbortController();
    const standing = standby.agent.run(stop.signal);
    await standby.clock.advance(5000);
    stop.abort();
    await standby.clock.advance(1000);
    await standing;
    expect(saved).toEqual([]);
  });

  it('after losing the lease, a new term waits for the old reconcile to return', async () => {
    const lease = memoryLease(undefined);
    const { agent, clock, calls, pending } = setup([dep('d1', 'alpha')], {
      config: config(['--leader-election', '--identity', 'me']),
      leaseClient: lease.client,
    });
    const controller = new AbortController();
    const running = agent.run(controller.signal);
    await clock.advance(100);
    expect(calls.filter((c) => c.startsWith('reconcile'))).toEqual(['reconcile alpha']);
    // This reconcile ignores its abort and hangs on; meanwhile the lease cannot be renewed.
    lease.state.down = true;
    await clock.advance(12_000);
    expect(agent.isLeader).toBe(false);
    // Deposed: another replica may be writing, so not even the hanging reconcile records events.
    expect(agent.recordsEvents).toBe(false);
    lease.state.down = false;
    await clock.advance(4_000);
    // Leader again, but the old reconcile has not returned: no second reconcile of alpha yet.
    expect(calls.filter((c) => c.startsWith('reconcile'))).toEqual(['reconcile alpha']);
    pending[0]!.resolve(READY);
    await clock.advance(100);
    expect(agent.isLeader).toBe(true);
    expect(agent.recordsEvents).toBe(true);
    expect(calls.filter((c) => c.startsWith('reconcile'))).toEqual(['reconcile alpha', 'reconcile alpha']);
    pending[1]!.resolve(READY);
    controller.abort();
    await clock.advance(1000);
    await running;
  });
});

describe('probes and the start-up schedule, as documented', () => {
  it('/healthz turns unhealthy when one poll cycle hangs past max(300 s, 5 poll intervals)', async () => {
    const { agent, clock, controlPlane } = setup([dep('d1', 'alpha')]);
    let hang = false;
    const listAll = controlPlane.listAllDeployments.bind(controlPlane);
    controlPlane.listAllDeployments = (...args) => (hang ? new Promise(() => {}) : listAll(...args));
    const controller = new AbortController();
    const running = agent.run(controller.signal);
    await flush();
    hang = true;
    // The next poll starts and never returns.
    await clock.advance(10_000);
    expect(agent.health().ok).toBe(true);
    await clock.advance(290_000);
    expect(agent.health().ok).toBe(true);
    await clock.advance(11_000);
    const health = agent.health();
    expect(health.ok).toBe(false);
    expect(health.checks.pollLoop?.detail).toMatch(/^one poll cycle has been running for 30\d s$/);
    controller.abort();
    await clock.advance(10_000);
    void running;
  });

  it('start-up checks that fail retryably are retried after 1, 2, 4, 8, 16, 30, 30 s', async () => {
    let failures = 7;
    const attempts: number[] = [];
    const { agent, clock } = setup([], {
      readNamespace: async () => {
        attempts.push(clock.now());
        if (failures-- > 0) throw new MooringError('MOORING_E_KUBE_UNREACHABLE', 'connect ECONNREFUSED');
      },
    });
    const controller = new AbortController();
    const running = agent.run(controller.signal);
    await clock.advance(100_000);
    expect(attempts.slice(1).map((t, i) => t - attempts[i]!)).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000,
    ]);
    expect(agent.ready().checks.registered?.ok).toBe(true);
    controller.abort();
    await clock.advance(10_000);
    await running;
  });
});

describe('--resync-interval and pruning', () => {
  it('an orphan pass runs only at a resync, so a deployment absent from two listings goes within about twice the interval', async () => {
    const passes: number[] = [];
    const { agent, clock } = setup([], {
      config: config(['--resync-interval', '60']),
      collectOrphans: async () => {
        passes.push(clock.now());
        return {};
      },
    });
    const controller = new AbortController();
    const running = agent.run(controller.signal);
    await clock.advance(250_000);
    const gaps = passes.slice(1).map((t, i) => t - passes[i]!);
    expect(gaps.length).toBeGreaterThanOrEqual(3);
    // A resync starts at the first poll once the interval has passed (polls come up to 10%
    // sooner), at most one poll interval (10 s) later. Two of them: a vanished deployment goes
    // within about 2 x 60 s.
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(54_000);
      expect(gap).toBeLessThanOrEqual(70_000);
    }
    controller.abort();
    await clock.advance(10_000);
    await running;
  });
});
