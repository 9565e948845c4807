/**
 * A slim listing given the previous one's entries keeps the entry of every object unchanged since
 * and lists Deployments and StatefulSets as metadata only too; what changed is read again whole,
 * and the result is the listing the whole objects would have made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARRY_READ_LIMIT, previousEntries } from '../../src/kube/slim-listing.ts';
import type { KubeHttp, KubeRequest } from '../../src/kube/http.ts';
import { type Inventory, listOwned } from '../../src/kube/list.ts';
import { ObjectClient } from '../../src/kube/object-client.ts';
import { objectVersion } from '../../src/kube/object-version.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { basicSet, deployment, LISTENER, statefulSet } from './fixtures.ts';
import { kubeOf, managerFor, OtherManager } from './sandbox.ts';

const NS = 'carry';
const CROWD = 'crowd';
let api: KubeApi;

beforeAll(async () => {
  api = await startKubeApi({ namespaces: [NS, CROWD] });
  await managerFor(api).applyAll([...basicSet(NS), statefulSet(NS)]);
});
afterAll(async () => {
  await api?.close();
});

interface Asked {
  method: string;
  resource: string;
  name?: string;
  metadataOnly: boolean;
}

/** The agent's client with every request noted; `before` runs ahead of each one. */
function recording(before?: (req: KubeRequest) => Promise<void>): { http: KubeHttp; asked: Asked[] } {
  const http = kubeOf(api);
  const asked: Asked[] = [];
  const send = http.request.bind(http);
  http.request = async (req) => {
    const parts = (req.path.split('?')[0] ?? '').split('/');
    const collection = parts.at(-2) === 'namespaces' || parts.length < 6;
    const listed = ['deployments', 'statefulsets'].includes(parts.at(-1) ?? '');
    asked.push({
      method: req.method,
      resource: listed ? (parts.at(-1) ?? '') : (parts.at(-2) ?? ''),
      ...(listed || collection ? {} : { name: parts.at(-1) }),
      metadataOnly: (req.accept ?? '').includes('PartialObjectMetadataList'),
    });
    await before?.(req);
    return send(req);
  };
  return { http, asked };
}

const slimList = (http: KubeHttp, namespaces: string[], previous?: Inventory) =>
  listOwned(new ObjectClient(http), {
    namespaces,
    listenerId: LISTENER,
    slim: true,
    ...(previous ? { previous: previousEntries(previous) } : {}),
  });

const crowd = (i: number) =>
  deployment(CROWD, `crowd-${i}`, { deploymentId: `33333333-3333-4333-8333-${String(i).padStart(12, '0')}` });

const workloads = (asked: Asked[]) =>
  asked.filter((a) => a.resource === 'deployments' || a.resource === 'statefulsets');

async function patchStatus(name: string, reason: string): Promise<void> {
  await kubeOf(api).request({
    method: 'PATCH',
    path: `/apis/apps/v1/namespaces/${NS}/deployments/${name}/status`,
    body: { status: { conditions: [{ type: 'Available', status: 'True', reason }] } },
    contentType: 'application/merge-patch+json',
  });
}

describe('a slim listing after another', () => {
  it('lists workloads as metadata only and reads nothing more when nothing changed', async () => {
    const first = await slimList(kubeOf(api), [NS]);
    const { http, asked } = recording();
    const second = await slimList(http, [NS], first);
    expect(workloads(asked).map((a) => [a.method, a.resource, a.metadataOnly])).toEqual([
      ['GET', 'deployments', true],
      ['GET', 'statefulsets', true],
    ]);
    expect(second.objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet')).toHaveLength(2);
    // The very entries a listing of the whole objects makes: health reads the same spec and status.
    expect(second.byId).toEqual((await slimList(kubeOf(api), [NS])).byId);
    expect(second.byId.get(`Deployment/${NS}/app`)?.status).toMatchObject({ readyReplicas: 1 });
  });

  it('keeps the very entries of unchanged objects, and makes new ones for changed objects', async () => {
    const first = await slimList(kubeOf(api), [NS]);
    await new OtherManager(api).mergePatch(
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'app', namespace: NS, labels: { extra: 'x' } } },
      'kubectl-label',
    );
    const second = await slimList(kubeOf(api), [NS], first);
    expect(second.objects.length).toBe(first.objects.length);
    for (const o of second.objects) {
      const id = `${o.kind}/${NS}/${o.metadata.name}`;
      if (id === `Service/${NS}/app`) {
        expect(o).not.toBe(first.byId.get(id));
        expect(o.metadata.resourceVersion).not.toBe(first.byId.get(id)?.metadata.resourceVersion);
        expect(objectVersion(o)).not.toBe(objectVersion(first.byId.get(id) as KubeObject));
      } else expect(o).toBe(first.byId.get(id));
    }
  });

  it('reads a workload whose status changed since, and only that one', async () => {
    const first = await slimList(kubeOf(api), [NS]);
    await patchStatus('app', 'StatusWrite');
    const { http, asked } = recording();
    const second = await slimList(http, [NS], first);
    expect(workloads(asked).filter((a) => a.name !== undefined)).toEqual([
      { method: 'GET', resource: 'deployments', name: 'app', metadataOnly: false },
    ]);
    expect(second.byId.get(`Deployment/${NS}/app`)?.status).toMatchObject({
      conditions: [{ type: 'Available', status: 'True', reason: 'StatusWrite' }],
    });
    expect(second.byId).toEqual((await slimList(kubeOf(api), [NS])).byId);
  });

  it('reads an object made again under the same name (another uid)', async () => {
    const first = await slimList(kubeOf(api), [NS]);
    const entry = first.byId.get(`StatefulSet/${NS}/app-postgres`) as KubeObject;
    expect(entry).toBeDefined();
    const previous = new Map(previousEntries(first));
    const sets = new Map<string, KubeObject>(previous.get(`StatefulSet/${NS}`));
    previous.set(`StatefulSet/${NS}`, sets);
    sets.set('app-postgres', {
      ...entry,
      metadata: { ...entry.metadata, uid: 'an-older-uid' },
      status: { readyReplicas: 0 },
    });
    const { http, asked } = recording();
    const second = await listOwned(new ObjectClient(http), {
      namespaces: [NS],
      listenerId: LISTENER,
      slim: true,
      previous,
    });
    expect(
      workloads(asked)
        .filter((a) => a.name !== undefined)
        .map((a) => a.name),
    ).toEqual(['app-postgres']);
    expect(second.byId.get(`StatefulSet/${NS}/app-postgres`)?.status).toMatchObject({ readyReplicas: 1 });
  });

  it('leaves out a changed workload deleted before it was read', async () => {
    await managerFor(api).applyAll([deployment(NS, 'brief')]);
    const first = await slimList(kubeOf(api), [NS]);
    await patchStatus('brief', 'Changed');
    const { http } = recording(async (req) => {
      if (req.method === 'GET' && req.path.endsWith('/deployments/brief')) {
        await new ObjectClient(kubeOf(api)).delete(deployment(NS, 'brief'));
      }
    });
    const second = await slimList(http, [NS], first);
    expect(first.byId.has(`Deployment/${NS}/brief`)).toBe(true);
    expect(second.byId.has(`Deployment/${NS}/brief`)).toBe(false);
    expect(second.byId.has(`Deployment/${NS}/app`)).toBe(true);
  });

  it('lists a kind whole at once where the previous listing had none of it', async () => {
    const first = await slimList(kubeOf(api), [CROWD]);
    expect(first.objects).toEqual([]);
    await managerFor(api).applyAll([crowd(0)]);
    const { http, asked } = recording();
    const second = await slimList(http, [CROWD], first);
    expect(workloads(asked)).toEqual([
      { method: 'GET', resource: 'deployments', metadataOnly: false },
      { method: 'GET', resource: 'statefulsets', metadataOnly: false },
    ]);
    expect(second.byId.get(`Deployment/${CROWD}/crowd-0`)?.status).toMatchObject({ readyReplicas: 1 });
  });

  it(`lists a kind whole when more than ${CARRY_READ_LIMIT} of it changed`, async () => {
    const first = await slimList(kubeOf(api), [CROWD]);
    expect(first.byId.has(`Deployment/${CROWD}/crowd-0`)).toBe(true);
    await managerFor(api).applyAll(Array.from({ length: CARRY_READ_LIMIT + 1 }, (_, i) => crowd(i + 1)));
    const { http, asked } = recording();
    const second = await slimList(http, [CROWD], first);
    expect(workloads(asked).filter((a) => a.resource === 'deployments')).toEqual([
      { method: 'GET', resource: 'deployments', metadataOnly: true },
      { method: 'GET', resource: 'deployments', metadataOnly: false },
    ]);
    expect(second.objects.filter((o) => o.kind === 'Deployment')).toHaveLength(CARRY_READ_LIMIT + 2);
    expect(second.byId).toEqual((await slimList(kubeOf(api), [CROWD])).byId);
  });

  it('takes whole objects from a server that cannot list metadata only', async () => {
    const first = await slimList(kubeOf(api), [NS]);
    await patchStatus('app', 'Whole');
    const { http, asked } = recording(async (req) => {
      delete req.accept;
    });
    const second = await slimList(http, [NS], first);
    expect(workloads(asked).filter((a) => a.name !== undefined)).toEqual([]);
    expect(second.byId.get(`Deployment/${NS}/app`)?.status).toMatchObject({
      conditions: [{ type: 'Available', status: 'True', reason: 'Whole' }],
    });
    expect(second.byId).toEqual((await slimList(kubeOf(api), [NS])).byId);
  });
});
