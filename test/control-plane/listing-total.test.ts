/**
 * The listing total (ADR 0003): the reference server's `X-Total-Count` lets the client end a walk
 * on a full last page, so a listing of N costs ceil(N/limit) requests (issue #8); a server that
 * sends no total, or a wrong one, still gives complete listings by the short-page rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeploymentFilters } from '../../src/contract/index.ts';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import { type PageFacts, pageVerdict, parseTotalCount } from '../../src/control-plane/listing-total.ts';
import { DEFAULT_TENANT_ID } from '../../src/control-plane/server/index.ts';
import { createLogger } from '../../src/log.ts';
import { type HeaderProxy, startHeaderProxy } from './header-proxy.ts';
import { API_KEY, dockerDeployment, type Harness, harness } from './helpers.ts';

describe('parseTotalCount', () => {
  it.each([
    ['0', 0],
    ['250', 250],
    ['007', 7],
    ['9007199254740991', 9007199254740991],
  ])('reads %j as %d', (value, total) => {
    expect(parseTotalCount(value)).toBe(total);
  });

  it.each([
    [undefined],
    [''],
    ['abc'],
    ['-1'],
    ['+5'],
    ['1e3'],
    ['12.5'],
    ['0x10'],
    ['1 000'],
    ['9007199254740993'],
    ['99999999999999999999'],
    [['250', '250']],
  ])('gives no total for %j', (value) => {
    expect(parseTotalCount(value)).toBeUndefined();
  });
});

describe('pageVerdict', () => {
  const full = (over: Partial<PageFacts>): PageFacts => ({
    limit: 100,
    requestedOffset: 900,
    count: 100,
    nextOffset: 1000,
    totalHeader: undefined,
    ...over,
  });

  it('a short page is the last whatever the total says (a header never extends a walk)', () => {
    for (const totalHeader of [undefined, '5000', 'junk', '0']) {
      expect(pageVerdict(full({ count: 40, nextOffset: 940, totalHeader }))).toEqual({
        last: true,
        endedBy: 'short',
      });
    }
  });

  it('a full page that reaches the total exactly ends the walk', () => {
    expect(pageVerdict(full({ totalHeader: '1000' }))).toEqual({ last: true, endedBy: 'total' });
  });

  it('a full page reads on when the total is absent or larger', () => {
    expect(pageVerdict(full({}))).toEqual({ last: false });
    expect(pageVerdict(full({ totalHeader: '1001' }))).toEqual({ last: false });
  });

  it('a full page reads on, noting why, when the total is unparsable, too small, or the offset does not follow', () => {
    expect(pageVerdict(full({ totalHeader: 'many' }))).toEqual({ last: false, ignoredTotal: 'unparsable' });
    expect(pageVerdict(full({ totalHeader: ['1000', '1000'] }))).toEqual({
      last: false,
      ignoredTotal: 'unparsable',
    });
    expect(pageVerdict(full({ totalHeader: '999' }))).toEqual({
      last: false,
      ignoredTotal: 'smaller than the records received',
    });
    expect(pageVerdict(full({ totalHeader: '0' }))).toEqual({
      last: false,
      ignoredTotal: 'smaller than the records received',
    });
    expect(pageVerdict(full({ totalHeader: '1000', nextOffset: 1003 }))).toEqual({
      last: false,
      ignoredTotal: 'page offset does not follow',
    });
  });

  it('counts refused records with kept ones: a page of 100 sent records is full', () => {
    // The client passes items + rejected as `count`; 100 sent with a total of 100 ends the walk.
    expect(
      pageVerdict(full({ requestedOffset: 0, count: 100, nextOffset: 100, totalHeader: '100' })),
    ).toEqual({
      last: true,
      endedBy: 'total',
    });
  });
});

describe('listing requests against the reference server and servers without (or with a wrong) total', () => {
  let h: Harness;
  let proxy: HeaderProxy;
  let viaProxy: ControlPlaneClient;
  /** Ids newest first (the order the server lists), by deployment_type: 200 dev_free, 250 prod, 550 dev (1,000 in all). */
  const byType: Record<'dev_free' | 'prod' | 'dev', string[]> = { dev_free: [], prod: [], dev: [] };
  const all: string[] = [];

  beforeAll(async () => {
    h = await harness();
    for (let i = 0; i < 1000; i++) {
      // Interleaved, so each filtered listing pages over rows spread through the whole table.
      const k = i % 20;
      const type = k < 4 ? 'dev_free' : k < 9 ? 'prod' : 'dev';
      const body = dockerDeployment(`listed-${String(i).padStart(4, '0')}`);
      body.source_config = { ...body.source_config, deployment_type: type };
      const d = h.server.store.deployments.create(body, { tenantId: DEFAULT_TENANT_ID });
      byType[type].unshift(d.id);
      all.unshift(d.id);
    }
    proxy = await startHeaderProxy(h.server.url, (total) => total);
    viaProxy = new ControlPlaneClient({ baseUrl: proxy.url, apiKey: API_KEY, retries: 0 });
  }, 60_000);

  afterAll(async () => {
    await viaProxy?.close();
    await proxy?.close();
    await h?.close();
  });

  async function listed(client: ControlPlaneClient, filters: DeploymentFilters = {}) {
    h.server.resetStats();
    const listing = await client.listAllDeployments(filters);
    return {
      ids: listing.items.map((d) => d.id),
      requests: h.server.stats().byRoute['GET /v2/deployments'] ?? 0,
    };
  }

  it('the sizes are what the tests below assume', () => {
    expect([byType.dev_free.length, byType.prod.length, byType.dev.length]).toEqual([200, 250, 550]);
  });

  it('lists 1,000 deployments at limit 100 in exactly 10 requests, none lost or repeated (issue #8)', async () => {
    const { ids, requests } = await listed(h.client);
    expect(requests).toBe(10);
    expect(ids).toEqual(all);
  });

  it('lists 250 in 3 requests, 200 in 2 and 550 in 6', async () => {
    for (const [type, want] of [
      ['prod', 3],
      ['dev_free', 2],
      ['dev', 6],
    ] as const) {
      const { ids, requests } = await listed(h.client, { deployment_type: type });
      expect({ type, requests }).toEqual({ type, requests: want });
      expect(ids).toEqual(byType[type]);
    }
  });

  it('a server that sends no total: complete listings by the short-page rule (one empty request after a full last page)', async () => {
    proxy.rewrite = () => undefined;
    try {
      expect(await listed(viaProxy)).toEqual({ ids: all, requests: 11 });
      expect(await listed(viaProxy, { deployment_type: 'prod' })).toEqual({ ids: byType.prod, requests: 3 });
      expect(await listed(viaProxy, { deployment_type: 'dev_free' })).toEqual({
        ids: byType.dev_free,
        requests: 3,
      });
    } finally {
      proxy.rewrite = (total) => total;
    }
  });

  // Each lie must cost requests, never records: the walk falls back to the short-page rule.
  const lies: [string, (total: string | undefined, url: URL) => string | string[] | undefined][] = [
    ['garbage', () => 'lots'],
    ['negative', () => '-1'],
    ['fractional', () => '1000.0'],
    ['an exponent', () => '1e3'],
    ['empty', () => ''],
    ['repeated', (total) => [total ?? '', total ?? '']],
    ['zero', () => '0'],
    ['smaller than the first page', () => '99'],
    [
      'the request offset (always below what was received)',
      (_t, url) => url.searchParams.get('offset') ?? '0',
    ],
    ['far too large', () => '1000000'],
  ];

  it.each(lies)('a total that is %s loses nothing', async (_name, lie) => {
    proxy.rewrite = lie;
    try {
      expect(await listed(viaProxy)).toEqual({ ids: all, requests: 11 });
      expect(await listed(viaProxy, { deployment_type: 'prod' })).toEqual({ ids: byType.prod, requests: 3 });
      expect(await listed(viaProxy, { deployment_type: 'dev_free' })).toEqual({
        ids: byType.dev_free,
        requests: 3,
      });
    } finally {
      proxy.rewrite = (total) => total;
    }
  });

  it('an ignored total is logged at debug level with its reason, and the key never', async () => {
    const lines: string[] = [];
    const logged = new ControlPlaneClient({
      baseUrl: proxy.url,
      apiKey: API_KEY,
      retries: 0,
      logger: createLogger({ level: 'debug', destination: { write: (s: string) => lines.push(s) } }),
    });
    proxy.rewrite = (_total, url) => (url.searchParams.get('offset') === '100' ? '0' : 'lots');
    try {
      expect((await logged.listAllDeployments({ deployment_type: 'prod' })).items).toHaveLength(250);
    } finally {
      proxy.rewrite = (total) => total;
      await logged.close();
    }
    const ignored = lines.filter((l) => l.includes('listing total header ignored')).map((l) => JSON.parse(l));
    // Two full pages carried a wrong total; the short third page ended the walk without a word.
    expect(ignored.map((l) => [l.offset, l.reason])).toEqual([
      [0, 'unparsable'],
      [100, 'smaller than the records received'],
    ]);
    expect(lines.join('')).not.toContain(API_KEY);
  });

  it('through the proxy passing the total on, the count is the reference server’s again', async () => {
    expect(await listed(viaProxy)).toEqual({ ids: all, requests: 10 });
  });
});
