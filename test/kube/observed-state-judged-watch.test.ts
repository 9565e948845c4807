/**
 * A restart whose cold listing keeps no entries (judge-only: at 10,000 deployments under 256 MiB
 * they would not fit beside the live heap) must still reach the watches: otherwise every idle
 * cycle after it lists every object, for as long as the process lives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObservedState } from '../../src/kube/observed-state.ts';
import { ObjectClient } from '../../src/kube/object-client.ts';
import type { ResourceManager } from '../../src/kube/resource-manager.ts';
import { WatchCache } from '../../src/kube/watch-cache.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { basicSet, LISTENER } from './fixtures.ts';
import { kubeOf, managerFor } from './sandbox.ts';

const NS = 'judged';

describe('ObservedState after a judge-only cold listing', () => {
  let api: KubeApi;
  let resources: ResourceManager;
  let watched: WatchCache;
  let observed: ObservedState;
  let entriesFit = false;

  beforeAll(async () => {
    api = await startKubeApi({ namespaces: [NS], watchBookmarkIntervalMs: 100 });
    resources = managerFor(api);
    await resources.applyAll(basicSet(NS));
    watched = new WatchCache({
      client: new ObjectClient(kubeOf(api)),
      namespaces: [NS],
      listenerId: LISTENER,
      backoff: { baseMs: 5, maxMs: 5, jitter: 0 },
    });
    observed = new ObservedState({
      namespaces: [NS],
      listenerId: LISTENER,
      watched,
      coldJudge: () => () => {},
      entriesFit: () => entriesFit,
      memoryShort: () => false,
    });
  });
  afterAll(async () => {
    watched.stop();
    await api.close();
  });

  const cycle = () => observed.refresh((o) => resources.listOwned(o));

  it('keeps entries at the next cycle once they fit, and starts the watches from the one after', async () => {
    expect(await cycle()).toBeUndefined();
    expect(watched.started).toBe(false);
    entriesFit = true;
    expect((await cycle())?.objects).toHaveLength(4);
    // Nothing was written since that listing: the watches start from the next.
    expect(watched.started).toBe(false);
    await cycle();
    expect(watched.started).toBe(true);
  });
});
