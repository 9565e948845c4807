/**
 * The helpers the sharding proofs stand on, against a real sandbox: the change feed reports every
 * Lease write, so terms are exact; the request log puts each write down to the replica named in
 * its User-Agent; and the fencing check flags a write by a replica not holding the object's shard
 * (when it arrived, or when it was applied), and two replicas writing one object in one term,
 * while passing a clean handover.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABELS } from '../../src/labels.ts';
import { APPLY, type Sandbox, startSandbox } from '../sandbox/helpers.ts';
import { LeaseTerms } from './lease-terms.ts';
import { checkFencing, DeploymentOfObject, renderOwners, storedOrRendered } from './shard-fencing.ts';
import { objectsPerWriter, writerOf, writersByObject, writesByObject } from './writers.ts';
import { sleep } from './wait.ts';

const NS = 'default';
const ua = (identity: string) => ({ 'user-agent': `mooring/1.2.3 (${identity})` });

describe('who wrote what, and under which Lease term', () => {
  let sb: Sandbox;
  let terms: LeaseTerms;
  let owners: DeploymentOfObject;

  const lease = (holder: string, transitions: number, as: string) =>
    sb.call(
      'PUT',
      `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/shard-0`,
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'shard-0', namespace: NS },
        spec: {
          holderIdentity: holder,
          leaseDurationSeconds: 3,
          leaseTransitions: transitions,
          acquireTime: `2026-01-01T00:00:0${transitions}.000000Z`,
          renewTime: new Date().toISOString().replace('Z', '000Z'),
        },
      },
      ua(as),
    );
  const writeSecret = async (as: string) => {
    const res = await sb.call(
      'PATCH',
      `/api/v1/namespaces/${NS}/secrets/web-env?fieldManager=mooring`,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'web-env', namespace: NS, labels: { [LABELS.deploymentId]: 'd-1' } },
        stringData: { A: as },
      },
      { ...APPLY, ...ua(as) },
    );
    expect(res.status).toBeLessThan(300);
    // Keeps each write in a millisecond of its own, apart from the term changes around it.
    await sleep(5);
  };

  beforeAll(async () => {
    sb = await startSandbox();
    terms = new LeaseTerms(sb.api, NS);
    owners = new DeploymentOfObject(sb.api);
    const created = await sb.call(
      'POST',
      `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`,
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'shard-0', namespace: NS },
        spec: { holderIdentity: 'a', leaseTransitions: 0, acquireTime: '2026-01-01T00:00:00.000000Z' },
      },
      ua('a'),
    );
    expect(created.status).toBe(201);
    await sleep(5);
  });
  afterAll(async () => {
    terms.stop();
    owners.stop();
    await sb.close();
  });

  it('names the replica of a mooring User-Agent, and no one for other clients', () => {
    expect(writerOf('mooring/0.4.0 (mooring-6d9f-abc)')).toBe('mooring-6d9f-abc');
    expect(writerOf('kubectl/v1.31.0 (linux/amd64) kubernetes/abc')).toBeUndefined();
    expect(writerOf(undefined)).toBeUndefined();
  });

  it('a clean handover passes: a writes in its term, a renewal keeps it, b writes in its own', async () => {
    sb.api.clearRequests();
    await writeSecret('a');
    expect((await lease('a', 0, 'a')).status).toBe(200); // a renewal, same term
    await sleep(5);
    await writeSecret('a');
    expect((await lease('b', 1, 'b')).status).toBe(200); // b takes over
    await sleep(5);
    await writeSecret('b');

    expect(terms.terms('shard-0').map((t) => [t.holder, t.leaseTransitions])).toEqual([
      ['a', 0],
      ['b', 1],
    ]);
    const writes = writesByObject(sb.api.requests(), new Set(['Secret']));
    expect(writersByObject(writes).get(`Secret/${NS}/web-env`)).toEqual(['a', 'b']);
    expect(Object.fromEntries(objectsPerWriter(writes))).toEqual({ a: 1, b: 1 });
    const report = checkFencing(writes, owners, terms, () => 'shard-0');
    expect(report).toEqual({ breaches: [], sharedTerms: [], unattributed: [], checked: 3 });
  });

  it('a write by the deposed holder is a breach, and its term then has two writers', async () => {
    sb.api.clearRequests();
    await writeSecret('b');
    await writeSecret('a'); // a lost shard-0 to b above, yet writes
    const writes = writesByObject(sb.api.requests(), new Set(['Secret']));
    const report = checkFencing(writes, owners, terms, () => 'shard-0');
    expect(report.breaches.map((b) => [b.object, b.write.writer, b.holders])).toEqual([
      [`Secret/${NS}/web-env`, 'a', ['b']],
    ]);
    expect(report.sharedTerms).toEqual([`Secret/${NS}/web-env in shard-0 b #1`]);
  });

  it("a write that arrived in its writer's term but was applied in the next holder's is a breach", async () => {
    expect((await lease('c', 2, 'c')).status).toBe(200); // c holds shard-0
    await sleep(5);
    sb.api.clearRequests();
    sb.api.setFaults([{ resource: 'secrets', latencyMs: 300, count: 1 }]);
    const slow = writeSecret('c'); // arrives now, is applied 300 ms later
    await sleep(100);
    expect((await lease('d', 3, 'd')).status).toBe(200); // d takes over meanwhile
    await slow;
    sb.api.clearFaults();
    const writes = writesByObject(sb.api.requests(), new Set(['Secret']));
    const [write] = writes.get(`Secret/${NS}/web-env`) ?? [];
    expect((write?.done ?? 0) - (write?.at ?? 0)).toBeGreaterThanOrEqual(290);
    const report = checkFencing(writes, owners, terms, () => 'shard-0');
    expect(report.breaches.map((b) => [b.write.writer, b.holders])).toEqual([['c', ['d']]]);
  });

  it('a write while no one holds the shard is a breach; an unlabelled object is reported, not passed', async () => {
    expect((await lease('', 3, 'd')).status).toBe(200); // d releases
    await sleep(5);
    sb.api.clearRequests();
    await writeSecret('d');
    await sb.call(
      'POST',
      `/api/v1/namespaces/${NS}/configmaps`,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stray', namespace: NS } },
      ua('d'),
    );
    expect(terms.holder('shard-0')).toBe('');
    const writes = writesByObject(sb.api.requests());
    const report = checkFencing(writes, owners, terms, () => 'shard-0');
    expect(report.breaches.map((b) => [b.write.writer, b.holders])).toEqual([['d', ['']]]);
    expect(report.unattributed).toEqual([`ConfigMap/${NS}/stray`]);
  });

  it('a failed write of an object never stored is checked against the render that names its deployment', async () => {
    sb.api.clearRequests();
    sb.api.setFaults([{ resource: 'secrets', status: 409, count: 1 }]);
    const res = await sb.call(
      'PATCH',
      `/api/v1/namespaces/${NS}/secrets/gone-env?fieldManager=mooring`,
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'gone-env', namespace: NS } },
      { ...APPLY, ...ua('d') },
    );
    sb.api.clearFaults();
    expect(res.status).toBe(409);
    const writes = writesByObject(sb.api.requests(), new Set(['Secret']));
    expect(checkFencing(writes, owners, terms, () => 'shard-0').unattributed).toEqual([
      `Secret/${NS}/gone-env`,
    ]);
    const both = storedOrRendered(owners, new Map([[`Secret/${NS}/gone-env`, 'd-1']]));
    const report = checkFencing(writes, both, terms, () => 'shard-0');
    expect(report.unattributed).toEqual([]);
    // d released shard-0 above, so even a refused write of it is a breach.
    expect(report.breaches.map((b) => [b.object, b.write.writer, b.holders])).toEqual([
      [`Secret/${NS}/gone-env`, 'd', ['']],
    ]);
    expect([...both.neverStored]).toEqual([`Secret/${NS}/gone-env`]);
    // An object two deployments render is neither's: its write stays unattributed.
    const shared = renderOwners([
      [`Secret/${NS}/gone-env`, 'd-1'],
      [`Secret/${NS}/gone-env`, 'd-2'],
      [`Secret/${NS}/gone-env`, 'd-1'],
      [`Secret/${NS}/other-env`, 'd-2'],
    ]);
    expect([...shared]).toEqual([[`Secret/${NS}/other-env`, 'd-2']]);
    const neither = checkFencing(writes, storedOrRendered(owners, shared), terms, () => 'shard-0');
    expect(neither.unattributed).toEqual([`Secret/${NS}/gone-env`]);
    // A stored object's labels still win over a render.
    expect(
      storedOrRendered(owners, new Map([[`Secret/${NS}/web-env`, 'd-2']])).get(`Secret/${NS}/web-env`),
    ).toBe('d-1');
  });
});
