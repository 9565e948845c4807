import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileDeployment } from '../../src/reconcile/reconcile.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { depsFor, input, record } from './fixtures.ts';

let api: KubeApi;
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
    // One list per managed kind per reconcile; never a per-object GET on a converged deployment.
    expect(reads.every((r) => r.verb === 'list')).toBe(true);
    expect(reads.length / 10).toBeLessThanOrEqual(objects);
    console.log(`converged: ${objects} objects, ${reads.length / 10} reads and 0 writes per reconcile`);
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
    // Lists: 8 of its own kinds, and 2 of the namespace's claims and Secrets, read for whose they
    // are (reconcile/identity.ts; the agent reads those from its cycle's listing instead).
    expect(cold).toEqual({ list: 10, get: objects, apply: objects - 1, create: 1 });
    api.clearRequests();
    // A restart: a new resource manager, its memo empty, the cluster converged.
    const again = await reconcileDeployment(depsFor(api, { namespaces: ['cold'] }), input(dep));
    expect(again.changeSet.entries.every((e) => e.action === 'unchanged')).toBe(true);
    expect(verbs(api.requests())).toEqual({ list: 10 });
    console.log(
      `cold convergence: ${objects} objects, ${cold.get} GETs before the first writes (were 0), ${objects} writes; restart: 0 GETs, 0 writes`,
    );
  });
});
