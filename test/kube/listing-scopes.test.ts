/**
 * Never two listings at once: a listing tells each (kind, namespace) as soon as it is listed, and
 * the observed state then puts that scope's new entries in place of the previous listing's, so the
 * previous entries of a scope are let go (and the finder sees the new ones) before the whole
 * listing ends.
 */
import { describe, expect, it } from 'vitest';
import { type Inventory, inventoryOf, listOwned } from '../../src/kube/list.ts';
import type { ObjectClient } from '../../src/kube/object-client.ts';
import { ObservedState } from '../../src/kube/observed-state.ts';
import { kindInfo } from '../../src/objects/kinds.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';

const LISTENER = 'l-1';

function service(namespace: string, name: string, version: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name,
      namespace,
      uid: `uid-${namespace}-${name}`,
      resourceVersion: version,
      labels: { 'mooring.dev/deployment-id': `d-${name}` },
    },
  };
}

describe('a listing, scope by scope', () => {
  it('tells each scope its entries as soon as it is listed, before the listing ends', async () => {
    const SERVICE = kindInfo('Service');
    if (!SERVICE) throw new Error('Service is a listed kind');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const list: ObjectClient['list'] = async (_apiVersion, _kind, namespace, _selector, each = (o) => o) => {
      // The second namespace's list call answers only once released.
      if (namespace === 'b') await held;
      return [each(service(namespace, `svc-${namespace}`, '2'))].filter((o) => o !== undefined);
    };
    const told: string[] = [];
    const listing = listOwned({ list } as unknown as ObjectClient, {
      namespaces: ['a', 'b'],
      listenerId: LISTENER,
      kinds: [SERVICE],
      onScope: (kind, namespace, entries) =>
        told.push(`${kind}/${namespace}: ${entries.map((o) => o.metadata.name).join(',')}`),
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(told).toEqual(['Service/a: svc-a']);
    release();
    expect((await listing).objects).toHaveLength(2);
    expect(told).toEqual(['Service/a: svc-a', 'Service/b: svc-b']);
  });

  it("lets a scope's previous entries go, and the finder see its new ones, once it is listed", async () => {
    const state = new ObservedState({ namespaces: ['a', 'b'], listenerId: LISTENER });
    const first = [service('a', 'one', '1'), service('b', 'two', '1')];
    await state.refresh(async () => inventoryOf(first));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let scopeListed!: () => void;
    const listedA = new Promise<void>((r) => (scopeListed = r));
    // The second listing: namespace a is listed (and told), then it waits on namespace b.
    const second = state.refresh(async (opts): Promise<Inventory> => {
      const a = [service('a', 'one', '2')];
      opts.onScope?.('Service', 'a', a);
      scopeListed();
      await held;
      const b = [service('b', 'two', '2')];
      opts.onScope?.('Service', 'b', b);
      return inventoryOf([...a, ...b]);
    });
    await listedA;
    const find = await state.finder();
    expect(find?.('Service', 'a', 'one')?.metadata.resourceVersion).toBe('2');
    expect(find?.('Service', 'b', 'two')?.metadata.resourceVersion).toBe('1');
    release();
    await second;
    expect((await state.finder())?.('Service', 'b', 'two')?.metadata.resourceVersion).toBe('2');
  });
});
