/**
 * A cycle's slim listing asks for metadata only (PartialObjectMetadataList) for every kind whose
 * slim entry is metadata only, and gets the very entries the whole objects would have made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListingPool, slim } from '../../src/kube/compact-live.ts';
import type { KubeHttp, KubeRequest } from '../../src/kube/http.ts';
import { listSlim } from '../../src/kube/slim-listing.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { kindInfo, LISTED_KINDS } from '../../src/objects/kinds.ts';
import { FIELD_MANAGER, ownedSelector } from '../../src/kube/labels.ts';
import { LIST_PAGE_SIZE } from '../../src/kube/list-page-size.ts';
import { ObjectClient } from '../../src/kube/object-client.ts';
import { objectVersion } from '../../src/kube/object-version.ts';
import { ResourceManager } from '../../src/kube/resource-manager.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { basicSet, envSecret, hpa, LISTENER, statefulSet } from './fixtures.ts';
import { kubeOf, managerFor } from './sandbox.ts';

const NS = 'slim';
let api: KubeApi;

beforeAll(async () => {
  api = await startKubeApi({ namespaces: [NS] });
  const rm = managerFor(api);
  await rm.applyAll([...basicSet(NS), hpa(NS), statefulSet(NS)]);
});
afterAll(async () => {
  await api?.close();
});

describe('slim listing', () => {
  it('equals the slim form of the whole objects, kind by kind, versions included', async () => {
    // What each list asked for.
    const http = kubeOf(api);
    const asked = new Map<string, string>();
    const send = http.request.bind(http);
    http.request = (req) => {
      asked.set(req.path.split('?')[0]?.split('/').pop() ?? '', req.accept ?? 'application/json');
      return send(req);
    };
    const listed = await new ResourceManager({ kube: http }).listOwned({
      namespaces: [NS],
      listenerId: LISTENER,
      slim: true,
    });
    expect(asked.get('secrets')).toMatch(
      /^application\/json;as=PartialObjectMetadataList;g=meta\.k8s\.io;v=v1,/,
    );
    expect(asked.get('services')).toMatch(/as=PartialObjectMetadataList/);
    expect(asked.get('deployments')).toBe('application/json');
    expect(asked.get('statefulsets')).toBe('application/json');
    const client = new ObjectClient(kubeOf(api));
    const whole = [];
    for (const k of LISTED_KINDS) {
      whole.push(
        ...(await client.list(k.apiVersion, k.kind, NS, ownedSelector(LISTENER), (o) =>
          slim(o, FIELD_MANAGER),
        )),
      );
    }
    expect(listed.objects.length).toBeGreaterThanOrEqual(6);
    expect(listed.objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(
      whole.map((o) => `${o.kind}/${o.metadata.name}`).sort(),
    );
    for (const o of whole) {
      const same = listed.byId.get(`${o.kind}/${NS}/${o.metadata.name}`);
      expect(same).toEqual(o);
      expect(objectVersion(same!)).toBe(objectVersion(o));
    }
    // Health still reads the workloads' spec and status from the listing.
    const workload = listed.objects.find((o) => o.kind === 'Deployment');
    expect(workload?.spec).toEqual({ replicas: 1 });
  });

  it('a metadata-only list answers metadata: no data, type or spec', async () => {
    const client = new ObjectClient(kubeOf(api));
    const secrets = await client.list('v1', 'Secret', NS, ownedSelector(LISTENER), undefined, {
      metadataOnly: true,
    });
    expect(secrets.length).toBe(2);
    for (const s of secrets) {
      expect(s).toMatchObject({ apiVersion: 'v1', kind: 'Secret' });
      expect(s.metadata.resourceVersion).toMatch(/^\d+$/);
      expect(s.data).toBeUndefined();
      expect(s.type).toBeUndefined();
    }
    const full = await client.list('v1', 'Secret', NS, ownedSelector(LISTENER));
    expect(full.every((s) => s.data !== undefined)).toBe(true);
  });

  it("pages a cold start's workloads like whole objects, the smaller kinds in larger pages", async () => {
    // A page is held whole until it is slimmed: workloads in pages of 250 raised a restart's peak.
    const http = kubeOf(api);
    const limits = new Map<string, string | null>();
    const send = http.request.bind(http);
    http.request = (req) => {
      const [path = '', query = ''] = req.path.split('?');
      limits.set(path.split('/').pop() ?? '', new URLSearchParams(query).get('limit'));
      return send(req);
    };
    const judged: string[] = [];
    await new ResourceManager({ kube: http }).listOwned({
      namespaces: [NS],
      listenerId: LISTENER,
      slim: true,
      judge: (items) => {
        for (const o of items) judged.push(o.kind);
      },
    });
    expect(judged).toContain('Deployment');
    expect(limits.get('deployments')).toBe(String(LIST_PAGE_SIZE.wholeObjects));
    expect(limits.get('statefulsets')).toBe(String(LIST_PAGE_SIZE.wholeObjects));
    expect(limits.get('secrets')).toBe(String(LIST_PAGE_SIZE.coldStart));
    expect(LIST_PAGE_SIZE.wholeObjects).toBeLessThan(LIST_PAGE_SIZE.coldStart);
  });

  it("asks a cold listing's page size again before each page: smaller pages as the heap fills", async () => {
    const own = await startKubeApi({ namespaces: [NS] });
    await managerFor(own).applyAll([0, 1, 2, 3, 4].map((i) => envSecret(NS, `paged-${i}`)));
    const http = kubeOf(own);
    const limits: string[] = [];
    const send = http.request.bind(http);
    http.request = (req) => {
      const [path = '', query = ''] = req.path.split('?');
      if (path.endsWith('/secrets')) limits.push(new URLSearchParams(query).get('limit') ?? '');
      return send(req);
    };
    await new ResourceManager({ kube: http }).listOwned({
      namespaces: [NS],
      listenerId: LISTENER,
      slim: true,
      judge: () => {},
      // Every kind's pages ask; the Secrets' first page is asked for one, the rest for two.
      pageShare: () => (limits.length === 0 ? 1 : 2) / LIST_PAGE_SIZE.coldStart,
    });
    await own.close();
    // One item on the first page, then two a page from the second on: five Secrets in three pages.
    expect(limits).toEqual(['1', '2', '2']);
  });

  it('a judge-only cold listing judges every object and keeps no entry (regression: a restart held every entry)', async () => {
    const judged: string[] = [];
    const whole = await managerFor(api).listOwned({
      namespaces: [NS],
      listenerId: LISTENER,
      slim: true,
      judge: () => {},
    });
    const inventory = await managerFor(api).listOwned({
      namespaces: [NS],
      listenerId: LISTENER,
      slim: true,
      judge: (items) => {
        for (const o of items) judged.push(`${o.kind}/${o.metadata.name}`);
      },
      keepsEntries: () => false,
    });
    expect(whole.objects.length).toBeGreaterThan(3);
    expect(judged.sort()).toEqual(whole.objects.map((o) => `${o.kind}/${o.metadata.name}`).sort());
    expect(inventory.objects).toEqual([]);
  });
});

describe('a slim listing of workloads past CARRY_READ_LIMIT changes', () => {
  it('stops its metadata-only list at the page where the limit is passed, and lists the kind whole', async () => {
    const total = 2 * LIST_PAGE_SIZE.workloadMetadata + 50;
    const item = (i: number, whole: boolean) => ({
      metadata: {
        name: `d-${i}`,
        namespace: NS,
        uid: `u-${i}`,
        resourceVersion: String(100 + i),
        labels: { 'mooring.dev/listener-id': LISTENER },
      },
      ...(whole ? { spec: { replicas: 1 }, status: { replicas: 1 } } : {}),
    });
    const asked: Array<{ metadataOnly: boolean; continue: string | null }> = [];
    const request = async (req: KubeRequest) => {
      const query = new URLSearchParams(req.path.split('?')[1] ?? '');
      const metadataOnly = req.accept !== undefined;
      asked.push({ metadataOnly, continue: query.get('continue') });
      const limit = Number(query.get('limit'));
      const start = Number(query.get('continue') ?? 0);
      const end = Math.min(total, start + limit);
      const items = Array.from({ length: end - start }, (_, k) => item(start + k, !metadataOnly));
      return {
        status: 200,
        body: {
          items,
          metadata: { resourceVersion: '9', ...(end < total ? { continue: String(end) } : {}) },
        },
      };
    };
    // The previous listing had one of them, at another version: every one has changed since.
    const previous = new Map([
      [
        `Deployment/${NS}`,
        new Map([
          [
            'd-0',
            slim(
              {
                apiVersion: 'apps/v1',
                kind: 'Deployment',
                ...item(0, true),
                metadata: { ...item(0, true).metadata, resourceVersion: '1' },
              } as KubeObject,
              FIELD_MANAGER,
            ),
          ],
        ]),
      ],
    ]);
    const entries = await listSlim({
      client: new ObjectClient({ request } as unknown as KubeHttp),
      kind: kindInfo('Deployment')!,
      namespace: NS,
      selector: ownedSelector(LISTENER),
      fieldManager: FIELD_MANAGER,
      pool: new ListingPool(),
      previous,
      check: () => undefined,
    });
    // One metadata-only page (where the 21st change was met), then every page of whole objects.
    expect(asked.filter((a) => a.metadataOnly)).toEqual([{ metadataOnly: true, continue: null }]);
    expect(asked.filter((a) => !a.metadataOnly)).toHaveLength(Math.ceil(total / LIST_PAGE_SIZE.wholeObjects));
    expect(entries).toHaveLength(total);
    expect(entries.every((e) => e.status !== undefined)).toBe(true);
  });
});
