/**
 * List pages are sized by what they carry: a page of whole objects (Deployments of several KB
 * each) holds fewer items than a page of metadata-only entries. Every page is still followed to
 * the end, and a streamed page's items are mapped as they arrive.
 */
import { describe, expect, it } from 'vitest';
import { type KubeHttp, KubeApiError, type KubeRequest } from '../../src/kube/http.ts';
import { LIST_PAGE_SIZE } from '../../src/kube/list-page-size.ts';
import { LIST_RESTARTS, ObjectClient } from '../../src/kube/object-client.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';

/** A KubeHttp that serves `total` Secrets in pages of the size each request asks for. */
function pagedHttp(total: number): { http: KubeHttp; asked: URLSearchParams[] } {
  const asked: URLSearchParams[] = [];
  const request = async (req: KubeRequest) => {
    const query = new URLSearchParams(req.path.split('?')[1] ?? '');
    asked.push(query);
    const limit = Number(query.get('limit'));
    const start = Number(query.get('continue') ?? 0);
    const end = Math.min(total, start + limit);
    const items = Array.from({ length: end - start }, (_, i) => ({ metadata: { name: `s-${start + i}` } }));
    return {
      status: 200,
      body: { items, metadata: end < total ? { continue: String(end) } : {} },
    };
  };
  return { http: { request } as unknown as KubeHttp, asked };
}

describe('list pages', () => {
  it('asks for pages of whole objects smaller than pages of metadata only', () => {
    expect(LIST_PAGE_SIZE.wholeObjects).toBeLessThan(LIST_PAGE_SIZE.metadataOnly);
  });

  it.each([
    ['whole objects', false, LIST_PAGE_SIZE.wholeObjects],
    ['metadata only', true, LIST_PAGE_SIZE.metadataOnly],
  ])('lists %s in pages of that size, to the last page', async (_label, metadataOnly, size) => {
    const total = 2 * size + 7;
    const { http, asked } = pagedHttp(total);
    const seen: string[] = [];
    const each = (o: KubeObject) => {
      seen.push(o.metadata.name ?? '');
      return o;
    };
    const items = await new ObjectClient(http).list('v1', 'Secret', 'ns', 'a=b', each, { metadataOnly });
    expect(asked.map((q) => q.get('limit'))).toEqual([String(size), String(size), String(size)]);
    expect(asked.map((q) => q.get('continue'))).toEqual([null, String(size), String(2 * size)]);
    expect(items).toHaveLength(total);
    expect(seen).toHaveLength(total);
    expect(items[total - 1]).toMatchObject({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `s-${total - 1}` },
    });
  });
});

describe('a list whose continue token expired', () => {
  /** Serves `total` Secrets in pages; the first request with `continue` equal to `expireAt` answers 410 Gone, `times` times. */
  function expiringHttp(total: number, expireAt: string, times: number): { http: KubeHttp; asked: string[] } {
    const asked: string[] = [];
    let expired = 0;
    const request = async (req: KubeRequest) => {
      const query = new URLSearchParams(req.path.split('?')[1] ?? '');
      const token = query.get('continue');
      asked.push(token ?? '');
      if (token === expireAt && expired < times) {
        expired += 1;
        throw new KubeApiError(410, { reason: 'Expired', code: 410 }, 'GET', {});
      }
      const limit = Number(query.get('limit'));
      const start = Number(token ?? 0);
      const end = Math.min(total, start + limit);
      const items = Array.from({ length: end - start }, (_, i) => ({ metadata: { name: `s-${start + i}` } }));
      return { status: 200, body: { items, metadata: end < total ? { continue: String(end) } : {} } };
    };
    return { http: { request } as unknown as KubeHttp, asked };
  }

  it('starts the list over from a fresh snapshot, each item once in the answer', async () => {
    const { http, asked } = expiringHttp(25, '20', 1);
    const pages: number[] = [];
    const items = await new ObjectClient(http).list('v1', 'Secret', 'ns', 'a=b', undefined, {
      pageSize: 10,
      onPage: (page) => {
        pages.push(page.length);
      },
    });
    expect(asked).toEqual(['', '10', '20', '', '10', '20']);
    expect(items.map((o) => o.metadata.name)).toEqual(Array.from({ length: 25 }, (_, i) => `s-${i}`));
    expect(pages).toEqual([10, 10, 10, 10, 5]);
  });

  it('fails once it has started over LIST_RESTARTS times', async () => {
    const { http } = expiringHttp(25, '10', LIST_RESTARTS + 1);
    await expect(
      new ObjectClient(http).list('v1', 'Secret', 'ns', 'a=b', undefined, { pageSize: 10 }),
    ).rejects.toMatchObject({ code: 410 });
  });
});

describe('a streamed list page', () => {
  /** A KubeHttp that hands each item to `onItem` as it "arrives" and answers the rest without them. */
  function streamingHttp(total: number, order: string[]): KubeHttp {
    const request = async (req: KubeRequest) => {
      const query = new URLSearchParams(req.path.split('?')[1] ?? '');
      const start = Number(query.get('continue') ?? 0);
      const end = Math.min(total, start + Number(query.get('limit')));
      for (let i = start; i < end; i += 1) {
        order.push(`arrived s-${i}`);
        req.onItem?.({ metadata: { name: `s-${i}` } });
      }
      order.push('page answered');
      return { status: 200, body: { items: [], metadata: end < total ? { continue: String(end) } : {} } };
    };
    return { request } as unknown as KubeHttp;
  }

  it('maps each item as it arrives, before its page is answered', async () => {
    const order: string[] = [];
    const each = (o: KubeObject) => {
      order.push(`mapped ${o.metadata.name}`);
      return o;
    };
    const items = await new ObjectClient(streamingHttp(3, order)).list('v1', 'Secret', 'ns', '', each, {
      pageSize: 2,
    });
    expect(order).toEqual([
      'arrived s-0',
      'mapped s-0',
      'arrived s-1',
      'mapped s-1',
      'page answered',
      'arrived s-2',
      'mapped s-2',
      'page answered',
    ]);
    expect(items.map((o) => [o.kind, o.metadata.name])).toEqual([
      ['Secret', 's-0'],
      ['Secret', 's-1'],
      ['Secret', 's-2'],
    ]);
  });

  it('gives onPage the page whole, then maps it (a cold start judges each page)', async () => {
    const order: string[] = [];
    const pages: string[][] = [];
    const items = await new ObjectClient(streamingHttp(3, order)).list('v1', 'Secret', 'ns', '', (o) => o, {
      pageSize: 2,
      onPage: (page) => {
        pages.push(page.map((o) => `${o.kind}/${o.metadata.name}`));
      },
    });
    expect(pages).toEqual([['Secret/s-0', 'Secret/s-1'], ['Secret/s-2']]);
    expect(items).toHaveLength(3);
  });
});
