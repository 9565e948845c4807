/**
 * A cycle's slim listing asks for metadata only (PartialObjectMetadataList) for every kind whose
 * slim entry is metadata only, and gets the very entries the whole objects would have made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slim } from '../../src/kube/compact-live.ts';
import { LISTED_KINDS } from '../../src/objects/kinds.ts';
import { FIELD_MANAGER, ownedSelector } from '../../src/kube/labels.ts';
import { LIST_PAGE_SIZE, ObjectClient } from '../../src/kube/object-client.ts';
import { objectVersion } from '../../src/kube/object-version.ts';
import { ResourceManager } from '../../src/kube/resource-manager.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { basicSet, hpa, LISTENER, statefulSet } from './fixtures.ts';
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
});
