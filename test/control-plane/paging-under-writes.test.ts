/**
 * Newest-first paging while records are added and removed (docs/control-plane.md, "Order and
 * paging"; ADR 0011): an insert during a walk repeats one record at a page boundary and hides
 * none; a removal ahead of the read position would hide one, so the client walks again when the
 * total falls, and never returns a listing that may have missed a record.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ControlPlaneClient, LISTING_WALKS } from '../../src/control-plane/client.ts';
import { DEFAULT_TENANT_ID } from '../../src/control-plane/server/index.ts';
import { API_KEY, dockerDeployment, type Harness, harness, raw } from './helpers.ts';

describe('paging under concurrent writes', () => {
  let h: Harness | undefined;
  let client: ControlPlaneClient | undefined;
  afterEach(async () => {
    await client?.close();
    await h?.close();
    client = undefined;
    h = undefined;
  });

  async function seeded(n: number) {
    h = await harness({ server: { deletedRetentionSeconds: 0 } });
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      ids.push(
        h.server.store.deployments.create(dockerDeployment(`w-${i}`), { tenantId: DEFAULT_TENANT_ID }).id,
      );
    }
    return ids;
  }

  /** A client whose hook runs `between(n)` after the n-th deployments page arrives. */
  function hookedClient(between: (page: number) => void) {
    let page = 0;
    client = new ControlPlaneClient({
      baseUrl: h!.server.url,
      apiKey: API_KEY,
      retries: 0,
      onRequest: (e) => {
        if (e.route === '/v2/deployments' && e.status === 200) between(++page);
      },
    });
    return client;
  }

  it('raw offsets: an insert between pages repeats the boundary record and hides none', async () => {
    const ids = await seeded(5);
    const first = await raw(h!.server.url, 'GET', '/v2/deployments?limit=2&offset=0');
    h!.server.store.deployments.create(dockerDeployment('late'), { tenantId: DEFAULT_TENANT_ID });
    const second = await raw(h!.server.url, 'GET', '/v2/deployments?limit=2&offset=2');
    const idsOf = (r: typeof first) => (r.body as { resources: { id: string }[] }).resources.map((d) => d.id);
    expect(idsOf(first)).toEqual([ids[4], ids[3]]);
    expect(idsOf(second)).toEqual([ids[3], ids[2]]);
  });

  it('the client keeps one copy of a record repeated by an insert, and misses none of the others', async () => {
    const ids = await seeded(250);
    const c = hookedClient((page) => {
      if (page === 1)
        h!.server.store.deployments.create(dockerDeployment('late'), { tenantId: DEFAULT_TENANT_ID });
    });
    h!.server.resetStats();
    const listing = await c.listAllDeployments();
    const got = listing.items.map((d) => d.id);
    expect(new Set(got).size).toBe(got.length);
    for (const id of ids) expect(got).toContain(id);
    // 100 + 100 + 51 records: the repeated one costs nothing but its bytes.
    expect(h!.server.stats().byRoute['GET /v2/deployments']).toBe(3);
  });

  it('a removal ahead of the read position makes the client walk again; the listing it returns is complete', async () => {
    const ids = await seeded(250);
    const newest = ids.at(-1)!;
    const c = hookedClient((page) => {
      // After the first page, the newest record (already read) is deleted and purged: every
      // later record moves one place forward, and the first of page two would be skipped.
      if (page === 1) {
        h!.server.store.deployments.markForDeletion(newest, undefined);
        h!.server.store.lifecycle.purgeDeletedBefore(new Date(Date.now() + 1000).toISOString());
      }
    });
    h!.server.resetStats();
    const listing = await c.listAllDeployments();
    const got = new Set(listing.items.map((d) => d.id));
    expect(got.size).toBe(249);
    for (const id of ids.slice(0, -1)) expect(got.has(id)).toBe(true);
    // Two pages of the first walk (the second showed the fallen total), three of the second.
    expect(h!.server.stats().byRoute['GET /v2/deployments']).toBe(5);
  });

  it('a purge so large that the total falls below what the walk received is still caught (no record skipped)', async () => {
    const ids = await seeded(250);
    // The 100 newest, all read on page one, purged after page two: the total (150) falls below
    // the 200 received, and the 50 oldest move forward past the read position.
    const c = hookedClient((page) => {
      if (page === 2) {
        for (const id of ids.slice(-100)) h!.server.store.deployments.markForDeletion(id, undefined);
        h!.server.store.lifecycle.purgeDeletedBefore(new Date(Date.now() + 1000).toISOString());
      }
    });
    const listing = await c.listAllDeployments();
    expect(listing.items.map((d) => d.id).sort()).toEqual(ids.slice(0, 150).sort());
  });

  it(`a listing that keeps shifting fails after ${LISTING_WALKS} walks (MOORING_E_CP_LISTING_SHIFTED) rather than come back incomplete`, async () => {
    const ids = await seeded(300);
    let next = ids.length - 1;
    const c = hookedClient(() => {
      const id = ids[next--]!;
      h!.server.store.deployments.markForDeletion(id, undefined);
      h!.server.store.lifecycle.purgeDeletedBefore(new Date(Date.now() + 1000).toISOString());
    });
    await expect(c.listAllDeployments()).rejects.toMatchObject({ code: 'MOORING_E_CP_LISTING_SHIFTED' });
  });
});
