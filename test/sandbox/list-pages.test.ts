/**
 * Paging a collection (limit/continue) as the API server does: every matching object exactly once,
 * in etcd's key order (`<namespace>/<name>`), with `remainingItemCount` only for a list without
 * selectors; and a page reflects the writes made since the previous one.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findByKind } from '../../src/sandbox/resources.ts';
import { Store, storeKey } from '../../src/sandbox/store.ts';
import type { StoredObject } from '../../src/sandbox/types.ts';
import { type Sandbox, startSandbox } from './helpers.ts';

type Page = { items: { metadata: { name: string; namespace: string } }[]; metadata: Record<string, unknown> };

/** Every page of `path` (which carries its own query) with `limit`, following continue tokens. */
async function pages(sb: Sandbox, path: string, limit: number): Promise<Page[]> {
  const out: Page[] = [];
  let token: string | undefined;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await sb.call('GET', `${path}${sep}limit=${limit}${token ? `&continue=${token}` : ''}`);
    expect(res.status).toBe(200);
    const page = res.body as unknown as Page;
    out.push(page);
    token = page.metadata.continue as string | undefined;
  } while (token);
  return out;
}

const names = (ps: Page[]) =>
  ps.flatMap((p) => p.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`));

describe('sandbox list pages', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['a', 'a-b'] });
    for (const ns of ['a', 'a-b']) {
      for (let i = 0; i < 12; i++) {
        const res = await sb.call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
          metadata: { name: `cm-${String(i).padStart(2, '0')}`, labels: { parity: i % 2 ? 'odd' : 'even' } },
        });
        expect(res.status).toBe(201);
      }
    }
  });
  afterAll(async () => {
    await sb.close();
  });

  it('pages through a namespace once, counting what remains when there is no selector', async () => {
    const ps = await pages(sb, '/api/v1/namespaces/a/configmaps', 5);
    // Every namespace also holds the root CA ConfigMap its controller creates.
    expect(names(ps)).toEqual([
      ...Array.from({ length: 12 }, (_, i) => `a/cm-${String(i).padStart(2, '0')}`),
      'a/kube-root-ca.crt',
    ]);
    expect(ps.map((p) => p.metadata.remainingItemCount)).toEqual([8, 3, undefined]);
  });

  it('pages through the matches of a label selector once, without a remaining count', async () => {
    const ps = await pages(sb, '/api/v1/namespaces/a/configmaps?labelSelector=parity%3Dodd', 4);
    expect(names(ps)).toEqual(['01', '03', '05', '07', '09', '11'].map((n) => `a/cm-${n}`));
    expect(ps.map((p) => p.items.length)).toEqual([4, 2]);
    expect(ps.every((p) => p.metadata.remainingItemCount === undefined)).toBe(true);
  });

  it('pages across namespaces in key order: a-b/... before a/...', async () => {
    const ps = await pages(sb, '/api/v1/configmaps', 5);
    const all = names(ps).filter((n) => n.startsWith('a/') || n.startsWith('a-b/'));
    // 12 ConfigMaps and the root CA one in each namespace.
    expect(all).toHaveLength(26);
    expect(new Set(all).size).toBe(26);
    expect(all.slice(0, 13).every((n) => n.startsWith('a-b/'))).toBe(true);
    expect(all).toEqual([...all].sort());
  });

  it('a page after a write sees it', async () => {
    const first = await pages(sb, '/api/v1/namespaces/a/configmaps', 100);
    expect(names(first)).not.toContain('a/cm-50');
    await sb.call('POST', '/api/v1/namespaces/a/configmaps', { metadata: { name: 'cm-50' } });
    const second = await pages(sb, '/api/v1/namespaces/a/configmaps', 100);
    expect(names(second)).toContain('a/cm-50');
    await sb.call('DELETE', '/api/v1/namespaces/a/configmaps/cm-50');
    const third = await pages(sb, '/api/v1/namespaces/a/configmaps', 100);
    expect(names(third)).not.toContain('a/cm-50');
  });
});

describe('store key index', () => {
  const type = findByKind('v1', 'ConfigMap');
  const object = (namespace: string, name: string): StoredObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace, name },
  });

  it('lists and ranges as sorting the live objects would, through any adds and removes', () => {
    if (!type) throw new Error('ConfigMap is served');
    const op = fc.record({
      add: fc.boolean(),
      namespace: fc.constantFrom('a', 'a-b', 'ab', 'b'),
      name: fc.constantFrom('x', 'x-1', 'x1', 'y', 'z0'),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.constantFrom('a', 'a-b', 'ab', 'b'), (ops, ns) => {
        const store = new Store();
        const live = new Map<string, StoredObject>();
        let rv = 0;
        for (const o of ops) {
          const obj = object(o.namespace, o.name);
          const key = storeKey(obj);
          if (o.add) {
            store.put(type, obj, ++rv);
            live.set(key, obj);
          } else {
            store.remove(type, live.get(key) ?? obj, ++rv);
            live.delete(key);
          }
        }
        const sorted = [...live.keys()].sort();
        expect(store.list(type, undefined).map(storeKey)).toEqual(sorted);
        expect(store.list(type, ns).map(storeKey)).toEqual(sorted.filter((k) => k.startsWith(`${ns}/`)));
        const after = `${ns}/x1`;
        const range = store.keyRange(type, ns, after);
        expect(range.keys.slice(range.from, range.to)).toEqual(
          sorted.filter((k) => k.startsWith(`${ns}/`) && k > after),
        );
      }),
    );
  });
});
