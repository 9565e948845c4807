import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ListingPages } from '../../src/agent/listing-pages.ts';
import { Poller } from '../../src/agent/poller.ts';
import type { DeploymentRecord, ParsedPage } from '../../src/contract/index.ts';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import type { PageMemo } from '../../src/control-plane/page-memo.ts';
import { silentLogger } from '../../src/log.ts';
import {
  type FakeListingServer,
  fakeListingServer,
  listedDeployment,
  listedRevision,
} from './fake-listing-server.ts';

const LISTENER = 'listener-1';

/** `memo`, counting the pages it gave back and the pages parsed (noted). */
function counting(memo: PageMemo<DeploymentRecord>) {
  const counts = { recalled: 0, parsed: 0 };
  const wrapped: PageMemo<DeploymentRecord> = {
    recall(digest) {
      const page = memo.recall(digest);
      if (page) counts.recalled++;
      return page;
    },
    note(digest, page: ParsedPage<DeploymentRecord>) {
      counts.parsed++;
      memo.note(digest, page);
    },
  };
  return { counts, wrapped };
}

describe('ListingPages: pages remembered by their bytes', () => {
  let server: FakeListingServer;
  let client: ControlPlaneClient;

  beforeEach(async () => {
    // 150 records: a page of 100 and one of 50.
    server = await fakeListingServer(Array.from({ length: 150 }, (_, i) => listedDeployment(LISTENER, i)));
    client = new ControlPlaneClient({ baseUrl: server.url, apiKey: 'k'.repeat(32), retries: 0 });
  });
  afterEach(async () => {
    await client.close();
    await server.close();
  });

  /** One listing through `pages`, its records then held as the poller holds them. */
  async function list(pages: ListingPages) {
    const { counts, wrapped } = counting(pages);
    let compared = 0;
    const held = new Map<string, DeploymentRecord>();
    const known = (raw: unknown) => {
      compared++;
      const h = held.get((raw as { id: string }).id);
      return h && JSON.stringify(h) === JSON.stringify(raw) ? h : undefined;
    };
    const listing = await client.listAllDeployments({}, { memo: wrapped, known: (raw) => known(raw) });
    return { listing, counts, compared: () => compared, held };
  }

  it('an unchanged page is neither parsed nor validated again; a page with one byte changed is', async () => {
    const pages = new ListingPages();
    const first = await list(pages);
    expect(first.counts).toEqual({ recalled: 0, parsed: 2 });
    pages.settle(new Map(first.listing.items.map((d) => [d.id, d])));
    expect(pages.size).toBe(2);

    const second = await list(pages);
    expect(second.counts).toEqual({ recalled: 2, parsed: 0 });
    expect(second.compared()).toBe(0);
    for (const [i, d] of second.listing.items.entries()) expect(d).toBe(first.listing.items[i]);
    pages.settle(new Map(second.listing.items.map((d) => [d.id, d])));

    // One character of one record of the second page: that page alone is parsed again.
    const changed = server.records[120]!;
    server.records[120] = { ...changed, source_revision_config: { image_uri: 'img:X' } } as DeploymentRecord;
    const third = await list(pages);
    expect(third.counts).toEqual({ recalled: 1, parsed: 1 });
    expect(third.listing.items[120]).not.toBe(first.listing.items[120]);
    expect(third.listing.items[120]!.source_revision_config).toEqual({ image_uri: 'img:X' });
    for (const [i, d] of third.listing.items.slice(0, 100).entries()) expect(d).toBe(first.listing.items[i]);
  });

  it('gives a page back only while every record it gave is the one held (a record not kept: parsed again)', async () => {
    const pages = new ListingPages();
    const first = await list(pages);
    const held = new Map(first.listing.items.map((d) => [d.id, d]));
    // The poller did not keep one record of the first page (refused, or waiting for memory).
    held.delete(first.listing.items[7]!.id);
    pages.settle(held);
    expect(pages.size).toBe(1);
    const second = await list(pages);
    expect(second.counts).toEqual({ recalled: 1, parsed: 1 });
    expect(second.listing.items).toHaveLength(150);
  });

  it('does not remember a page whose record lost to a later copy of the same id', async () => {
    const pages = new ListingPages();
    // The same id twice on the first page, with different contents: the later copy is kept.
    server.records[3] = { ...server.records[2]!, name: 'other' } as DeploymentRecord;
    const first = await list(pages);
    const kept = first.listing.items.find((d) => d.id === server.records[2]!.id)!;
    expect(kept.name).toBe('other');
    pages.settle(new Map(first.listing.items.map((d) => [d.id, d])));
    expect(pages.size).toBe(1);
  });

  it('a listing that fails keeps what the last complete one remembered', async () => {
    const pages = new ListingPages();
    const first = await list(pages);
    pages.settle(new Map(first.listing.items.map((d) => [d.id, d])));
    server.failOnce(100, 400);
    await expect(list(pages)).rejects.toThrow();
    pages.abandon();
    const third = await list(pages);
    expect(third.counts).toEqual({ recalled: 2, parsed: 0 });
  });

  it('the poller parses nothing of a listing that did not change', async () => {
    for (let i = 0; i < 150; i++) server.revisions.set(`rev-${i}`, listedRevision(`rev-${i}`));
    const counts: { recalled: number; parsed: number }[] = [];
    const poller = new Poller({
      client: {
        listAllDeployments: (filters, options) => {
          const { counts: c, wrapped } = counting(options?.memo as PageMemo<DeploymentRecord>);
          counts.push(c);
          return client.listAllDeployments(filters, { ...options, memo: wrapped });
        },
        getRevision: (d, r) => client.getRevision(d, r),
      },
      listenerId: LISTENER,
      intervalMs: 5_000,
      logger: silentLogger(),
    });
    const first = await poller.pollOnce();
    const second = await poller.pollOnce();
    expect(counts).toEqual([
      { recalled: 0, parsed: 2 },
      { recalled: 2, parsed: 0 },
    ]);
    for (const [i, d] of second.deployments.entries())
      expect(d.deployment).toBe(first.deployments[i]!.deployment);
    expect(second.deployments.map((d) => d.hash)).toEqual(first.deployments.map((d) => d.hash));
  });
});
