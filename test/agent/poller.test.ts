import { describe, expect, it } from 'vitest';
import { nestedDeeperThan } from '../../src/contract/depth.ts';
import {
  desiredStateHash,
  MAX_RECORD_DEPTH,
  Poller,
  type PollClient,
  type Snapshot,
} from '../../src/agent/poller.ts';
import type { DeploymentRecord, RevisionRecord } from '../../src/contract/index.ts';
import { MooringError } from '../../src/errors.ts';
import { silentLogger } from '../../src/log.ts';
import { isSketch } from '../../src/agent/record-sketch.ts';
import { FakeClock, flush } from './fake-clock.ts';

const LISTENER = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';
const T = '2026-01-01T00:00:00Z';

function deployment(
  id: string,
  listener: string,
  latest: string | null,
  active: string | null = null,
): DeploymentRecord {
  return {
    id,
    name: `dep-${id.slice(-6)}`,
    source: 'external_docker',
    source_config: { listener_id: listener, listener_config: { k8s_namespace: 'default' } },
    source_revision_config: { image_uri: 'img:1' },
    secrets: [],
    tenant_id: OTHER,
    created_at: T,
    updated_at: T,
    status: 'READY',
    latest_revision_id: latest,
    active_revision_id: active,
  } as DeploymentRecord;
}

function revision(id: string, status: string): RevisionRecord {
  return {
    id,
    created_at: T,
    updated_at: T,
    status,
    source: 'external_docker',
    source_revision_config: { image_uri: `img:${id}` },
  } as RevisionRecord;
}

function fakeClient(state: {
  deployments: DeploymentRecord[];
  revisions: Record<string, RevisionRecord>;
  fail?: unknown;
}) {
  const calls: string[] = [];
  /** The ids of the records each listing parsed (those the poller did not answer for). */
  const parsed: string[][] = [];
  const client: PollClient = {
    listAllDeployments: async (filters, options) => {
      calls.push(`list ${JSON.stringify(filters)}`);
      if (state.fail) throw state.fail;
      // New objects for every record, as a real listing parses them anew (a record nested too
      // deep to clone is copied at its top level).
      const copy = (d: DeploymentRecord) => {
        try {
          return structuredClone(d);
        } catch {
          return { ...d };
        }
      };
      // A record the poller holds and says is unchanged is taken as it is; the rest are "parsed",
      // and the listing keeps what the poller says of them.
      const ids: string[] = [];
      parsed.push(ids);
      const items = state.deployments.map(copy).map((d) => {
        const known = options?.known?.(d);
        if (known) return known;
        ids.push(d.id);
        return options?.slim ? options.slim(d) : d;
      });
      return { items, rejected: [], unsupported: [] };
    },
    getRevision: async (deploymentId, revisionId) => {
      calls.push(`rev ${revisionId}`);
      const r = state.revisions[revisionId];
      if (!r)
        throw new MooringError('MOORING_E_CP_NOT_FOUND', `no revision ${revisionId} of ${deploymentId}`);
      return r;
    },
  };
  return { client, calls, parsed };
}

function setup(state: Parameters<typeof fakeClient>[0]) {
  const clock = new FakeClock();
  const { client, calls } = fakeClient(state);
  const snapshots: Snapshot[] = [];
  const polls: string[] = [];
  const poller = new Poller({
    client,
    listenerId: LISTENER,
    intervalMs: 10_000,
    clock,
    random: () => 0.5,
    logger: silentLogger(),
    onCycle: async (cycle) => {
      snapshots.push(await cycle.snapshot);
    },
    onPoll: (r) => polls.push(r),
  });
  const controller = new AbortController();
  return { clock, calls, snapshots, polls, poller, controller };
}

/** A Poller over `deployments` whose revision reads are `getRevision`. */
function pollerWithRevisions(
  deployments: DeploymentRecord[],
  getRevision: PollClient['getRevision'],
): Poller {
  const { client } = fakeClient({ deployments, revisions: {} });
  return new Poller({
    client: { ...client, getRevision },
    listenerId: LISTENER,
    intervalMs: 10_000,
    logger: silentLogger(),
  });
}

const D1 = 'aaaaaaaa-0000-4000-8000-000000000001';
const D2 = 'aaaaaaaa-0000-4000-8000-000000000002';
const R1 = 'bbbbbbbb-0000-4000-8000-000000000001';
const R2 = 'bbbbbbbb-0000-4000-8000-000000000002';

describe('Poller', () => {
  it('keeps only this listener, fetches each revision once, and polls every interval', async () => {
    const state = {
      deployments: [deployment(D1, LISTENER, R1), deployment(D2, OTHER, R2)],
      revisions: { [R1]: revision(R1, 'DEPLOYED'), [R2]: revision(R2, 'DEPLOYED') },
    };
    const { clock, calls, snapshots, poller, controller } = setup(state);
    const done = poller.run(controller.signal);
    await flush();
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]!.deployments.map((d) => [d.deployment.id, d.revision?.id])).toEqual([[D1, R1]]);
    expect(calls).toEqual(['list {"remote_reconciled":true}', `rev ${R1}`]);
    // random() = 0.5: the next poll starts 5% (of the 10% jitter window) before the interval ends.
    await clock.advance(9_499);
    expect(snapshots).toHaveLength(1);
    await clock.advance(1);
    expect(snapshots).toHaveLength(2);
    expect(calls.filter((c) => c.startsWith('rev'))).toHaveLength(1);
    expect(snapshots[1]!.deployments[0]!.hash).toBe(snapshots[0]!.deployments[0]!.hash);
    controller.abort();
    await done;
  });

  it('runs the active revision when the latest failed', async () => {
    const state = {
      deployments: [deployment(D1, LISTENER, R2, R1)],
      revisions: { [R1]: revision(R1, 'DEPLOYED'), [R2]: revision(R2, 'BUILD_FAILED') },
    };
    const { poller } = setup(state);
    const snap = await poller.pollOnce();
    expect(snap.deployments[0]!.revision?.id).toBe(R1);
  });

  it('reads no revision of a deployment being deleted: a failed or missing one does not refuse it', async () => {
    const deleting = (id: string, latest: string | null, active: string | null = null) =>
      ({ ...deployment(id, LISTENER, latest, active), status: 'AWAITING_DELETE' }) as DeploymentRecord;
    const state = {
      // D1's only revision failed (no active one to run), D2's is gone: either would be refused.
      deployments: [deleting(D1, R2), deleting(D2, R1)],
      revisions: { [R2]: revision(R2, 'BUILD_FAILED') },
    };
    const { poller, calls } = setup(state);
    const snap = await poller.pollOnce();
    expect(snap.deployments.map((d) => [d.deployment.id, d.refused?.code, d.revision])).toEqual([
      [D1, undefined, undefined],
      [D2, undefined, undefined],
    ]);
    expect(calls.filter((c) => c.startsWith('rev'))).toEqual([]);
  });

  it('refuses one deployment whose revision is missing, not the whole listing', async () => {
    const state = {
      deployments: [deployment(D1, LISTENER, R1), deployment(D2, LISTENER, null)],
      revisions: {},
    };
    const { poller } = setup(state);
    const snap = await poller.pollOnce();
    expect(snap.deployments.map((d) => [d.deployment.id, d.refused?.code])).toEqual([
      [D1, 'MOORING_E_CP_NOT_FOUND'],
      [D2, undefined],
    ]);
  });

  it('fetches uncached revisions several at a time, keeping the listing order', async () => {
    const ids = Array.from(
      { length: 20 },
      (_, i) => `aaaaaaaa-0000-4000-8000-${String(i).padStart(12, '0')}`,
    );
    const revs = ids.map((_, i) => `bbbbbbbb-0000-4000-8000-${String(i).padStart(12, '0')}`);
    let inFlight = 0;
    let most = 0;
    const poller = pollerWithRevisions(
      ids.map((id, i) => deployment(id, LISTENER, revs[i] ?? null)),
      async (_d, r) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight -= 1;
        return revision(r, 'DEPLOYED');
      },
    );
    const snap = await poller.pollOnce();
    expect(snap.deployments.map((d) => d.revision?.id)).toEqual(revs);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(8);
  });

  it('refuses a deployment whose revision comes back malformed, alone', async () => {
    const poller = pollerWithRevisions(
      [deployment(D1, LISTENER, R1), deployment(D2, LISTENER, R2)],
      async (_d, r) => {
        if (r === R1)
          throw new MooringError('MOORING_E_CP_BAD_RESPONSE', 'GET revision: response does not match');
        return revision(r, 'DEPLOYED');
      },
    );
    const snap = await poller.pollOnce();
    expect(snap.deployments.map((d) => [d.deployment.id, d.refused?.code, d.revision?.id])).toEqual([
      [D1, 'MOORING_E_CP_BAD_RESPONSE', undefined],
      [D2, undefined, R2],
    ]);
  });

  it('hands each deployment on as soon as its revision is in: after the listing, before the snapshot', async () => {
    const events: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { client } = fakeClient({
      deployments: [deployment(D1, LISTENER, R2), deployment(D2, LISTENER, R1)],
      revisions: {},
    });
    const poller = new Poller({
      client: {
        listAllDeployments: (...args) => {
          events.push('listing');
          return client.listAllDeployments(...args);
        },
        getRevision: async (_d, r) => {
          if (r === R2) await held;
          return revision(r, 'DEPLOYED');
        },
      },
      listenerId: LISTENER,
      intervalMs: 10_000,
      logger: silentLogger(),
      onCycle: async (cycle) => {
        events.push('listed');
        for await (const d of cycle.desired) events.push(`ready ${d.deployment.id}`);
      },
    });
    const polled = poller.pollOnce().then((snap) => {
      events.push('snapshot');
      return snap;
    });
    await flush();
    // D1's revision is held: D2, listed after it, is handed on all the same.
    expect(events).toEqual(['listing', 'listed', `ready ${D2}`]);
    release();
    const snap = await polled;
    expect(events).toEqual(['listing', 'listed', `ready ${D2}`, `ready ${D1}`, 'snapshot']);
    expect(snap.deployments.map((d) => d.deployment.id)).toEqual([D1, D2]);
  });

  it('a revision fetch that cannot reach the control plane fails the whole poll', async () => {
    const poller = pollerWithRevisions([deployment(D1, LISTENER, R1)], async () => {
      throw new MooringError('MOORING_E_CP_UNREACHABLE');
    });
    await expect(poller.pollOnce()).rejects.toMatchObject({ code: 'MOORING_E_CP_UNREACHABLE' });
  });

  it('refuses a record nested deeper than the limit alone, without overflowing the stack', async () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 10_000; i++) deep = { n: deep };
    const odd = { ...deployment(D1, LISTENER, null), x_future: deep } as DeploymentRecord;
    const { poller } = setup({ deployments: [odd, deployment(D2, LISTENER, null)], revisions: {} });
    const snap = await poller.pollOnce();
    expect(snap.deployments.map((d) => [d.deployment.id, d.refused?.code])).toEqual([
      [D1, 'MOORING_E_RECORD_INVALID'],
      [D2, undefined],
    ]);
  });

  it('produces no snapshot on a failed listing and backs off up to the interval', async () => {
    const state = {
      deployments: [deployment(D1, LISTENER, null)],
      revisions: {},
      fail: new MooringError('MOORING_E_CP_UNREACHABLE') as unknown,
    };
    const { clock, snapshots, polls, poller, controller } = setup(state);
    const done = poller.run(controller.signal);
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      await flush();
      delays.push(poller.nextDueAtMs! - clock.now());
      await clock.advance(delays.at(-1)!);
    }
    expect(snapshots).toEqual([]);
    expect(delays).toEqual([1250, 2500, 5000, 10_000, 10_000, 10_000]);
    expect(polls.every((p) => p === 'failure')).toBe(true);
    // Recovery: the next poll after the control plane returns succeeds.
    state.fail = undefined;
    await clock.advance(10_000);
    expect(snapshots).toHaveLength(1);
    controller.abort();
    await done;
  });

  it('honours Retry-After when it is longer than the backoff', async () => {
    const state = {
      deployments: [],
      revisions: {},
      fail: new MooringError('MOORING_E_CP_UNAVAILABLE', undefined, { retryAfterMs: 45_000 }) as unknown,
    };
    const { clock, poller, controller } = setup(state);
    const done = poller.run(controller.signal);
    await flush();
    expect(poller.nextDueAtMs! - clock.now()).toBe(45_000);
    controller.abort();
    await done;
  });
});

describe('Poller: records listed again', () => {
  /** Two deployments of this listener; `poll` gives each poll's desired deployments by id. */
  const twoDeployments = () => {
    const state = {
      deployments: [deployment(D1, LISTENER, R1), deployment(D2, LISTENER, R2)],
      revisions: { [R1]: revision(R1, 'DEPLOYED'), [R2]: revision(R2, 'DEPLOYED') },
    };
    const { poller } = setup(state);
    const poll = async () => new Map((await poller.pollOnce()).deployments.map((d) => [d.deployment.id, d]));
    return { state, poll };
  };

  it('keeps the record it holds when a poll lists it unchanged, and takes a changed one', async () => {
    const { state, poll } = twoDeployments();
    const first = await poll();
    const second = await poll();
    // The copy just parsed is dropped for the one already held.
    expect(second.get(D1)!.deployment).toBe(first.get(D1)!.deployment);
    expect(second.get(D2)!.deployment).toBe(first.get(D2)!.deployment);
    state.deployments = [
      { ...deployment(D1, LISTENER, R1), updated_at: '2027-01-01T00:00:00Z' },
      { ...deployment(D2, LISTENER, R2), status: 'UNUSED' },
    ];
    const third = await poll();
    // A new updated_at is news (the new record is kept) but no change to make.
    expect(third.get(D1)!.deployment).not.toBe(second.get(D1)!.deployment);
    expect(third.get(D1)!.deployment.updated_at).toBe('2027-01-01T00:00:00Z');
    expect(third.get(D1)!.hash).toBe(second.get(D1)!.hash);
    expect(third.get(D2)!.deployment.status).toBe('UNUSED');
    expect(third.get(D2)!.hash).not.toBe(second.get(D2)!.hash);
    // Listed again nested far too deep to digest (same updated_at): refused alone, no failed poll.
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { x: deep };
    state.deployments = [
      third.get(D1)!.deployment,
      { ...third.get(D2)!.deployment, extra: deep } as DeploymentRecord,
    ];
    const fourth = await poll();
    expect(fourth.get(D1)!.deployment).toBe(third.get(D1)!.deployment);
    expect(fourth.get(D2)!.refused?.code).toBe('MOORING_E_RECORD_INVALID');
  });

  it('keeps no record of a deployment it is told not to retain (one waiting for memory): the next listing parses it again', async () => {
    const state = {
      deployments: [deployment(D1, LISTENER, R1), deployment(D2, LISTENER, R2)],
      revisions: { [R1]: revision(R1, 'DEPLOYED'), [R2]: revision(R2, 'DEPLOYED') },
    };
    const { client } = fakeClient(state);
    const poller = new Poller({
      client,
      listenerId: LISTENER,
      intervalMs: 10_000,
      logger: silentLogger(),
      retains: (id) => id !== D2,
    });
    const poll = async () => new Map((await poller.pollOnce()).deployments.map((d) => [d.deployment.id, d]));
    const first = await poll();
    const second = await poll();
    expect(second.get(D1)!.deployment).toBe(first.get(D1)!.deployment);
    expect(second.get(D2)!.deployment).not.toBe(first.get(D2)!.deployment);
    expect(second.get(D2)!.hash).toBe(first.get(D2)!.hash);
  });

  /** Two deployments of this listener, D2 waiting for memory until `heap.short` is false. */
  const d2Waiting = () => {
    const state = {
      deployments: [deployment(D1, LISTENER, R1), deployment(D2, LISTENER, R2)],
      revisions: { [R1]: revision(R1, 'DEPLOYED'), [R2]: revision(R2, 'DEPLOYED') },
    };
    const { client, calls, parsed } = fakeClient(state);
    const heap = { short: true };
    const poller = new Poller({
      client,
      listenerId: LISTENER,
      intervalMs: 10_000,
      logger: silentLogger(),
      waits: (d) => (heap.short && d.id === D2 ? 'MOORING_E_MEMORY_SHORT: heap short' : undefined),
    });
    return { state, calls, parsed, heap, poller };
  };

  it('reads no revision of a deployment that would wait for memory, hands it on saying so, and keeps no record of it', async () => {
    const { calls, heap, poller } = d2Waiting();
    const first = new Map((await poller.pollOnce()).deployments.map((d) => [d.deployment.id, d]));
    expect(calls.filter((c) => c.startsWith('rev'))).toEqual([`rev ${R1}`]);
    expect(first.get(D1)!.revision?.id).toBe(R1);
    expect(first.get(D2)).toMatchObject({
      revision: undefined,
      waitsForMemory: 'MOORING_E_MEMORY_SHORT: heap short',
    });
    // Handed on as its sketch: nothing of its spec or secrets.
    expect(isSketch(first.get(D2)!.deployment)).toBe(true);
    expect(first.get(D2)!.deployment).not.toHaveProperty('source_revision_config');
    // Room again: the next poll parses it anew (no record was kept) and reads its revision.
    heap.short = false;
    const second = new Map((await poller.pollOnce()).deployments.map((d) => [d.deployment.id, d]));
    expect(calls.filter((c) => c.startsWith('rev'))).toEqual([`rev ${R1}`, `rev ${R2}`]);
    expect(second.get(D2)!.waitsForMemory).toBeUndefined();
    expect(second.get(D2)!.deployment).not.toBe(first.get(D2)!.deployment);
    expect(second.get(D2)!.hash).toBe(desiredStateHash(second.get(D2)!.deployment, revision(R2, 'DEPLOYED')));
  });

  it('keeps a waiting deployment as its sketch: listed again unchanged it is not parsed, and it is parsed whole once the heap has room', async () => {
    const { state, calls, parsed, heap, poller } = d2Waiting();
    const poll = async () => new Map((await poller.pollOnce()).deployments.map((d) => [d.deployment.id, d]));
    const first = await poll();
    // Sketched as soon as it was parsed: the listing never held it whole past its page.
    expect(parsed.at(-1)).toEqual([D1, D2]);
    expect(isSketch(first.get(D2)!.deployment)).toBe(true);
    const second = await poll();
    expect(parsed.at(-1)).toEqual([]);
    expect(second.get(D2)!.deployment).toBe(first.get(D2)!.deployment);
    expect(second.get(D2)!.waitsForMemory).toBe('MOORING_E_MEMORY_SHORT: heap short');
    // A new updated_at: parsed again, and sketched again while the heap is still short.
    state.deployments[1] = { ...deployment(D2, LISTENER, R2), updated_at: '2027-01-01T00:00:00Z' };
    const third = await poll();
    expect(parsed.at(-1)).toEqual([D2]);
    expect(isSketch(third.get(D2)!.deployment)).toBe(true);
    expect(third.get(D2)!.deployment.updated_at).toBe('2027-01-01T00:00:00Z');
    expect(calls.filter((c) => c.startsWith('rev'))).toEqual([`rev ${R1}`]);
    // Room again: parsed whole, its revision read, and held from then on.
    heap.short = false;
    const fourth = await poll();
    expect(parsed.at(-1)).toEqual([D2]);
    expect(isSketch(fourth.get(D2)!.deployment)).toBe(false);
    expect(fourth.get(D2)!.deployment.source_revision_config).toEqual({ image_uri: 'img:1' });
    expect(fourth.get(D2)!.revision?.id).toBe(R2);
    await poll();
    expect(parsed.at(-1)).toEqual([]);
  });

  it('asks whether a deployment waits only once what comes before each listing is done (the restart memo vouching)', async () => {
    const state = {
      deployments: [deployment(D1, LISTENER, R1), deployment(D2, LISTENER, R2)],
      revisions: { [R1]: revision(R1, 'DEPLOYED'), [R2]: revision(R2, 'DEPLOYED') },
    };
    const { client, calls } = fakeClient(state);
    const vouched = new Set<string>();
    let listings = 0;
    const poller = new Poller({
      client,
      listenerId: LISTENER,
      intervalMs: 10_000,
      logger: silentLogger(),
      // The heap has room for no new deployment: only one vouched for is taken.
      waits: (d) => (vouched.has(d.id) ? undefined : 'MOORING_E_MEMORY_SHORT: heap short'),
      beforeListing: async () => {
        listings += 1;
        await new Promise((resolve) => setTimeout(resolve, 5));
        vouched.add(D1);
      },
    });
    const first = new Map((await poller.pollOnce()).deployments.map((d) => [d.deployment.id, d]));
    expect(listings).toBe(1);
    expect(first.get(D1)!.waitsForMemory).toBeUndefined();
    expect(isSketch(first.get(D1)!.deployment)).toBe(false);
    expect(first.get(D2)!.waitsForMemory).toBe('MOORING_E_MEMORY_SHORT: heap short');
    expect(calls.filter((c) => c.startsWith('rev'))).toEqual([`rev ${R1}`]);
  });

  it('never resolves a sketch: one listed as a sketch whose turn comes with room waits one poll more', async () => {
    const state = {
      deployments: [deployment(D1, LISTENER, R1)],
      revisions: { [R1]: revision(R1, 'DEPLOYED') },
    };
    const { client, calls } = fakeClient(state);
    // Short while the listing is parsed, room by the time the deployment's turn comes.
    let answers = ['short', 'room'];
    const poller = new Poller({
      client,
      listenerId: LISTENER,
      intervalMs: 10_000,
      logger: silentLogger(),
      waits: () => (answers.shift() === 'short' ? 'MOORING_E_MEMORY_SHORT: heap short' : undefined),
    });
    const first = (await poller.pollOnce()).deployments[0]!;
    expect(first.waitsForMemory).toMatch(/^MOORING_E_MEMORY_SHORT: the heap had no room when/);
    expect(isSketch(first.deployment)).toBe(true);
    expect(calls.filter((c) => c.startsWith('rev'))).toEqual([]);
    answers = ['room', 'room', 'room'];
    const second = (await poller.pollOnce()).deployments[0]!;
    expect(second.waitsForMemory).toBeUndefined();
    expect(second.revision?.id).toBe(R1);
    expect(calls.filter((c) => c.startsWith('rev'))).toEqual([`rev ${R1}`]);
  });

  it('compares records member by member: order does not count, a nested change does', async () => {
    const { state, poll } = twoDeployments();
    const first = await poll();
    const [d1, d2] = state.deployments as [DeploymentRecord, DeploymentRecord];
    // The same members in the reverse order; a value two levels down changed, updated_at not.
    const reversed = Object.fromEntries(Object.entries(d1).reverse()) as DeploymentRecord;
    const nested = {
      ...d2,
      source_config: { ...d2.source_config, listener_config: { k8s_namespace: 'elsewhere' } },
    } as DeploymentRecord;
    state.deployments = [reversed, nested];
    const second = await poll();
    expect(second.get(D1)!.deployment).toBe(first.get(D1)!.deployment);
    expect(second.get(D1)!.hash).toBe(first.get(D1)!.hash);
    expect(second.get(D2)!.deployment).not.toBe(first.get(D2)!.deployment);
    expect(second.get(D2)!.deployment.source_config.listener_config?.k8s_namespace).toBe('elsewhere');
    expect(second.get(D2)!.hash).not.toBe(first.get(D2)!.hash);
  });
});

describe('name collisions across tenants', () => {
  const HOSTILE = '33333333-3333-4333-8333-333333333333';

  it("a deployment of another tenant than its namespace's does not take that tenant's names", async () => {
    // Another tenant's older record names the same deployment in a namespace bound to OTHER.
    const hostile = {
      ...deployment(D1, LISTENER, null),
      name: 'shop',
      tenant_id: HOSTILE,
      created_at: '2025-01-01T00:00:00Z',
    };
    const own = { ...deployment(D2, LISTENER, null), name: 'shop', created_at: '2026-02-01T00:00:00Z' };
    const { client } = fakeClient({ deployments: [own, hostile], revisions: {} });
    const options = {
      client,
      listenerId: LISTENER,
      intervalMs: 10_000,
      logger: silentLogger(),
    };
    const bound = new Poller({ ...options, collisions: { namespaceTenants: { default: OTHER } } });
    const snap = await bound.pollOnce();
    expect(snap.deployments.map((d) => [d.deployment.id, d.refused?.code])).toEqual([
      [D2, undefined],
      [D1, undefined],
    ]);
    // Unbound, the older record keeps the names (the rule for one tenant).
    const unbound = await new Poller(options).pollOnce();
    expect(unbound.deployments.find((d) => d.deployment.id === D2)!.refused?.code).toBe(
      'MOORING_E_RENDER_NAME_COLLISION',
    );
  });
});

describe('desiredStateHash', () => {
  it('changes with the revision and the status, not with updated_at', () => {
    const d = deployment(D1, LISTENER, R1);
    const h = desiredStateHash(d, revision(R1, 'DEPLOYED'));
    expect(desiredStateHash({ ...d, updated_at: '2027-01-01T00:00:00Z' }, revision(R1, 'DEPLOYED'))).toBe(h);
    expect(desiredStateHash({ ...d, status: 'UNUSED' }, revision(R1, 'DEPLOYED'))).not.toBe(h);
    expect(desiredStateHash(d, revision(R2, 'DEPLOYED'))).not.toBe(h);
  });
});

describe('nestedDeeperThan', () => {
  it('measures depth without recursion', () => {
    let v: unknown = 1;
    for (let i = 0; i < 100_000; i++) v = [v];
    expect(nestedDeeperThan(v, MAX_RECORD_DEPTH)).toBe(true);
    expect(nestedDeeperThan({ a: { b: [1, { c: 2 }] } }, 4)).toBe(false);
    expect(nestedDeeperThan({ a: { b: [1, { c: {} }] } }, 4)).toBe(true);
  });

  it('refuses the younger of two deployments whose objects would share names in one namespace', async () => {
    const older = { ...deployment(D1, LISTENER, null), name: 'shop', created_at: '2026-01-01T00:00:00Z' };
    const younger = { ...deployment(D2, LISTENER, null), name: 'shop', created_at: '2026-02-01T00:00:00Z' };
    const { poller } = setup({ deployments: [younger, older], revisions: {} });
    const snap = await poller.pollOnce();
    const byId = new Map(snap.deployments.map((d) => [d.deployment.id, d]));
    expect(byId.get(D1)!.refused).toBeUndefined();
    expect(byId.get(D2)!.refused?.code).toBe('MOORING_E_RENDER_NAME_COLLISION');
  });

  it('holds the names of a deployment being deleted until its objects are gone (regression: released at once)', async () => {
    const deleting = {
      ...deployment(D1, LISTENER, null),
      name: 'shop',
      created_at: '2026-01-01T00:00:00Z',
      status: 'AWAITING_DELETE',
    } as DeploymentRecord;
    const younger = { ...deployment(D2, LISTENER, null), name: 'shop', created_at: '2026-02-01T00:00:00Z' };
    const { client } = fakeClient({ deployments: [younger, deleting], revisions: {} });
    const owns = new Map<string, boolean | undefined>([[D1, undefined]]);
    const poller = new Poller({
      client,
      listenerId: LISTENER,
      intervalMs: 10_000,
      logger: silentLogger(),
      collisions: { holdsObjects: (id) => owns.get(id) },
    });
    const byId = async () => new Map((await poller.pollOnce()).deployments.map((d) => [d.deployment.id, d]));
    // Not yet listed, then listed with objects: held, and the one being deleted is never refused.
    for (const holds of [undefined, true]) {
      owns.set(D1, holds);
      const now = await byId();
      expect(now.get(D2)!.refused?.code).toBe('MOORING_E_RENDER_NAME_COLLISION');
      expect(now.get(D1)!.refused).toBeUndefined();
    }
    // Its objects gone (kept volumes aside): the name is free.
    owns.set(D1, false);
    expect([...(await byId()).values()].every((d) => d.refused === undefined)).toBe(true);
  });

  it('refuses the younger of two deployments exposed at one URL, only while exposure is on', async () => {
    const url = { custom_url: 'https://shop.example.com/' };
    const withUrl = (d: DeploymentRecord, createdAt: string, namespace: string) =>
      ({
        ...d,
        created_at: createdAt,
        source_config: { ...d.source_config, ...url, listener_config: { k8s_namespace: namespace } },
      }) as DeploymentRecord;
    const older = withUrl(deployment(D1, LISTENER, null), '2026-01-01T00:00:00Z', 'default');
    const younger = withUrl(deployment(D2, LISTENER, null), '2026-02-01T00:00:00Z', 'other');
    const { client } = fakeClient({ deployments: [younger, older], revisions: {} });
    const options = { client, listenerId: LISTENER, intervalMs: 10_000, logger: silentLogger() };
    let exposed = true;
    const poller = new Poller({ ...options, collisions: { urls: () => exposed } });
    const byId = new Map((await poller.pollOnce()).deployments.map((d) => [d.deployment.id, d]));
    expect(byId.get(D1)!.refused).toBeUndefined();
    expect(byId.get(D2)!.refused).toEqual({
      code: 'MOORING_E_RENDER_URL_CLAIMED',
      message: expect.stringContaining(`${D1} is older, so ${D2} is refused`),
    });
    // Exposure off: no route is rendered, so nothing is claimed.
    exposed = false;
    expect((await poller.pollOnce()).deployments.every((d) => d.refused === undefined)).toBe(true);
  });

  it('a URL stays with the deployment exposed at it when an older record takes it up', async () => {
    const at = (d: DeploymentRecord, createdAt: string, customUrl: string) =>
      ({
        ...d,
        created_at: createdAt,
        source_config: { ...d.source_config, custom_url: customUrl },
      }) as DeploymentRecord;
    const state = {
      deployments: [
        at(deployment(D1, LISTENER, null), '2026-01-01T00:00:00Z', 'https://a.example.com/'),
        at(deployment(D2, LISTENER, null), '2026-02-01T00:00:00Z', 'https://shop.example.com/'),
      ],
      revisions: {},
    };
    const { client } = fakeClient(state);
    const poller = new Poller({
      client,
      listenerId: LISTENER,
      intervalMs: 10_000,
      logger: silentLogger(),
      collisions: { urls: () => true },
    });
    expect((await poller.pollOnce()).deployments.every((d) => d.refused === undefined)).toBe(true);
    state.deployments[0] = at(
      deployment(D1, LISTENER, null),
      '2026-01-01T00:00:00Z',
      'https://shop.example.com/',
    );
    const byId = new Map((await poller.pollOnce()).deployments.map((d) => [d.deployment.id, d]));
    expect(byId.get(D2)!.refused).toBeUndefined();
    expect(byId.get(D1)!.refused?.code).toBe('MOORING_E_RENDER_URL_CLAIMED');
  });

  it("refuses a deployment named after an older one's objects (`shop-redis`), whichever way round", async () => {
    for (const [olderName, youngerName] of [
      ['shop', 'shop-redis'],
      ['shop-redis', 'shop'],
    ] as const) {
      const older = {
        ...deployment(D1, LISTENER, null),
        name: olderName,
        created_at: '2026-01-01T00:00:00Z',
      };
      const younger = {
        ...deployment(D2, LISTENER, null),
        name: youngerName,
        created_at: '2026-02-01T00:00:00Z',
      };
      const { poller } = setup({ deployments: [younger, older], revisions: {} });
      const byId = new Map((await poller.pollOnce()).deployments.map((d) => [d.deployment.id, d]));
      expect(byId.get(D1)!.refused).toBeUndefined();
      expect(byId.get(D2)!.refused).toEqual({
        code: 'MOORING_E_RENDER_NAME_COLLISION',
        message: expect.stringContaining(`would both use the object name "shop-redis"`),
      });
      expect(byId.get(D2)!.refused!.message).toContain(D1);
    }
  });
});

describe('Poller with a scope (the shards a replica holds)', () => {
  it('reads no revision of a deployment out of scope and hands on only those in scope', async () => {
    const state = {
      deployments: [deployment(D1, LISTENER, R1), deployment(D2, LISTENER, R2)],
      revisions: { [R1]: revision(R1, 'DEPLOYED'), [R2]: revision(R2, 'DEPLOYED') },
    };
    const { client, calls } = fakeClient(state);
    let scope: ((id: string) => boolean) | undefined = (id) => id === D1;
    const listed: number[] = [];
    const poller = new Poller({
      client,
      listenerId: LISTENER,
      intervalMs: 10_000,
      logger: silentLogger(),
      scope: () => scope,
      onListed: (n) => listed.push(n),
    });
    const first = await poller.pollOnce();
    expect(first.deployments.map((d) => d.deployment.id)).toEqual([D1]);
    expect(calls.filter((c) => c.startsWith('rev'))).toEqual([`rev ${R1}`]);
    // The scope grows (a shard taken): the next poll reads the newcomer's revision.
    scope = undefined;
    const second = await poller.pollOnce();
    expect(second.deployments.map((d) => d.deployment.id)).toEqual([D1, D2]);
    expect(calls.filter((c) => c.startsWith('rev'))).toEqual([`rev ${R1}`, `rev ${R2}`]);
    // Every shard's deployments count for the memory budget: a replica may come to hold them all.
    expect(listed).toEqual([2, 2]);
  });
});

describe('Poller: another shard’s records kept as sketches', () => {
  it('keeps only what collisions read of another shard’s record, and judges collisions with it', async () => {
    const older = { ...deployment(D2, LISTENER, R2), name: 'shop', created_at: '2026-01-01T00:00:00Z' };
    const younger = { ...deployment(D1, LISTENER, R1), name: 'shop', created_at: '2026-02-01T00:00:00Z' };
    const state = {
      deployments: [younger, older],
      revisions: { [R1]: revision(R1, 'DEPLOYED'), [R2]: revision(R2, 'DEPLOYED') },
    };
    const { client, calls } = fakeClient(state);
    // What the poller answered for each record it was shown as listed.
    const answered = new Map<string, DeploymentRecord | undefined>();
    const spied: PollClient = {
      ...client,
      listAllDeployments: (filters, options) =>
        client.listAllDeployments(filters, {
          ...options,
          known: (raw) => {
            const held = options?.known?.(raw);
            answered.set((raw as DeploymentRecord).id, held);
            return held;
          },
        }),
    };
    const poller = new Poller({
      client: spied,
      listenerId: LISTENER,
      intervalMs: 10_000,
      logger: silentLogger(),
      scope: () => (id) => id === D1,
    });
    const refusalOf = async () =>
      (await poller.pollOnce()).deployments.find((d) => d.deployment.id === D1)?.refused;
    expect((await refusalOf())?.code).toBe('MOORING_E_RENDER_NAME_COLLISION');
    // Listed again unchanged: another shard's record comes back as its sketch, without its spec.
    expect((await refusalOf())?.code).toBe('MOORING_E_RENDER_NAME_COLLISION');
    const sketch = answered.get(D2);
    expect(sketch).toMatchObject({ id: D2, name: 'shop', created_at: older.created_at });
    expect(sketch).not.toHaveProperty('source_revision_config');
    expect(sketch).not.toHaveProperty('secrets');
    // Renamed without a new updated_at: the sketch differs, the record is parsed, the name is free.
    state.deployments[1] = { ...older, name: 'cafe' };
    expect(await refusalOf()).toBeUndefined();
    expect(answered.get(D2)).toBeUndefined();
    expect(calls.filter((c) => c.startsWith('rev'))).toEqual([`rev ${R1}`]);
  });
});
