/**
 * Records the agent cannot use for one reason refuse that one deployment, never the listener
 * (src/agent/poller.ts, src/reconcile/orphan-pass.ts): a deployment record whose secrets carry no
 * values (the interface does not promise them) is refused with a coded reason on /status and in an
 * Event, its own objects are kept, and every other deployment is reconciled and pruned normally.
 * An unparsable record of another listener blocks nothing here.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WiredAgent } from '../../src/cli/wiring.ts';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import type { ControlPlaneServer } from '../../src/control-plane/server/index.ts';
import { orphanListing } from '../../src/reconcile/orphan-pass.ts';
import { OrphanCollector } from '../../src/reconcile/orphans.ts';
import { createKubeClient } from '../../src/kube/clients.ts';
import { inventoryOf } from '../../src/kube/list.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { startListenerControlPlane, wireTestAgent } from '../support/wired-agent.ts';
import { smallDeployment } from '../support/deployment-body.ts';
import type { DeploymentRecord } from '../../src/contract/index.ts';
import { type ListingProxy, startListingProxy } from '../reliability/lib/listing-proxy.ts';

const LISTENER = '8e3f2c4d-5f6a-4b7c-8d9e-0f1a2b3c4d5e';
const NS = 'apps';

let kube: KubeApi;
let cp: ControlPlaneServer;
let client: ControlPlaneClient;
let wired: WiredAgent;
/** Between the agent and the control plane: hides records and adds raw ones. */
let proxy: ListingProxy;

beforeAll(async () => {
  const apiKey = randomBytes(16).toString('hex');
  kube = await startKubeApi({ namespaces: [NS] });
  cp = await startListenerControlPlane({
    apiKey,
    listenerId: LISTENER,
    namespaces: [NS],
    name: 'secretless',
  });
  client = new ControlPlaneClient({ baseUrl: cp.url, apiKey, retries: 0 });
  proxy = await startListingProxy(cp.url);
  wired = wireTestAgent({
    controlPlaneUrl: proxy.url,
    apiKey,
    listenerId: LISTENER,
    namespaces: [NS],
    kubeconfig: kube.kubeconfig,
  });
}, 30_000);

afterAll(async () => {
  await client?.close();
  await proxy?.close();
  await cp?.close();
  await kube?.close();
});

const body = (name: string) => ({
  ...smallDeployment(name, LISTENER, NS),
  secrets: [{ name: 'TOKEN', value: `token-of-${name}` }],
});

describe('a record whose secrets carry no values', () => {
  it('refuses that deployment alone (coded, on /status and in an Event), keeps its objects, and the others are reconciled and pruned (regression: rejected as unparsable, pruning suspended)', async () => {
    const cycle = () => wired.agent.runOnce(AbortSignal.timeout(20_000));
    const keep = await client.createDeployment(body('keep'));
    const quiet = await client.createDeployment(body('quiet'));
    const gone = await client.createDeployment(body('gone'));
    await cycle();
    const owned = async (id: string) =>
      (await wired.resources.listOwned({ namespaces: [NS], listenerId: LISTENER, deploymentId: id })).objects;
    for (const d of [keep, quiet, gone]) expect((await owned(d.id)).length).toBeGreaterThan(2);

    // From now on the control plane leaves the values out of `quiet`'s record, and lists an
    // unparsable record of another listener; `gone` is no longer listed at all.
    proxy.mode = new Set([quiet.id, gone.id]);
    proxy.extra = [
      { ...quiet, secrets: quiet.secrets.map((x) => ({ name: x.name })) },
      { id: 'not-a-uuid', source_config: { listener_id: '00000000-0000-4000-8000-000000000000' } },
    ];
    await cycle();
    await cycle();
    await cycle();

    const status = wired.agent.statusDocument();
    expect(status.pruneRefused).toBeNull();
    const entry = status.deployments.find((d) => d.id === quiet.id);
    expect(entry?.state).toBe('Refused');
    expect(entry?.reason).toMatch(/^MOORING_E_RECORD_INVALID: .*TOKEN.*no value/);
    // Its objects are kept; the removed deployment's are pruned; the other one is untouched.
    expect((await owned(quiet.id)).length).toBeGreaterThan(2);
    // (its volume claim aside: volumes are kept unless --delete-volumes)
    expect((await owned(gone.id)).filter((o) => o.kind !== 'PersistentVolumeClaim')).toEqual([]);
    expect((await owned(keep.id)).length).toBeGreaterThan(2);
    await wired.close();
    // The refusal is an Event in the deployment's namespace, naming the code.
    const http = createKubeClient(kube.kubeconfig);
    const events = await http.request<{ items: { reason: string; message: string }[] }>({
      method: 'GET',
      path: `/api/v1/namespaces/${NS}/events`,
    });
    await http.close();
    const refusals = events.body.items.filter((e) => e.message.includes('MOORING_E_RECORD_INVALID'));
    expect(refusals.map((e) => e.reason)).toEqual(['Refused']);
    expect(refusals[0]?.message).toContain(quiet.id);
  }, 60_000);
});

describe('unparsable records in the orphan pass', () => {
  const listed = (id: string) => ({
    deployment: {
      id,
      status: 'READY',
      source_config: { listener_config: { k8s_namespace: NS } },
    } as unknown as DeploymentRecord,
  });
  it('one of another listener blocks nothing; one of ours with an id protects only its own objects (regression: any rejected record suspended all pruning)', () => {
    const collector = new OrphanCollector();
    const A = '0a0a0a0a-0000-4000-8000-00000000000a';
    const B = '0b0b0b0b-0000-4000-8000-00000000000b';
    const objects = [A, B].map((dep) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: dep, namespace: NS, labels: { 'mooring.dev/deployment-id': dep } },
    }));
    const inventory = inventoryOf(objects);
    const rejected = [
      {
        index: 0,
        id: '0c0c0c0c-0000-4000-8000-00000000000c',
        listenerId: 'another',
        code: 'MOORING_E_RECORD_INVALID' as const,
        reason: 'x',
      },
      { index: 1, id: B, listenerId: LISTENER, code: 'MOORING_E_RECORD_INVALID' as const, reason: 'x' },
    ];
    // Neither A nor B is listed; B's record is there but unparsable.
    for (let i = 0; i < 2; i++) {
      const plan = collector.observe(orphanListing([listed('c')], rejected, LISTENER), inventory);
      expect(plan.refused).toBeUndefined();
      if (i === 1) expect(plan.objects.map((o) => o.metadata.name)).toEqual([A]);
    }
  });
});
