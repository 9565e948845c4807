import { describe, expect, it } from 'vitest';
import { MooringError } from '../../src/errors.ts';
import { LIST_CONCURRENCY, listOwned } from '../../src/kube/list.ts';
import type { ObjectClient } from '../../src/kube/object-client.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { LISTENER } from './fixtures.ts';

/** An ObjectClient whose list answers `items` (through `each`, as the real one does) or throws `error`. */
function client(behaviour: { items?: KubeObject[]; error?: unknown }): ObjectClient {
  return {
    list: async (
      apiVersion: string,
      kind: string,
      _ns: string,
      _sel: string,
      each: (o: KubeObject) => KubeObject = (o) => o,
    ) => {
      if (behaviour.error) throw behaviour.error;
      return (behaviour.items ?? []).map((o) => each({ ...o, apiVersion, kind }));
    },
  } as unknown as ObjectClient;
}

describe('listOwned refusals', () => {
  it("wraps a client's own MooringError (e.g. its credentials) as an incomplete listing", async () => {
    const error = new MooringError('MOORING_E_KUBE_UNREACHABLE', 'exec credential plugin: exited 1');
    await expect(
      listOwned(client({ error }), { namespaces: ['ns'], listenerId: LISTENER }),
    ).rejects.toMatchObject({
      code: 'MOORING_E_PRUNE_LISTING_INCOMPLETE',
      message: expect.stringMatching(/list failed \(MOORING_E_KUBE_UNREACHABLE\)/),
    });
  });

  it('refuses a listing with a nameless item, saying so', async () => {
    const nameless = { apiVersion: 'v1', kind: 'Service', metadata: {} } as KubeObject;
    await expect(
      listOwned(client({ items: [nameless] }), { namespaces: ['ns'], listenerId: LISTENER }),
    ).rejects.toMatchObject({
      code: 'MOORING_E_PRUNE_LISTING_INCOMPLETE',
      message: expect.stringMatching(/an item without a name/),
    });
  });
});

describe('listOwned pacing', () => {
  /**
   * A client whose list calls take a while (`delayMs`, given how many calls came so far), counting
   * the most in flight at once.
   */
  function paced(delayMs: (calls: number) => number = () => 2) {
    const seen = { inFlight: 0, most: 0, calls: [] as string[] };
    const pacing = {
      list: async (apiVersion: string, kind: string, namespace: string) => {
        seen.calls.push(`${namespace}/${kind}`);
        seen.inFlight++;
        seen.most = Math.max(seen.most, seen.inFlight);
        await new Promise((resolve) => setTimeout(resolve, delayMs(seen.calls.length)));
        seen.inFlight--;
        return [{ apiVersion, kind, metadata: { name: `${namespace}-${kind}`.toLowerCase(), namespace } }];
      },
    } as unknown as ObjectClient;
    return { seen, pacing };
  }

  it('keeps as few list calls in flight as it is told (fewer while the heap is tight), never none', async () => {
    for (const [concurrency, most] of [
      [1, 1],
      [2, 2],
      [0, 1],
    ]) {
      const { seen, pacing } = paced();
      await listOwned(pacing, { namespaces: ['a'], listenerId: LISTENER, concurrency });
      expect(seen.most).toBe(most);
    }
  });

  it('asks again how many calls may be in flight as each call ends (the heap filled meanwhile)', async () => {
    const { seen, pacing } = paced();
    const inFlightAtStart: number[] = [];
    const wrapped = {
      list: (...args: Parameters<ObjectClient['list']>) => {
        inFlightAtStart.push(seen.inFlight);
        return pacing.list(...args);
      },
    } as unknown as ObjectClient;
    let asked = 0;
    // Three at first; from the first call's end on, one.
    await listOwned(wrapped, {
      namespaces: ['a', 'b'],
      listenerId: LISTENER,
      concurrency: () => (asked++ === 0 ? 3 : 1),
    });
    expect(asked).toBeGreaterThan(1);
    expect(seen.most).toBe(3);
    // The first three start together; once two of them are still running, none starts beside them.
    expect(inFlightAtStart.slice(0, 3)).toEqual([0, 1, 2]);
    expect(Math.max(...inFlightAtStart.slice(3))).toBeLessThanOrEqual(2);
    expect(inFlightAtStart.slice(-4)).toEqual([0, 0, 0, 0]);
    expect(seen.calls.length).toBeGreaterThan(8);
  });

  it('starts no more list calls once one has failed', async () => {
    let started = 0;
    const failing = {
      list: async () => {
        started++;
        await new Promise((resolve) => setTimeout(resolve, 2));
        throw new Error('connection reset');
      },
    } as unknown as ObjectClient;
    await expect(
      listOwned(failing, { namespaces: ['a', 'b', 'c'], listenerId: LISTENER, concurrency: 2 }),
    ).rejects.toMatchObject({ code: 'MOORING_E_PRUNE_LISTING_INCOMPLETE' });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(started).toBeLessThanOrEqual(3);
  });

  it('keeps at most LIST_CONCURRENCY list calls in flight, and keeps the listing in order', async () => {
    // Later calls answer sooner, so an order kept by arrival would show.
    const { seen, pacing } = paced((calls) => 20 - calls);
    const listed = await listOwned(pacing, { namespaces: ['a', 'b'], listenerId: LISTENER });
    expect(seen.most).toBe(LIST_CONCURRENCY);
    // Every kind of both namespaces, namespace by namespace, in the order asked.
    expect(seen.calls.length).toBeGreaterThan(2 * LIST_CONCURRENCY);
    expect(listed.objects.map((o) => `${o.metadata.namespace}/${o.kind}`)).toEqual(seen.calls);
  });
});
