/**
 * List pages are sized by what they carry: a page is held whole until its items are reduced, so a
 * page of whole objects (Deployments of several KB each) holds fewer items than a page of
 * metadata-only entries. Every page is still followed to the end.
 */
import { describe, expect, it } from 'vitest';
import type { KubeHttp, KubeRequest } from '../../src/kube/http.ts';
import { LIST_PAGE_SIZE, ObjectClient } from '../../src/kube/object-client.ts';
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
