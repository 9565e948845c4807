import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerDeployment, type Harness, harness, pagesOf, raw } from './helpers.ts';

describe('paging', () => {
  let h: Harness;
  const ids: string[] = [];

  beforeAll(async () => {
    h = await harness();
    // Creating fast gives many equal created_at values, which the order by insertion sequence
    // must not care about.
    for (let i = 0; i < 250; i++) {
      const d = await h.client.createDeployment(dockerDeployment(`paged-${String(i).padStart(3, '0')}`));
      ids.push(d.id);
    }
  });
  afterAll(async () => {
    await h.close();
  });

  it('walks 250 deployments at limit 100 in 3 pages (3 requests) with no duplicate and no gap, newest first', async () => {
    h.server.resetStats();
    const pages = await pagesOf(h.client.listDeployments({ limit: 100 }));
    expect(h.server.stats().byRoute['GET /v2/deployments']).toBe(3);
    expect(pages.map((p) => p.items.length)).toEqual([100, 100, 50]);
    expect(pages.map((p) => p.offset)).toEqual([100, 200, 250]);
    const seen = pages.flatMap((p) => p.items.map((d) => d.id));
    expect(new Set(seen).size).toBe(250);
    expect(seen).toEqual([...ids].reverse());
  });

  it('reports offset = offset + resources.length on every page, including past the end', async () => {
    const mid = await raw(h.server.url, 'GET', '/v2/deployments?limit=7&offset=245');
    expect(mid.status).toBe(200);
    expect(mid.body).toMatchObject({ offset: 250 });
    expect((mid.body as { resources: unknown[] }).resources).toHaveLength(5);
    const past = await raw(h.server.url, 'GET', '/v2/deployments?offset=1000');
    expect(past.body).toEqual({ resources: [], offset: 1000 });
    const defaults = await raw(h.server.url, 'GET', '/v2/deployments');
    expect((defaults.body as { resources: unknown[] }).resources).toHaveLength(20);
  });

  it('says how many match in X-Total-Count on every list, whatever the page (the body stays the envelope)', async () => {
    const total = async (path: string) => (await raw(h.server.url, 'GET', path)).headers['x-total-count'];
    expect(await total('/v2/deployments?limit=7&offset=245')).toBe('250');
    expect(await total('/v2/deployments?offset=1000')).toBe('250');
    expect(await total('/v2/deployments?limit=3&name_contains=paged-1')).toBe('100');
    expect(await total('/v2/deployments?name=nobody')).toBe('0');
    expect(await total('/v2/listeners?limit=1')).toBe('2');
    const other = await raw(h.server.url, 'GET', '/v2/deployments', {
      headers: { 'x-tenant-id': '99999999-9999-4999-8999-999999999999' },
    });
    expect(other.headers['x-total-count']).toBe('0');
    const revisions = await raw(h.server.url, 'GET', `/v2/deployments/${ids[1]}/revisions`);
    expect(revisions.headers['x-total-count']).toBe('1');
    expect(Object.keys(revisions.body as object).sort()).toEqual(['offset', 'resources']);
    // Errors carry no total.
    const bad = await raw(h.server.url, 'GET', '/v2/deployments?limit=0');
    expect(bad.status).toBe(422);
    expect(bad.headers['x-total-count']).toBeUndefined();
  });

  it('ends on an exactly full last page without an empty request (regression: issue #8, one extra request per listing)', async () => {
    h.server.resetStats();
    const pages = await pagesOf(h.client.listDeployments({ limit: 50 }));
    expect(pages.map((p) => p.items.length)).toEqual([50, 50, 50, 50, 50]);
    expect(h.server.stats().byRoute['GET /v2/deployments']).toBe(5);
  });

  it('pages filtered listings and listeners the same way', async () => {
    h.server.resetStats();
    const filtered = await pagesOf(h.client.listDeployments({ limit: 10, name_contains: 'paged-1' }));
    // paged-199 .. paged-100 (newest first): ten full pages; the total (100) ends the walk on the tenth.
    expect(filtered.flatMap((p) => p.items).map((d) => d.name)).toEqual(
      Array.from({ length: 100 }, (_, i) => `paged-${199 - i}`),
    );
    expect(filtered.length).toBe(10);
    expect(h.server.stats().byRoute['GET /v2/deployments']).toBe(10);
    const listeners = await pagesOf(h.client.listListenerPages(1));
    expect(listeners.map((p) => p.items.length)).toEqual([1, 1]);
    expect(h.server.stats().byRoute['GET /v2/listeners']).toBe(2);
  });

  it('pages revisions', async () => {
    const d = ids[0]!;
    for (let i = 0; i < 5; i++) {
      await h.client.patchDeployment(d, { source_revision_config: { image_uri: `repo/app:${i}` } });
    }
    h.server.resetStats();
    const pages = await pagesOf(h.client.listRevisions(d, { limit: 2 }));
    expect(pages.map((p) => p.items.length)).toEqual([2, 2, 2]);
    expect(h.server.stats().byRoute['GET /v2/deployments/{deployment_id}/revisions']).toBe(3);
    expect(pages.flatMap((p) => p.items.map((r) => r.source_revision_config.image_uri))).toEqual([
      'repo/app:4',
      'repo/app:3',
      'repo/app:2',
      'repo/app:1',
      'repo/app:0',
      'ghcr.io/example/app:1.0.0',
    ]);
  });
});
