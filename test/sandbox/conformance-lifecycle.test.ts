/**
 * Watch, deletion and controller conformance: each test names the documented Kubernetes behaviour
 * it checks (watch semantics and 410 Gone, garbage collection and propagation policies,
 * namespace termination, Deployment status conditions).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployment, eventually, MERGE, type Sandbox, startSandbox, type Json } from './helpers.ts';

const CM = '/api/v1/namespaces/default/configmaps';

function events(body: Record<string, unknown>): { type: string; object: Record<string, Json> }[] {
  const raw = typeof body.raw === 'string' ? body.raw : JSON.stringify(body);
  return raw
    .split('\n')
    .filter((l) => l.trim() !== '' && l !== '{}')
    .map((l) => JSON.parse(l));
}

describe('watch, delete and controller conformance', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['doomed'], watchHistory: 5 });
  });
  afterAll(async () => {
    await sb.close();
  });

  it('watch without resourceVersion starts with ADDED for every existing object', async () => {
    await sb.call('POST', CM, { metadata: { name: 'w1' } });
    const res = await sb.call('GET', `${CM}?watch=true&timeoutSeconds=1`);
    // The namespace's root CA ConfigMap exists from the start, as on a cluster.
    expect(events(res.body).map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual([
      'ADDED kube-root-ca.crt',
      'ADDED w1',
    ]);
  });

  it('watch resumes from a resourceVersion: only later events, in order, with DELETED last', async () => {
    const created = await sb.call('POST', CM, { metadata: { name: 'w2' }, data: { v: '1' } });
    const rv = (created.body.metadata as { resourceVersion: string }).resourceVersion;
    await sb.call('PATCH', `${CM}/w2`, { data: { v: '2' } }, MERGE);
    await sb.call('DELETE', `${CM}/w2`);
    const res = await sb.call('GET', `${CM}?watch=1&resourceVersion=${rv}&timeoutSeconds=1`);
    const seen = events(res.body).map((e) => `${e.type} ${e.object.metadata.name} ${e.object.data?.v}`);
    expect(seen).toEqual(['MODIFIED w2 2', 'DELETED w2 2']);
  });

  it('watch from a compacted resourceVersion gets an ERROR event with a 410 Expired Status', async () => {
    const first = await sb.call('POST', CM, { metadata: { name: 'old' } });
    const rv = (first.body.metadata as { resourceVersion: string }).resourceVersion;
    // Enough writes after it that history (5 kept, trimmed in batches) has surely dropped it.
    for (let i = 0; i < 12; i++) await sb.call('POST', CM, { metadata: { name: `fill-${i}` } });
    const res = await sb.call('GET', `${CM}?watch=true&resourceVersion=${rv}`);
    const [event] = events(res.body);
    expect(event?.type).toBe('ERROR');
    expect(event?.object).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 });
    expect(event?.object.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
  });

  it('watch bookmarks: allowWatchBookmarks sends BOOKMARK events carrying a resourceVersion', async () => {
    const api = await startSandbox({ watchBookmarkIntervalMs: 200 });
    try {
      const res = await api.call(
        'GET',
        '/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=1',
      );
      const bookmark = events(res.body).find((e) => e.type === 'BOOKMARK');
      expect(bookmark?.object.metadata.resourceVersion).toMatch(/^\d+$/);
    } finally {
      await api.close();
    }
  });

  it('streaming list (sendInitialEvents=true): initial ADDED events end with an initial-events-end BOOKMARK', async () => {
    const res = await sb.call(
      'GET',
      `${CM}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1`,
    );
    const all = events(res.body);
    const bookmark = all.findIndex((e) => e.type === 'BOOKMARK');
    expect(bookmark).toBeGreaterThan(0);
    expect(all.slice(0, bookmark).every((e) => e.type === 'ADDED')).toBe(true);
    expect(all[bookmark]?.object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
  });

  it('delete answers a Success Status and the object is gone', async () => {
    await sb.call('POST', CM, { metadata: { name: 'd1' } });
    const res = await sb.call('DELETE', `${CM}/d1`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: { name: 'd1', kind: 'configmaps' },
    });
    expect((await sb.call('GET', `${CM}/d1`)).status).toBe(404);
  });

  it('garbage collection (background): deleting an owner deletes its dependents', async () => {
    const owner = await sb.call('POST', '/apis/apps/v1/namespaces/default/deployments', deployment('owner'));
    const uid = (owner.body.metadata as { uid: string }).uid;
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'owner', uid, controller: true };
    await sb.call('POST', CM, { metadata: { name: 'dep', ownerReferences: [ref] } });
    await sb.call('DELETE', '/apis/apps/v1/namespaces/default/deployments/owner');
    expect(await eventually(async () => (await sb.call('GET', `${CM}/dep`)).status === 404)).toBe(true);
  });

  it('propagationPolicy=Orphan keeps dependents and removes their ownerReferences', async () => {
    const owner = await sb.call('POST', CM, { metadata: { name: 'o2' } });
    const ref = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'o2',
      uid: (owner.body.metadata as { uid: string }).uid,
    };
    await sb.call('POST', CM, { metadata: { name: 'kept', ownerReferences: [ref] } });
    await sb.call('DELETE', `${CM}/o2?propagationPolicy=Orphan`);
    const dep = await eventually(async () => {
      const res = await sb.call('GET', `${CM}/kept`);
      return (res.body.metadata as { ownerReferences?: unknown }).ownerReferences === undefined
        ? res
        : undefined;
    });
    expect(dep?.status).toBe(200);
    expect((await sb.call('GET', `${CM}/o2`)).status).toBe(404);
  });

  it('propagationPolicy=Foreground: the owner lingers with deletionTimestamp and the foregroundDeletion finalizer', async () => {
    const owner = await sb.call('POST', CM, { metadata: { name: 'o3' } });
    const ref = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'o3',
      uid: (owner.body.metadata as { uid: string }).uid,
      blockOwnerDeletion: true,
    };
    await sb.call('POST', CM, { metadata: { name: 'child', ownerReferences: [ref] } });
    const res = await sb.call('DELETE', `${CM}/o3`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Foreground',
    });
    expect(res.status).toBe(200);
    expect(res.body.metadata).toMatchObject({ finalizers: ['foregroundDeletion'] });
    expect((res.body.metadata as { deletionTimestamp?: string }).deletionTimestamp).toBeDefined();
    expect(await eventually(async () => (await sb.call('GET', `${CM}/o3`)).status === 404)).toBe(true);
    expect((await sb.call('GET', `${CM}/child`)).status).toBe(404);
  });

  it('a finalizer blocks deletion until an update removes it', async () => {
    await sb.call('POST', CM, { metadata: { name: 'fin', finalizers: ['example.com/hold'] } });
    const del = await sb.call('DELETE', `${CM}/fin`);
    expect((del.body.metadata as { deletionTimestamp?: string }).deletionTimestamp).toBeDefined();
    expect((await sb.call('GET', `${CM}/fin`)).status).toBe(200);
    await sb.call('PATCH', `${CM}/fin`, { metadata: { finalizers: null } }, MERGE);
    expect((await sb.call('GET', `${CM}/fin`)).status).toBe(404);
  });

  it('delete preconditions: a wrong uid is 409 Conflict', async () => {
    await sb.call('POST', CM, { metadata: { name: 'pre' } });
    const res = await sb.call('DELETE', `${CM}/pre`, { preconditions: { uid: 'not-the-uid' } });
    expect(res.status).toBe(409);
    expect(res.body.message).toContain('Precondition failed: UID in precondition: not-the-uid');
  });

  it('deletecollection with a label selector deletes only the selected objects', async () => {
    await sb.call('POST', CM, { metadata: { name: 'sel-a', labels: { batch: 'x' } } });
    await sb.call('POST', CM, { metadata: { name: 'sel-b', labels: { batch: 'y' } } });
    await sb.call('DELETE', `${CM}?labelSelector=batch%3Dx`);
    expect((await sb.call('GET', `${CM}/sel-a`)).status).toBe(404);
    expect((await sb.call('GET', `${CM}/sel-b`)).status).toBe(200);
  });

  it('namespace deletion: phase Terminating, no new content, then the namespace and its objects are gone', async () => {
    await sb.call('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'inside' } });
    const res = await sb.call('DELETE', '/api/v1/namespaces/doomed');
    expect((res.body.status as { phase: string }).phase).toBe('Terminating');
    expect(
      await eventually(async () => (await sb.call('GET', '/api/v1/namespaces/doomed')).status === 404),
    ).toBe(true);
    expect((await sb.call('GET', '/api/v1/namespaces/doomed/configmaps/inside')).status).toBe(404);
  });

  it('controller: a Deployment becomes Available with observedGeneration and NewReplicaSetAvailable', async () => {
    await sb.call(
      'POST',
      '/apis/apps/v1/namespaces/default/deployments',
      deployment('ready', 'default', { replicas: 3 }),
    );
    const status = await eventually(() => {
      const s = sb.api.getObject('apps/v1', 'Deployment', 'default', 'ready')?.status as
        | Record<string, Json>
        | undefined;
      return s?.availableReplicas === 3 ? s : undefined;
    });
    expect(status).toMatchObject({
      observedGeneration: 1,
      replicas: 3,
      readyReplicas: 3,
      updatedReplicas: 3,
    });
    expect(status?.conditions.map((c: { type: string; reason: string }) => `${c.type}=${c.reason}`)).toEqual([
      'Available=MinimumReplicasAvailable',
      'Progressing=NewReplicaSetAvailable',
    ]);
    // Status writes are the controller's, not API requests.
    expect(sb.api.requests({ name: 'ready' }).map((r) => r.verb)).toEqual(['create']);
  });

  it('StatefulSet controller: PVCs per replica from volumeClaimTemplates, kept on delete under Retain, collected under Delete', async () => {
    const sts = (name: string, whenDeleted: string) => ({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name },
      spec: {
        replicas: 2,
        serviceName: name,
        selector: { matchLabels: { app: name } },
        persistentVolumeClaimRetentionPolicy: { whenDeleted, whenScaled: 'Retain' },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'pg', image: 'postgres:16' }] },
        },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data', labels: { tier: 'db' } },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      },
    });
    const STS = '/apis/apps/v1/namespaces/default/statefulsets';
    const PVC = '/api/v1/namespaces/default/persistentvolumeclaims';
    await sb.call('POST', STS, sts('keep', 'Retain'));
    const claim = await eventually(async () => {
      const res = await sb.call('GET', `${PVC}/data-keep-1`);
      return res.status === 200 ? res.body : undefined;
    });
    expect(claim?.metadata).toMatchObject({ labels: { app: 'keep', tier: 'db' } });
    expect(claim?.status).toMatchObject({ phase: 'Bound', capacity: { storage: '1Gi' } });
    await sb.call('DELETE', `${STS}/keep`);
    await new Promise((r) => setTimeout(r, 50));
    expect((await sb.call('GET', `${PVC}/data-keep-0`)).status).toBe(200);

    await sb.call('POST', STS, sts('drop', 'Delete'));
    await eventually(async () => (await sb.call('GET', `${PVC}/data-drop-0`)).status === 200);
    await sb.call('DELETE', `${STS}/drop`);
    expect(await eventually(async () => (await sb.call('GET', `${PVC}/data-drop-0`)).status === 404)).toBe(
      true,
    );
  });

  it('controller status writes are writes: a new resourceVersion and a MODIFIED watch event', async () => {
    const created = await sb.call(
      'POST',
      '/apis/apps/v1/namespaces/default/deployments',
      deployment('watched'),
    );
    const rv = (created.body.metadata as { resourceVersion: string }).resourceVersion;
    await eventually(() => sb.api.getObject('apps/v1', 'Deployment', 'default', 'watched')?.status);
    const res = await sb.call(
      'GET',
      `/apis/apps/v1/namespaces/default/deployments?watch=true&resourceVersion=${rv}&fieldSelector=metadata.name%3Dwatched&timeoutSeconds=1`,
    );
    const [event] = events(res.body);
    expect(event?.type).toBe('MODIFIED');
    expect(Number(event?.object.metadata.resourceVersion)).toBeGreaterThan(Number(rv));
    expect(event?.object.status.observedGeneration).toBe(1);
  });

  it('Deployment controller: a ReplicaSet per pod template, owned by the Deployment; the old one scales to zero', async () => {
    const D = '/apis/apps/v1/namespaces/default/deployments';
    const RS = '/apis/apps/v1/namespaces/default/replicasets';
    const created = await sb.call('POST', D, deployment('rolled', 'default', { replicas: 2 }));
    const uid = (created.body.metadata as { uid: string }).uid;
    const names = async (): Promise<{ name: string; replicas: number; owner: string }[]> => {
      const res = await sb.call('GET', `${RS}?labelSelector=app%3Drolled`);
      return (
        res.body.items as {
          metadata: { name: string; ownerReferences: { uid: string }[] };
          spec: { replicas: number };
        }[]
      ).map((rs) => ({
        name: rs.metadata.name,
        replicas: rs.spec.replicas,
        owner: rs.metadata.ownerReferences[0]?.uid ?? '',
      }));
    };
    const first = await eventually(async () => ((await names()).length === 1 ? names() : undefined));
    expect(first?.[0]).toMatchObject({ replicas: 2, owner: uid });
    await sb.call(
      'PATCH',
      `${D}/rolled`,
      { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.28' }] } } } },
      MERGE,
    );
    const both = await eventually(async () => {
      const list = await names();
      return list.length === 2 && list.some((rs) => rs.replicas === 0) ? list : undefined;
    });
    expect(both?.map((rs) => rs.replicas).sort()).toEqual([0, 2]);
    await sb.call('DELETE', `${D}/rolled`);
    expect(await eventually(async () => (await names()).length === 0)).toBe(true);
  });

  it('controller: failRollout makes the next rollout end with ProgressDeadlineExceeded', async () => {
    sb.api.failRollout('default', 'broken');
    await sb.call('POST', '/apis/apps/v1/namespaces/default/deployments', deployment('broken'));
    const status = await eventually(() => {
      const s = sb.api.getObject('apps/v1', 'Deployment', 'default', 'broken')?.status as
        | Record<string, Json>
        | undefined;
      return s?.conditions ? s : undefined;
    });
    const progressing = status?.conditions.find((c: { type: string }) => c.type === 'Progressing');
    expect(progressing).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded' });
    expect(status?.availableReplicas).toBeUndefined();
  });
});
