/**
 * List responses: items are the stored objects without apiVersion and kind, and a list always
 * shows each object's latest version (the sandbox reuses an item's encoding while it is unchanged).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, MERGE, type Sandbox, startSandbox } from './helpers.ts';

const CM = '/api/v1/namespaces/default/configmaps';

describe('list items', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });

  it('a list after a write shows the new version; unchanged items are served as before', async () => {
    for (const name of ['li-a', 'li-b']) {
      const res = await sb.call('POST', CM, { metadata: { name, labels: { t: 'li' } }, data: { v: '1' } });
      expect(res.status).toBe(201);
    }
    const first = await sb.call('GET', `${CM}?labelSelector=t%3Dli`);
    const items = first.body.items as Json[];
    expect(first.body.kind).toBe('ConfigMapList');
    expect(first.body.apiVersion).toBe('v1');
    expect(items.map((i) => i.metadata.name)).toEqual(['li-a', 'li-b']);
    for (const item of items) {
      expect(item.apiVersion).toBeUndefined();
      expect(item.kind).toBeUndefined();
    }
    const patched = await sb.call('PATCH', `${CM}/li-b`, { data: { v: '2' } }, MERGE);
    expect(patched.status).toBe(200);
    const second = await sb.call('GET', `${CM}?labelSelector=t%3Dli`);
    const [a, b] = second.body.items as Json[];
    expect(a).toEqual(items[0]);
    expect(b.data).toEqual({ v: '2' });
    expect(b.metadata.resourceVersion).toBe((patched.body as Json).metadata.resourceVersion);
    const got = await sb.call('GET', `${CM}/li-b`);
    const { apiVersion: _v, kind: _k, ...rest } = got.body;
    expect(b).toEqual(rest);
  });
});
