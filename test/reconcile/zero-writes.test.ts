import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeploymentRecord } from '../../src/contract/index.ts';
import { referencesOf } from '../../src/reconcile/identity.ts';
import { reconcileDeployment } from '../../src/reconcile/reconcile.ts';
import { defaultRenderSettings, renderDeployment } from '../../src/render/index.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { depsFor, input, LISTENER_ID, record } from './fixtures.ts';

let api: KubeApi;

/** `<resource>/<name>` of each claim and Secret a deployment's rendered pods refer to or would adopt. */
function referencedIds(dep: DeploymentRecord, namespace: string): Set<string> {
  const { objects } = renderDeployment({ deployment: dep, settings: defaultRenderSettings(LISTENER_ID) });
  const plural = { Secret: 'secrets', PersistentVolumeClaim: 'persistentvolumeclaims' };
  expect(objects.every((o) => o.metadata.namespace === namespace)).toBe(true);
  return new Set(referencesOf(objects).map((r) => `${plural[r.kind]}/${r.name}`));
}
beforeAll(async () => {
  api = await startKubeApi({ namespaces: ['apps', 'cold'] });
});
afterAll(async () => {
  await api?.close();
});

describe('zero writes when nothing changed (request-count test)', () => {
  it('a converged deployment re-reconciled 10 times makes 0 writes and at most one read per object', async () => {
    const deps = depsFor(api);
    const dep = record('5f2c7e1a-8b3d-4c6e-9f0a-1b2c3d4e5f60');
    const first = await reconcileDeployment(deps, input(dep));
    expect(first.changeSet.entries.filter((e) => e.action === 'created').length).toBeGreaterThan(5);
    expect(first.changeSet.entries.every((e) => e.error === undefined)).toBe(true);
    const credentials = () =>
      JSON.stringify(api.getObject('v1', 'Secret', 'apps', 'shop-api-postgres-credentials'));
    const before = credentials();
    expect(before).toContain('POSTGRES_PASSWORD');
    api.clearRequests();
    for (let i = 0; i < 10; i++) {
      const again = await reconcileDeployment(deps, input(dep));
      const notUnchanged = again.changeSet.entries.filter((e) => e.action !== 'unchanged');
      expect(notUnchanged).toEqual([]);
    }
    // The generated database password survives 10 reconciles byte-identical.
    expect(credentials()).toBe(before);
    const writes = api.requests({ write: true });
    expect(writes.map((r) => `${r.verb} ${r.path}`)).toEqual([]);
    const reads = api.requests().filter((r) => !r.write);
    const objects = first.changeSet.entries.length;
    // One list per managed kind per reconcile, and never a per-object GET. Without the cycle's
    // listing (these deps give none), the identity check looks up by name, metadata only, each claim
    // and Secret its pods refer to (reconcile/identity.ts): one list call selecting it.
    expect(reads.every((r) => r.verb === 'list')).toBe(true);
    const referenced = referencedIds(dep, 'apps');
    const byName = reads.filter((r) => r.fieldSelector?.startsWith('metadata.name='));
    expect(new Set(byName.map((r) => `${r.resource}/${r.fieldSelector?.slice(14)}`))).toEqual(referenced);
    expect(byName.length).toBe(10 * referenced.size);
    expect(reads.length / 10).toBeLessThanOrEqual(objects);
    console.log(`converged: ${objects} objects, ${reads.length / 10} reads and 0 writes per reconcile`);
  });

  it('a new revision that changes only the image rewrites only the Deployments that run it', async () => {
    const deps = depsFor(api);
    const dep = record('5f2c7e1a-8b3d-4c6e-9f0a-1b2c3d4e5f62', { name: 'roll' });
    const first = await reconcileDeployment(deps, input(dep));
    const deployments = first.changeSet.entries.filter((e) => e.kind === 'Deployment').length;
    expect(deployments).toBeGreaterThan(0);
    expect(first.changeSet.entries.length).toBeGreaterThan(deployments + 5);
    const next = {
      ...record(dep.id, { name: 'roll', image: 'registry.example.com/shop/api:2.0.0' }),
      latest_revision_id: '0d9c8b7a-6f5e-4d3c-8b2a-1f0e9d8c7b6a',
      active_revision_id: '0d9c8b7a-6f5e-4d3c-8b2a-1f0e9d8c7b6a',
    };
    api.clearRequests();
    const second = await reconcileDeployment(deps, input(next));
    // Exactly the objects that carry the revision: the app's Deployments (not Redis's, say).
    const carriers = renderDeployment(input(next))
      .objects.filter((o) => o.metadata.annotations?.['mooring.dev/revision-id'] !== undefined)
      .map((o) => `${o.kind}/${o.metadata.name}`);
    expect(carriers.length).toBeGreaterThan(0);
    expect(carriers.length).toBeLessThanOrEqual(deployments);
    const written = second.changeSet.entries.filter((e) => e.action !== 'unchanged');
    expect(written.map((e) => `${e.kind}/${e.name}`).sort()).toEqual(carriers.sort());
    const writes = api.requests({ write: true }).map((r) => `${r.verb} ${r.path}`);
    expect(writes.length).toBeGreaterThanOrEqual(carriers.length);
    expect(
      writes.every((w) => w.includes('/deployments/')),
      writes.join('\n'),
    ).toBe(true);
    const live = api.getObject('apps/v1', 'Deployment', 'apps', 'roll') as {
      metadata: { annotations: Record<string, string> };
    };
    expect(live.metadata.annotations['mooring.dev/revision-id']).toBe(next.latest_revision_id);
  });

  it("after an upgrade, each object that carried an older release's revision annotation is written once, without it", async () => {
    const dep = record('5f2c7e1a-8b3d-4c6e-9f0a-1b2c3d4e5f63', { name: 'upgraded' });
    const revisionId = dep.latest_revision_id as string;
    // The release before put the revision on every object.
    const older = depsFor(
      api,
      {},
      {
        render: (i) => {
          const out = renderDeployment(i);
          for (const o of out.objects) {
            o.metadata.annotations = { ...o.metadata.annotations, 'mooring.dev/revision-id': revisionId };
          }
          return out;
        },
      },
    );
    const first = await reconcileDeployment(older, input(dep));
    const objects = first.changeSet.entries.length;
    const carriers = renderDeployment(input(dep)).objects.filter(
      (o) => o.metadata.annotations?.['mooring.dev/revision-id'] !== undefined,
    ).length;
    const deps = depsFor(api);
    const upgraded = await reconcileDeployment(deps, input(dep));
    // The credentials Secret is create-only: never written again, so it keeps the old annotation.
    const rewritten = upgraded.changeSet.entries.filter((e) => e.action === 'configured').length;
    expect(rewritten).toBe(objects - carriers - 1);
    const service = api.getObject('v1', 'Service', 'apps', 'upgraded') as {
      metadata: { annotations?: Record<string, string> };
    };
    expect(service.metadata.annotations?.['mooring.dev/revision-id']).toBeUndefined();
    api.clearRequests();
    const again = await reconcileDeployment(deps, input(dep));
    expect(again.changeSet.entries.every((e) => e.action === 'unchanged')).toBe(true);
    expect(api.requests({ write: true })).toEqual([]);
  });

  it('cold: each object is read once before its first write (ADR 0007); a restart on a converged cluster reads no object and writes nothing', async () => {
    const dep = record('5f2c7e1a-8b3d-4c6e-9f0a-1b2c3d4e5f61', { name: 'cold', namespace: 'cold' });
    api.clearRequests();
    const first = await reconcileDeployment(depsFor(api, { namespaces: ['cold'] }), input(dep));
    const objects = first.changeSet.entries.length;
    expect(first.changeSet.entries.every((e) => e.action === 'created')).toBe(true);
    const verbs = (rs: { verb: string }[]) => {
      const n: Record<string, number> = {};
      for (const r of rs) n[r.verb] = (n[r.verb] ?? 0) + 1;
      return n;
    };
    const cold = verbs(api.requests());
    // One GET per object (a 404: it is new), then one write each (the credentials Secret is a create).
    // Lists: its own 8 kinds, and one for each claim and Secret its pods refer to, looked up by name
    // for whose it is (reconcile/identity.ts; the agent reads those from its cycle's listing instead).
    const referenced = referencedIds(dep, 'cold').size;
    expect(referenced).toBeGreaterThan(0);
    expect(cold).toEqual({ list: 8 + referenced, get: objects, apply: objects - 1, create: 1 });
    api.clearRequests();
    // A restart: a new resource manager, its memo empty, the cluster converged.
    const again = await reconcileDeployment(depsFor(api, { namespaces: ['cold'] }), input(dep));
    expect(again.changeSet.entries.every((e) => e.action === 'unchanged')).toBe(true);
    expect(verbs(api.requests())).toEqual({ list: 8 + referenced });
    console.log(
      `cold convergence: ${objects} objects, ${cold.get} GETs before the first writes (were 0), ${objects} writes; restart: 0 GETs, 0 writes`,
    );
  });
});
