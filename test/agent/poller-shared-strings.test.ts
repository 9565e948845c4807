import { describe, expect, it } from 'vitest';
import { Poller, type PollClient } from '../../src/agent/poller.ts';
import type { DeploymentRecord } from '../../src/contract/index.ts';
import { silentLogger } from '../../src/log.ts';
import { heapHeldBy } from '../heap-held.ts';

const LISTENER = '11111111-1111-4111-8111-111111111111';
const RECORDS = 5_000;

/** The JSON text of record `i`, whose image is `image(i)` (51 characters), as are its ten secrets' values (and a digit). */
function recordText(i: number, image: (i: number) => string): string {
  return JSON.stringify({
    id: `aaaaaaaa-0000-4000-8000-${String(i).padStart(12, '0')}`,
    name: `dep-${i}`,
    source: 'external_docker',
    source_config: { listener_id: LISTENER, listener_config: { k8s_namespace: 'default' } },
    source_revision_config: { image_uri: image(i) },
    // Ten values of 52 characters: repeated over the fleet or each its own.
    secrets: Array.from({ length: 10 }, (_, k) => ({ name: `SECRET_${k}`, value: `${image(i)}${k}` })),
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    status: 'READY',
    latest_revision_id: null,
    active_revision_id: null,
  });
}

/** A poller over records parsed anew from their text at each listing, as the client parses them. */
function pollerOver(texts: readonly string[]): Poller {
  const client: PollClient = {
    listAllDeployments: async (_filters, options) => {
      const items = texts.map((t) => {
        const raw = JSON.parse(t) as DeploymentRecord;
        return options?.known?.(raw) ?? raw;
      });
      return { items, rejected: [], unsupported: [] };
    },
    getRevision: async () => {
      throw new Error('no revision is read');
    },
  };
  return new Poller({ client, listenerId: LISTENER, intervalMs: 10_000, logger: silentLogger() });
}

describe('Poller: the records it holds', () => {
  it('holds a value its records repeat once (measured on the heap)', async () => {
    // What a poller holds once its first poll is done, records and all.
    const held = (image: (i: number) => string) => {
      const texts = Array.from({ length: RECORDS }, (_, i) => recordText(i, image));
      return heapHeldBy(async () => {
        const poller = pollerOver(texts);
        await poller.pollOnce();
        return poller;
      });
    };
    // A first poll makes what every poller shares once (compiled schemas, caches): not counted.
    await held((i) => `warm-up-${i}`);
    const repeated = await held(() => 'registry.example.com/infra/log-shipper:3-abcdefgh');
    const distinct = await held(
      (i) => `registry.example.com/infra/log-shipper:3-${String(i).padStart(8, '0')}`,
    );
    // Each copy of a value of 51 or 52 characters is at least 64 bytes: held once, they cost next
    // to nothing (eleven values per record).
    expect(distinct - repeated).toBeGreaterThan(RECORDS * 11 * 48);
  });
});
