/**
 * What a pass keeps of an apply's answer until it ends (`observed`): health, the memo's version
 * and the Event's uid read it, none of them our own entry's tree of managed fields, which is most
 * of a metadata answer. It is reduced as a listing's entries are (compact-live.ts), by both ways
 * an apply writes: a server-side apply against a listing, and a census's create-only write.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knownVersion, objectVersion } from '../../src/kube/object-version.ts';
import type { KubeObject, ManagedFieldsEntry } from '../../src/objects/kube-object.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { DEPLOYMENT, deployment, LISTENER } from './fixtures.ts';
import { managerFor } from './sandbox.ts';

const NAMESPACES = ['applied', 'census', 'versioned'];
const ID = (ns: string) => `Deployment/${ns}/app`;
let api: KubeApi;

beforeAll(async () => {
  api = await startKubeApi({ namespaces: NAMESPACES });
});
afterAll(async () => {
  await api?.close();
});

const ours = (obj: KubeObject | undefined): ManagedFieldsEntry | undefined =>
  obj?.metadata.managedFields?.find((e) => e.manager === 'mooring' && !e.subresource);

describe("an apply's answer as the pass keeps it", () => {
  it('keeps of our own managed fields only spec.replicas (a server-side apply)', async () => {
    const rm = managerFor(api);
    const observed = new Map<string, KubeObject>();
    const cs = await rm.applyAll([deployment('applied')], { live: new Map(), observed });
    expect(cs.entries[0]?.action).toBe('created');
    // The live object's entry names every field we set; the kept answer's only the replicas.
    const live = api.getObject('apps/v1', 'Deployment', 'applied', 'app') as KubeObject;
    expect(JSON.stringify(ours(live)?.fieldsV1)).toContain('f:template');
    const answer = observed.get(ID('applied'));
    expect(ours(answer)?.fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect(answer?.metadata.generation).toBe(1);
    expect(answer?.metadata.uid).toBe(live.metadata.uid);
  });

  it("keeps of our own managed fields only spec.replicas (a census's create-only write)", async () => {
    const rm = managerFor(api);
    const observed = new Map<string, KubeObject>();
    const inv = await rm.listOwned({
      namespaces: ['census'],
      listenerId: LISTENER,
      deploymentId: DEPLOYMENT,
    });
    const desired = deployment('census');
    const cs = await rm.applyAll([desired], { live: inv.byId, census: rm.census(), observed });
    expect(cs.entries[0]?.action).toBe('created');
    expect(api.requests({ write: true }).some((r) => r.method === 'POST')).toBe(true);
    const live = api.getObject('apps/v1', 'Deployment', 'census', 'app') as KubeObject;
    expect(JSON.stringify(ours(live)?.fieldsV1)).toContain('f:template');
    const answer = observed.get(ID('census'));
    expect(ours(answer)?.fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect(answer?.metadata.uid).toBe(live.metadata.uid);
  });

  it('carries the version the memo took, so the pass does not digest the answer again', async () => {
    const rm = managerFor(api);
    const observed = new Map<string, KubeObject>();
    const key = 'input-key-1';
    const cs = await rm.applyAll([deployment('versioned')], { live: new Map(), observed, inputKey: key });
    expect(cs.entries[0]?.action).toBe('created');
    const answer = observed.get(ID('versioned')) as KubeObject;
    const version = objectVersion(answer);
    // The pass's check (converged.ts) sees the answer verified at the version the memo holds.
    expect(rm.isVerified(answer, key)).toBe(true);
    // Kept on the answer: a label changed on this very object would be seen only by a new digest.
    (answer.metadata.labels as Record<string, string>).extra = 'x';
    expect(objectVersion(answer)).not.toBe(version);
    expect(knownVersion(answer)).toBe(version);
    // A new object (the next listing's, or a read) is digested anew, so a change is seen there.
    const changed = { ...answer, metadata: { ...answer.metadata } };
    expect(rm.isVerified(changed, key)).toBe(false);
  });
});
