import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerDeployment, type Harness, harness, pagesOf, raw } from './helpers.ts';

describe('paging', () => {
  let h: Harness;
  const ids: string[] = [];

  beforeAll(async () => {
    h = await harness();
    // A fixed clock would make every created_at equal; creating fast gives many ties anyway,
    // which is what the stable (created_at, insertion) order must survive.
    for (let i = 0; i < 250; i++) {
      const d = await h.client.createDeployment(dockerDeployment(`paged-${String(i).padStart(3, '0')}`));
      ids.push(d.id);
    }
  });
  afterAll(async () => {
    await h.close();
  });

  it('walks 250 deployments at limit 100 in 3 pages with no duplicate and no gap, in creation order', async () => {
    const pages = await pagesOf(h.client.listDeployments({ limit: 100 }));
    expect(pages.map((p) => p.items.length)).toEqual([100, 100, 50]);
    expect(pages.map((p) => p.offset)).toEqual([100, 200, 250]);
    const seen = pages.flatMap((p) => p.items.map((d) => d.id));
    expect(new Set(seen).size).toBe(250);
    expect(seen).toEqual(ids);
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

  it('stops after an exactly full last page with one empty request', async () => {
    h.server.resetStats();
    const pages = await pagesOf(h.client.listDeployments({ limit: 50 }));
    expect(pages.map((p) => p.items.length)).toEqual([50, 50, 50, 50, 50, 0]);
    expect(h.server.stats().byRoute['GET /v2/deployments']).toBe(6);
  });

  it('pages filtered listings and listeners the same way', async () => {
    const filtered = await pagesOf(h.client.listDeployments({ limit: 10, name_contains: 'paged-1' }));
    // paged-100 .. paged-199: ten full pages, then one empty page ends the walk.
    expect(filtered.flatMap((p) => p.items).map((d) => d.name)).toEqual(
      Array.from({ length: 100 }, (_, i) => `paged-${100 + i}`),
    );
    expect(filtered.length).toBe(11);
    const listeners = await pagesOf(h.client.listListenerPages(1));
    expect(listeners.map((p) => p.items.length)).toEqual([1, 1, 0]);
  });

  it('pages revisions', async () => {
    const d = ids[0]!;
    for (let i = 0; i < 5; i++) {
      await h.client.patchDeployment(d, { source_revision_config: { image_uri: `repo/app:${i}` } });
    }
    const pages = await pagesOf(h.client.listRevisions(d, { limit: 2 }));
    expect(pages.map((p) => p.items.length)).toEqual([2, 2, 2, 0]);
    expect(pages.flatMap((p) => p.items.map((r) => r.source_revision_config.image_uri))).toEqual([
      'ghcr.io/example/app:1.0.0',
      'repo/app:0',
      'repo/app:1',
      'repo/app:2',
      'repo/app:3',
      'repo/app:4',
    ]);
  });
});
