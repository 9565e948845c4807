/**
 * A workload kind's metadata listing stops as soon as more of it changed than are read one by one:
 * the kind is then listed whole, and the metadata pages after that point would only be asked for,
 * parsed and held to be dropped (the peak after a cold convergence, when every workload changed).
 */
import { describe, expect, it } from 'vitest';
import { ListingPool, slim } from '../../src/kube/compact-live.ts';
import { FIELD_MANAGER } from '../../src/kube/labels.ts';
import type { ObjectClient } from '../../src/kube/object-client.ts';
import { pageSizeNow } from '../../src/kube/list-page-size.ts';
import { CARRY_READ_LIMIT, listSlim, previousEntries } from '../../src/kube/slim-listing.ts';
import { inventoryOf } from '../../src/kube/list.ts';
import { kindInfo } from '../../src/objects/kinds.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';

const NS = 'stop';
const DEPLOYMENT = kindInfo('Deployment');

function workload(i: number, version: string): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `w-${i}`, namespace: NS, uid: `uid-${i}`, resourceVersion: version },
    spec: { replicas: 1 },
    status: { replicas: 1, readyReplicas: 1 },
  };
}

/** A server of `objects` in pages (`limit` items), noting each list call and page. */
function fakeClient(objects: KubeObject[]): { client: ObjectClient; pages: string[] } {
  const pages: string[] = [];
  const list: ObjectClient['list'] = async (
    _apiVersion,
    _kind,
    _ns,
    _selector,
    each = (o) => o,
    opts = {},
  ) => {
    const limit = pageSizeNow(opts.pageSize ?? 100);
    const out: KubeObject[] = [];
    for (let at = 0; at < objects.length; at += limit) {
      pages.push(`${opts.metadataOnly ? 'metadata' : 'whole'}@${at}`);
      // Each answer is new objects, as a parsed body would be; metadata only drops spec and status.
      const items = objects.slice(at, at + limit).map((o) => {
        const copy = structuredClone(o);
        if (opts.metadataOnly) {
          delete copy.spec;
          delete copy.status;
        }
        return copy;
      });
      for (const item of items) {
        const entry = each(item);
        if (entry !== undefined) out.push(entry);
      }
    }
    return out;
  };
  const get: ObjectClient['get'] = async () => {
    throw new Error('no object is read one by one here');
  };
  return { client: { list, get } as unknown as ObjectClient, pages };
}

describe('a workload listing with more changes than are read one by one', () => {
  it('stops its metadata listing at the page where the changes passed the limit', async () => {
    if (!DEPLOYMENT) throw new Error('Deployment is a listed kind');
    const count = 1000;
    const before = Array.from({ length: count }, (_, i) => workload(i, '1'));
    const previous = previousEntries(inventoryOf(before.map((o) => slim(o, FIELD_MANAGER))));
    // Every workload changed since (as after a cold convergence): all have a new version.
    const now = Array.from({ length: count }, (_, i) => workload(i, '2'));
    const { client, pages } = fakeClient(now);
    const listed = await listSlim({
      client,
      kind: DEPLOYMENT,
      namespace: NS,
      selector: '',
      fieldManager: FIELD_MANAGER,
      pool: new ListingPool(),
      previous,
      check: () => {},
    });
    // The first metadata page already holds more than CARRY_READ_LIMIT changes.
    expect(CARRY_READ_LIMIT).toBeLessThan(200);
    expect(pages.filter((p) => p.startsWith('metadata'))).toEqual(['metadata@0']);
    expect(pages.filter((p) => p.startsWith('whole'))).toHaveLength(10);
    expect(listed).toHaveLength(count);
    expect(listed.every((o) => o.metadata.resourceVersion === '2' && o.status !== undefined)).toBe(true);
  });
});
