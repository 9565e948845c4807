/**
 * The reference control plane under load, in `npm test` for 5 s (the 30 s run is
 * `control-plane-load.soak.test.ts` in `npm run soak`): about 1,000 requests per second of mixed
 * listings, revision reads and image PATCHes from autocannon on loopback. Zero 5xx, no errors or
 * timeouts; the p99 latency is printed, not asserted. And 100 concurrent PATCHes of one deployment
 * with distinct images make exactly 100 new revisions, with the latest matching the last write.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import { type ControlPlaneServer, startControlPlane } from '../../src/control-plane/server/index.ts';
import type { RevisionRecord } from '../../src/contract/index.ts';
import { loadControlPlane } from './lib/load.ts';

describe('reference control plane under load (5 s at ~1,000 requests/s)', () => {
  it('answers every request, none with a 5xx, and reports its p99', async () => {
    const r = await loadControlPlane({ durationSeconds: 5, ratePerSecond: 1000 });
    console.log(`control-plane load (5 s): ${JSON.stringify(r)}`);
    // The load happened (how much per second is reported above, not asserted).
    expect(r.total).toBeGreaterThan(1000);
    expect(r.status5xx).toBe(0);
    expect(r.errors).toBe(0);
    expect(r.timeouts).toBe(0);
    expect(r.non2xx).toBe(0);
    expect(r.serverRequests).toBeGreaterThanOrEqual(r.total);
  }, 60_000);
});

describe('100 concurrent PATCHes of one deployment', () => {
  let cp: ControlPlaneServer;
  let client: ControlPlaneClient;
  const listenerId = '55555555-5555-4555-8555-555555555555';

  beforeAll(async () => {
    const apiKey = randomBytes(16).toString('hex');
    cp = await startControlPlane({
      apiKey,
      seed: {
        listeners: [
          {
            id: listenerId,
            compute_type: 'k8s',
            compute_id: 'race',
            compute_config: { k8s_namespaces: ['apps'] },
          },
        ],
      },
    });
    client = new ControlPlaneClient({ baseUrl: cp.url, apiKey, retries: 0 });
  });

  afterAll(async () => {
    await client?.close();
    await cp?.close();
  });

  it('N distinct image changes make N new revisions; the latest is the last committed write (no lost update)', async () => {
    const d = await client.createDeployment({
      name: 'race',
      source: 'external_docker',
      source_config: { listener_id: listenerId, listener_config: { k8s_namespace: 'apps' } },
      source_revision_config: { image_uri: 'registry.example.com/race/app:0' },
      secrets: [],
    });
    const images = Array.from({ length: 100 }, (_, i) => `registry.example.com/race/app:${i + 1}`);
    const responses = await Promise.all(
      images.map((image_uri) => client.patchDeployment(d.id, { source_revision_config: { image_uri } })),
    );
    // Each PATCH moved latest_revision_id to a revision of its own.
    const revisionIds = new Set(responses.map((r) => r.latest_revision_id));
    expect(revisionIds.size).toBe(100);
    expect(revisionIds.has(d.latest_revision_id)).toBe(false);
    const revisions: RevisionRecord[] = [];
    for await (const page of client.listRevisions(d.id)) revisions.push(...page.items);
    expect(revisions).toHaveLength(101);
    const byId = new Map(revisions.map((r) => [r.id, r]));
    // Every write's revision exists and carries that write's image.
    responses.forEach((r, i) => {
      expect(byId.get(r.latest_revision_id as string)?.source_revision_config.image_uri).toBe(images[i]);
    });
    expect(new Set(revisions.map((r) => r.source_revision_config.image_uri))).toEqual(
      new Set([...images, 'registry.example.com/race/app:0']),
    );
    // The deployment now is the last committed write: its latest revision is the newest one and
    // has the deployment's image.
    const [final] = (await client.listAllDeployments({ name: 'race' })).items;
    const latest = byId.get(final?.latest_revision_id as string);
    expect(latest?.source_revision_config.image_uri).toBe(final?.source_revision_config.image_uri);
    const newest = [...revisions].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at))[0];
    expect(Date.parse(latest?.created_at ?? '')).toBe(Date.parse(newest?.created_at ?? ''));
  });
});
