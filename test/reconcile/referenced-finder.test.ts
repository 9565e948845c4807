/**
 * A reconcile without the cycle's listing (a restart whose listing kept no entries) looks the
 * claims and Secrets its pods refer to up by name, metadata only, among the objects the listing
 * would select, and judges them by their labels: it never lists a namespace's Secrets for one
 * deployment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MooringError } from '../../src/errors.ts';
import { ResourceManager } from '../../src/kube/resource-manager.ts';
import { LABELS, MANAGED_BY } from '../../src/labels.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { type Reference, referencedFinder } from '../../src/reconcile/identity.ts';
import { reconcileDeployment } from '../../src/reconcile/reconcile.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { CANARY, depsFor, input, kubeOf, LISTENER_ID, record } from './fixtures.ts';

const NS = 'apps';
const OTHER_DEPLOYMENT = '55555555-5555-4555-8555-555555555555';
const OTHER_LISTENER = '44444444-4444-4444-8444-444444444444';

let api: KubeApi;
let resources: ResourceManager;

function secret(name: string, labels: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: NS, labels },
    data: { TOKEN: Buffer.from(CANARY).toString('base64') },
  } as KubeObject;
}
const mooring = (listener: string, deployment = OTHER_DEPLOYMENT) => ({
  [LABELS.managedBy]: MANAGED_BY,
  [LABELS.listenerId]: listener,
  [LABELS.deploymentId]: deployment,
});
const ref = (name: string): Reference => ({ kind: 'Secret', name, field: `Deployment/x:spec.${name}` });

beforeAll(async () => {
  api = await startKubeApi({ namespaces: [NS] });
  resources = new ResourceManager({ kube: kubeOf(api) });
  await resources.create(secret('ours', mooring(LISTENER_ID)));
  await resources.create(secret('theirs', mooring(OTHER_LISTENER)));
  await resources.create(secret('plain', {}));
  await resources.create(secret('victim-postgres-credentials', mooring(LISTENER_ID)));
});
afterAll(async () => {
  await api?.close();
});

describe('identity without a listing: references read by name', () => {
  it("looks each name up once, metadata only, among what this listener's listing would hold", async () => {
    api.clearRequests();
    const refs = ['ours', 'theirs', 'plain', 'absent', 'ours', '', '..', 'Not,A=Name'].map(ref);
    const find = await referencedFinder(resources, refs, NS, LISTENER_ID);
    const ours = find('Secret', NS, 'ours');
    expect(ours?.metadata.labels?.[LABELS.deploymentId]).toBe(OTHER_DEPLOYMENT);
    // Metadata only: the Secret's values are never read.
    expect(Object.keys(ours ?? {}).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(JSON.stringify(ours)).not.toContain(Buffer.from(CANARY).toString('base64'));
    // Another listener's and an unlabelled object are not this listener's listing's either.
    for (const name of ['theirs', 'plain', 'absent']) expect(find('Secret', NS, name)).toBeUndefined();
    // One list call per valid name, selecting it by name and by this listener's labels.
    const owned = `${LABELS.managedBy}=${MANAGED_BY},${LABELS.listenerId}=${LISTENER_ID}`;
    const calls = api.requests().map((r) => `${r.verb} ${r.resource} ${r.fieldSelector} ${r.labelSelector}`);
    expect(calls.sort()).toEqual(
      ['absent', 'ours', 'plain', 'theirs'].map((n) => `list secrets metadata.name=${n} ${owned}`),
    );
  });

  it("refuses a deployment whose pods refer to another deployment's Secret, listing no namespace", async () => {
    api.clearRequests();
    const dep = record('5f2c7e1a-8b3d-4c6e-9f0a-1b2c3d4e5f70', { name: 'victim' });
    const result = reconcileDeployment(depsFor(api, { namespaces: [NS] }), input(dep));
    const err = await result.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MooringError);
    expect((err as MooringError).code).toBe('MOORING_E_FOREIGN_OBJECT');
    expect((err as MooringError).message).toContain(`labelled for deployment ${OTHER_DEPLOYMENT}`);
    expect(api.requests({ write: true })).toEqual([]);
    // Refused before it lists anything of its own: every list call looked one object up by name,
    // none listed the namespace's Secrets.
    const lists = api.requests({ verb: 'list' });
    expect(lists.map((r) => r.fieldSelector)).toContain('metadata.name=victim-postgres-credentials');
    expect(lists.every((r) => r.fieldSelector?.startsWith('metadata.name='))).toBe(true);
  });
});
