/**
 * Listings and reads that answer stored documents send the stored JSON bytes spliced into the
 * envelope, unparsed. The answers must be exactly what parsing each document and serialising the
 * reply with `JSON.stringify` gave: the same bytes, over a varied store (two tenants, assigned and
 * unassigned, patched and redeployed, deleted and retained, purged, secrets in odd characters).
 * The expected answer is built here from the parsed records (`store.deployments.get`,
 * `getRevision`, `listeners.get`) in the order the test made them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDeployments } from '../../bench/lib/seed.ts';
import type { Deployment } from '../../src/contract/index.ts';
import { DEFAULT_TENANT_ID } from '../../src/control-plane/server/index.ts';
import {
  BASE_SEED,
  dockerDeployment,
  type Harness,
  harness,
  LISTENER_ID,
  manualClock,
  OTHER_LISTENER_ID,
  type RawResponse,
  raw,
} from './helpers.ts';

const OTHER_TENANT = '55555555-5555-4555-8555-555555555555';
/** A secret value with what JSON escapes, multi-byte UTF-8, and a line separator left raw by JSON. */
const ODD_SECRET = 'pässwörd ☃ 😀 "quoted" back\\slash </script>\u2028\ttab';
const RETENTION_SECONDS = 60;

/** A made deployment: its tenant, its revisions oldest first, whether it was purged. */
interface Made {
  id: string;
  tenant: string;
  revisions: string[];
  purged: boolean;
}

/** The old answer: the parsed page serialised whole, as `sendJson` did for every list. */
function oldPage(resources: unknown[], offset: number): string {
  return JSON.stringify({ resources, offset: offset + resources.length });
}

function expectSameAnswer(res: RawResponse, expectedText: string, total?: number): void {
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/json');
  expect(res.headers['content-length']).toBe(String(Buffer.byteLength(expectedText)));
  expect(JSON.parse(res.text)).toEqual(JSON.parse(expectedText));
  expect(res.text).toBe(expectedText);
  if (total !== undefined) expect(res.headers['x-total-count']).toBe(String(total));
}

describe('answers from stored JSON', () => {
  let h: Harness;
  const clock = manualClock();
  const made: Made[] = [];

  const createVia = async (body: string, tenant?: string) => {
    const res = await raw(h.server.url, 'POST', '/v2/deployments', {
      body,
      ...(tenant ? { headers: { 'x-tenant-id': tenant } } : {}),
    });
    expect(res.status).toBe(201);
    const d = res.body as Deployment;
    made.push({
      id: d.id,
      tenant: tenant ?? DEFAULT_TENANT_ID,
      revisions: [d.latest_revision_id as string],
      purged: false,
    });
    return d;
  };
  const patchImage = async (m: Made, image: string) => {
    const d = await h.client.patchDeployment(m.id, { source_revision_config: { image_uri: image } });
    m.revisions.push(d.latest_revision_id as string);
  };

  beforeAll(async () => {
    h = await harness({
      server: { now: clock.now, deletedRetentionSeconds: RETENTION_SECONDS },
    });
    const store = h.server.store;
    // Assigned, with secrets in odd characters; patched twice and redeployed.
    await createVia(
      JSON.stringify(dockerDeployment('odd-secrets', { secrets: [{ name: 'ODD', value: ODD_SECRET }] })),
    );
    // Not assigned to any listener (not remote reconciled).
    const unassigned = dockerDeployment('unassigned');
    delete unassigned.source_config?.listener_id;
    await createVia(JSON.stringify(unassigned));
    // Another tenant's, with label keys that look like array indices (objects put those first).
    await createVia(
      JSON.stringify(
        dockerDeployment('other-tenant', {
          source_config: {
            listener_id: OTHER_LISTENER_ID,
            listener_config: { k8s_namespace: 'default' },
            resource_spec: {
              min_scale: 1,
              max_scale: 3,
              cpu: 0.1,
              labels: { z: 'last', '10': 'ten', '2': 'two' },
            },
          },
        }),
      ),
      OTHER_TENANT,
    );
    // Another tenant's, with a lone surrogate written as an escape in the request's text.
    const lone = JSON.stringify(dockerDeployment('lone-surrogate', { secrets: [{ name: 'S', value: 'X' }] }));
    await createVia(lone.replace('"value":"X"', '"value":"a\\ud800b"'), OTHER_TENANT);
    // Realistic records: every ResourceSpec group, volumes, sidecars, secret references.
    for (const body of generateDeployments({
      count: 6,
      namespaces: ['default'],
      listenerId: LISTENER_ID,
      seed: 7,
    })) {
      await createVia(JSON.stringify(body));
    }
    const [odd, , , , bench0, bench1, bench2] = made as [Made, Made, Made, Made, Made, Made, Made];
    await patchImage(odd, 'ghcr.io/example/app:1.1.0');
    await patchImage(odd, 'ghcr.io/example/app:1.2.0');
    const redeployed = await raw(
      h.server.url,
      'POST',
      `/v2/deployments/${odd.id}/revisions/${odd.revisions[0]}/redeploy`,
    );
    expect(redeployed.status).toBe(200);
    odd.revisions.push((redeployed.body as Deployment).latest_revision_id as string);
    store.setRevisionStatus(odd.id, odd.revisions[1] as string, 'DEPLOY_FAILED');
    store.setDeploymentStatus(bench0.id, 'UNUSED');
    // Deleted and purged after the retention; then one deleted and still retained.
    await h.client.deleteDeployment(bench1.id);
    clock.advance((RETENTION_SECONDS + 1) * 1000);
    expect((await raw(h.server.url, 'GET', '/healthz')).status).toBe(200);
    await raw(h.server.url, 'GET', '/v2/listeners');
    bench1.purged = true;
    await h.client.deleteDeployment(bench2.id);
  });
  afterAll(async () => {
    await h.close();
  });

  /** The parsed records a listing would show, newest first. */
  const listed = (tenant: string | undefined, keep: (d: Deployment) => boolean = () => true) =>
    made
      .filter((m) => !m.purged && (tenant === undefined || m.tenant === tenant))
      .map((m) => h.server.store.deployments.get(m.id, undefined))
      .filter(keep)
      .reverse();

  it('the store holds what the cases need: a purge, a retained delete, two tenants, odd secrets', () => {
    const all = listed(undefined);
    expect(all).toHaveLength(made.length - 1);
    expect(all.filter((d) => d.status === 'AWAITING_DELETE')).toHaveLength(1);
    expect(new Set(all.map((d) => d.tenant_id)).size).toBe(2);
    expect(all.some((d) => d.secrets.some((s) => s.value === ODD_SECRET))).toBe(true);
    expect(all.some((d) => d.secrets.some((s) => s.value === 'a\ud800b'))).toBe(true);
  });

  const listings: [string, string | undefined, string, (d: Deployment) => boolean][] = [
    ['every deployment', undefined, '', () => true],
    [
      "the agent's listing",
      undefined,
      '&remote_reconciled=true',
      (d) => Boolean(d.source_config.listener_id),
    ],
    ['not remote reconciled', undefined, '&remote_reconciled=false', (d) => !d.source_config.listener_id],
    ["a tenant's listing", OTHER_TENANT, '', () => true],
    [
      "the default tenant's agent listing",
      DEFAULT_TENANT_ID,
      '&remote_reconciled=true',
      (d) => Boolean(d.source_config.listener_id),
    ],
    ['by status', undefined, '&status=AWAITING_DELETE', (d) => d.status === 'AWAITING_DELETE'],
    ['by name', undefined, '&name_contains=o', (d) => d.name.includes('o')],
    ['no match', undefined, '&name=nobody', () => false],
  ];

  for (const [what, tenant, filter, keep] of listings) {
    it(`GET /v2/deployments, ${what}: every page (first, middle, last, past the end) is the old answer byte for byte`, async () => {
      const expected = listed(tenant, keep);
      const headers = tenant ? { 'x-tenant-id': tenant } : undefined;
      for (const [limit, offsets] of [
        [3, [0, 3, 6, 9, 12]],
        [100, [0, 1, 50]],
      ] as const) {
        for (const offset of offsets) {
          const res = await raw(
            h.server.url,
            'GET',
            `/v2/deployments?limit=${limit}&offset=${offset}${filter}`,
            {
              ...(headers ? { headers } : {}),
            },
          );
          expectSameAnswer(res, oldPage(expected.slice(offset, offset + limit), offset), expected.length);
        }
      }
    });
  }

  it('GET /v2/deployments/{id}: each deployment is the old answer byte for byte, and another tenant gets 404', async () => {
    for (const m of made.filter((x) => !x.purged)) {
      const res = await raw(h.server.url, 'GET', `/v2/deployments/${m.id}`);
      expectSameAnswer(res, JSON.stringify(h.server.store.deployments.get(m.id, undefined)));
      const own = await raw(h.server.url, 'GET', `/v2/deployments/${m.id}`, {
        headers: { 'x-tenant-id': m.tenant },
      });
      expectSameAnswer(own, res.text);
      const other = await raw(h.server.url, 'GET', `/v2/deployments/${m.id}`, {
        headers: { 'x-tenant-id': m.tenant === OTHER_TENANT ? DEFAULT_TENANT_ID : OTHER_TENANT },
      });
      expect(other.status).toBe(404);
      expect(other.body).toEqual({ detail: 'deployment not found' });
      expect(other.text).not.toContain('s3cret-value');
    }
    const purged = made.find((m) => m.purged) as Made;
    expect((await raw(h.server.url, 'GET', `/v2/deployments/${purged.id}`)).status).toBe(404);
  });

  it('GET revisions, listed and one by one: the old answer byte for byte, and never a secret', async () => {
    const store = h.server.store;
    const odd = made[0] as Made;
    expect(odd.revisions).toHaveLength(4);
    for (const m of made.filter((x) => !x.purged)) {
      const revisions = [...m.revisions].reverse().map((r) => store.deployments.getRevision(m.id, r));
      for (const [limit, offset] of [
        [2, 0],
        [2, 2],
        [2, 4],
        [100, 0],
      ] as const) {
        const res = await raw(
          h.server.url,
          'GET',
          `/v2/deployments/${m.id}/revisions?limit=${limit}&offset=${offset}`,
        );
        expectSameAnswer(res, oldPage(revisions.slice(offset, offset + limit), offset), revisions.length);
        expect(res.text).not.toContain('pässwörd');
        expect(res.text).not.toContain('s3cret-value');
      }
      for (const revision of revisions) {
        const res = await raw(h.server.url, 'GET', `/v2/deployments/${m.id}/revisions/${revision.id}`);
        expectSameAnswer(res, JSON.stringify(revision));
        expect(res.text).not.toContain('pässwörd');
      }
    }
    const failed = await raw(h.server.url, 'GET', `/v2/deployments/${odd.id}/revisions?status=DEPLOY_FAILED`);
    expectSameAnswer(
      failed,
      oldPage([store.deployments.getRevision(odd.id, odd.revisions[1] as string)], 0),
      1,
    );
  });

  it("GET revisions of another tenant's deployment, or of a revision of another deployment: 404 as before", async () => {
    const [odd, , other] = made as [Made, Made, Made];
    const asOther = { headers: { 'x-tenant-id': OTHER_TENANT } };
    const list = await raw(h.server.url, 'GET', `/v2/deployments/${odd.id}/revisions`, asOther);
    expect([list.status, list.body]).toEqual([404, { detail: 'deployment not found' }]);
    const one = await raw(
      h.server.url,
      'GET',
      `/v2/deployments/${odd.id}/revisions/${odd.revisions[0]}`,
      asOther,
    );
    expect([one.status, one.body]).toEqual([404, { detail: 'deployment not found' }]);
    const crossed = await raw(
      h.server.url,
      'GET',
      `/v2/deployments/${odd.id}/revisions/${other.revisions[0]}`,
    );
    expect([crossed.status, crossed.body]).toEqual([404, { detail: 'revision not found' }]);
  });

  it('GET /v2/listeners: every page is the old answer byte for byte', async () => {
    const listeners = BASE_SEED.listeners.map((l) => h.server.store.listeners.get(l.id)).reverse();
    for (const offset of [0, 1, 2, 5]) {
      const res = await raw(h.server.url, 'GET', `/v2/listeners?limit=1&offset=${offset}`);
      expectSameAnswer(res, oldPage(listeners.slice(offset, offset + 1), offset), listeners.length);
    }
  });
});

describe('answers from stored JSON in a database not encoded in UTF-8', () => {
  let dir: string;
  let h: Harness;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'mooring-utf16-'));
    const file = path.join(dir, 'cp.db');
    // The encoding is fixed when the file's first table is made: before the store migrates it.
    const sqlite = new DatabaseSync(file);
    sqlite.exec("PRAGMA encoding = 'UTF-16le'; CREATE TABLE made_first (x); DROP TABLE made_first;");
    sqlite.close();
    h = await harness({ db: file });
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends UTF-8 all the same: the same bytes as the parsed records serialised', async () => {
    expect(h.server.store.db.sqlite.prepare('PRAGMA encoding').get()).toEqual({ encoding: 'UTF-16le' });
    const d = await h.client.createDeployment(
      dockerDeployment('utf16', { secrets: [{ name: 'ODD', value: ODD_SECRET }] }),
    );
    const list = await raw(h.server.url, 'GET', '/v2/deployments');
    expectSameAnswer(list, oldPage([h.server.store.deployments.get(d.id, undefined)], 0), 1);
    const one = await raw(h.server.url, 'GET', `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}`);
    expectSameAnswer(
      one,
      JSON.stringify(h.server.store.deployments.getRevision(d.id, d.latest_revision_id as string)),
    );
  });
});
