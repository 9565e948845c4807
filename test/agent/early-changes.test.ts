import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EARLY_CHANGES_PER_POLL } from '../../src/agent/early-changes.ts';
import { type PollCycle, Poller } from '../../src/agent/poller.ts';
import type { DeploymentRecord } from '../../src/contract/index.ts';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import { silentLogger } from '../../src/log.ts';
import {
  type FakeListingServer,
  fakeListingServer,
  listedDeployment,
  listedRevision,
} from './fake-listing-server.ts';

const LISTENER = 'listener-1';

/** What a consumer of the cycles saw: the ids each cycle handed on, and whether its snapshot came. */
interface Seen {
  handed: string[];
  snapshot: 'waiting' | 'complete' | 'failed';
}

describe('Poller: changes handed on as their page arrives', () => {
  let server: FakeListingServer;
  let client: ControlPlaneClient;
  let cycles: Seen[];
  let poller: Poller;

  beforeEach(async () => {
    // 150 deployments: a page of 100 (offset 0) and one of 50 (offset 100).
    server = await fakeListingServer(Array.from({ length: 150 }, (_, i) => listedDeployment(LISTENER, i)));
    for (let i = 0; i < 150; i++) server.revisions.set(`rev-${i}`, listedRevision(`rev-${i}`));
    client = new ControlPlaneClient({ baseUrl: server.url, apiKey: 'k'.repeat(32), retries: 0 });
    cycles = [];
    poller = new Poller({
      client,
      listenerId: LISTENER,
      intervalMs: 5_000,
      logger: silentLogger(),
      onCycle: async (cycle: PollCycle) => {
        const seen: Seen = { handed: [], snapshot: 'waiting' };
        cycles.push(seen);
        try {
          for await (const d of cycle.desired) seen.handed.push(d.deployment.id);
        } catch {
          // The poll failed: the snapshot says so too.
        }
        seen.snapshot = await cycle.snapshot.then(
          () => 'complete' as const,
          () => 'failed' as const,
        );
      },
    });
    await poller.pollOnce();
  });
  afterEach(async () => {
    await client.close();
    await server.close();
  });

  /** Replaces record `i` with `change` applied. */
  function edit(i: number, change: (d: DeploymentRecord) => DeploymentRecord): string {
    server.records[i] = change(structuredClone(server.records[i]!));
    return server.records[i]!.id;
  }

  /** A new revision for deployment `i`, as a change of its image makes one. */
  function newRevision(i: number): string {
    server.revisions.set(`rev-${i}-2`, listedRevision(`rev-${i}-2`));
    return edit(i, (d) => ({ ...d, latest_revision_id: `rev-${i}-2`, active_revision_id: `rev-${i}-2` }));
  }

  async function until(what: () => boolean): Promise<void> {
    for (let i = 0; i < 500 && !what(); i++) await new Promise((r) => setTimeout(r, 5));
    expect(what()).toBe(true);
  }

  it('hands a changed deployment on before the rest of the listing is read, and once', async () => {
    const changed = newRevision(5);
    const release = server.hold(100);
    const poll = poller.pollOnce();
    await until(() => cycles[1]?.handed.includes(changed) === true);
    // The second page is still held back: the listing is not complete, and only the change went.
    expect(cycles[1]!.snapshot).toBe('waiting');
    expect(cycles[1]!.handed).toEqual([changed]);
    release();
    const snapshot = await poll;
    expect(cycles[1]!.snapshot).toBe('complete');
    expect(cycles[1]!.handed.filter((id) => id === changed)).toHaveLength(1);
    const d = snapshot.deployments.find((x) => x.deployment.id === changed)!;
    expect(d.revision?.id).toBe('rev-5-2');
  });

  it('a deletion, a new deployment, and a change of name or namespace wait for the complete listing', async () => {
    const deleting = edit(3, (d) => ({ ...d, status: 'AWAITING_DELETE' }) as DeploymentRecord);
    const renamed = edit(4, (d) => ({ ...d, name: 'app-4-renamed' }));
    const moved = edit(6, (d) => ({
      ...d,
      source_config: { ...d.source_config, listener_config: { k8s_namespace: 'elsewhere' } },
    }));
    server.records.unshift({ ...listedDeployment(LISTENER, 900) });
    server.revisions.set('rev-900', listedRevision('rev-900'));
    const release = server.hold(100);
    const poll = poller.pollOnce();
    await until(() => server.pagesServed.length >= 3);
    await new Promise((r) => setTimeout(r, 50));
    // Nothing of this poll was handed on: no cycle yet.
    expect(cycles).toHaveLength(1);
    release();
    const snapshot = await poll;
    expect(cycles[1]!.handed).toEqual(expect.arrayContaining([deleting, renamed, moved, 'dep-0900']));
    expect(snapshot.deployments).toHaveLength(151);
  });

  it('a listing that fails after a change went early makes no snapshot (what left it is not dropped)', async () => {
    const changed = newRevision(5);
    server.records.splice(120, 1);
    const release = server.hold(100);
    const poll = poller.pollOnce();
    await until(() => cycles[1]?.handed.includes(changed) === true);
    server.failOnce(100, 400);
    release();
    await expect(poll).rejects.toThrow();
    expect(cycles[1]!.handed).toEqual([changed]);
    expect(cycles[1]!.snapshot).toBe('failed');
  });

  it('hands on at most EARLY_CHANGES_PER_POLL changes early; the rest with the complete listing', async () => {
    const ids = Array.from({ length: EARLY_CHANGES_PER_POLL + 6 }, (_, i) => newRevision(i));
    const release = server.hold(100);
    const poll = poller.pollOnce();
    await until(() => (cycles[1]?.handed.length ?? 0) === EARLY_CHANGES_PER_POLL);
    await new Promise((r) => setTimeout(r, 50));
    expect(cycles[1]!.handed).toHaveLength(EARLY_CHANGES_PER_POLL);
    release();
    await poll;
    for (const id of ids) expect(cycles[1]!.handed.filter((x) => x === id)).toHaveLength(1);
  });
});
