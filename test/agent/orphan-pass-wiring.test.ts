/**
 * The wired agent's orphan pass, cycle by cycle (`runOnce`), against the reference control plane
 * and the sandbox Kubernetes API: a deployment moved to another of the agent's namespaces has what
 * it left behind pruned once it runs in the new one, and an idle cycle still lists once.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WiredAgent } from '../../src/cli/wiring.ts';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import type { ControlPlaneServer } from '../../src/control-plane/server/index.ts';
import { LISTED_KINDS } from '../../src/objects/kinds.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { startListenerControlPlane, wireTestAgent } from '../support/wired-agent.ts';

const LISTENER = '6c1f0a2b-3d4e-4f5a-8b6c-7d8e9f0a1b2c';
const NAMESPACES = ['apps', 'other'];

let kube: KubeApi;
let cp: ControlPlaneServer;
let client: ControlPlaneClient;
let wired: WiredAgent;

beforeAll(async () => {
  const apiKey = randomBytes(16).toString('hex');
  kube = await startKubeApi({ namespaces: NAMESPACES });
  cp = await startListenerControlPlane({
    apiKey,
    listenerId: LISTENER,
    namespaces: NAMESPACES,
    name: 'orphan-pass',
  });
  client = new ControlPlaneClient({ baseUrl: cp.url, apiKey, retries: 0 });
  wired = wireTestAgent({
    controlPlaneUrl: cp.url,
    apiKey,
    listenerId: LISTENER,
    namespaces: NAMESPACES,
    kubeconfig: kube.kubeconfig,
    // Cycles back to back, each judged on a listing made at its start: with watches (ADR 0014) the
    // listing is as fresh as the events delivered by then, and the move may count a cycle later.
    env: { MOORING_WATCH: 'false' },
  });
}, 30_000);

afterAll(async () => {
  await wired?.close();
  await client?.close();
  await cp?.close();
  await kube?.close();
});

describe('wired orphan pass', () => {
  it('prunes what a moved deployment left in its old namespace once it runs in the new one (regression: never pruned)', async () => {
    const sourceConfig = (ns: string) => ({
      listener_id: LISTENER,
      listener_config: { k8s_namespace: ns },
      resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.25, memory_mb: 128 },
    });
    const created = await client.createDeployment({
      name: 'mover',
      source: 'external_docker',
      source_config: sourceConfig('apps'),
      source_revision_config: { image_uri: 'registry.example/mover:1.0.0' },
      secrets: [],
    });
    const cycle = () => wired.agent.runOnce(AbortSignal.timeout(20_000));
    const owned = async (ns: string) =>
      (
        await wired.resources.listOwned({ namespaces: [ns], listenerId: LISTENER, deploymentId: created.id })
      ).objects.filter((o) => o.kind !== 'PersistentVolumeClaim');
    await cycle();
    const inApps = await owned('apps');
    expect(inApps.length).toBeGreaterThan(3);

    await client.patchDeployment(created.id, { source_config: sourceConfig('other') });
    await cycle(); // the listing predates the move: applied in `other`, nothing pruned
    await cycle(); // running in `other`: what it left in `apps` is absent once
    expect((await owned('apps')).map((o) => o.metadata.uid)).toEqual(inApps.map((o) => o.metadata.uid));
    const inOther = (await owned('other')).map((o) => o.metadata.uid).sort();
    expect(inOther.length).toBe(inApps.length);

    kube.clearRequests();
    await cycle(); // absent twice: pruned
    expect(await owned('apps')).toEqual([]);
    const deletes = kube.requests({ verb: 'delete' });
    expect(deletes.length).toBe(inApps.length);
    expect(deletes.every((r) => r.namespace === 'apps')).toBe(true);
    expect((await owned('other')).map((o) => o.metadata.uid).sort()).toEqual(inOther);
    // The pass reports in the namespace it pruned (the reconciles of this cycle write nothing there).
    expect(kube.requests({ verb: 'create', resource: 'events', namespace: 'apps' }).length).toBe(1);

    // An idle cycle: one listing (one list call per kind and namespace), shared with the orphan pass.
    // Each `runOnce` is a start, so Ingresses are listed too (exposure off: what an earlier setting left).
    kube.clearRequests();
    await cycle();
    expect(kube.requests({ verb: 'list' }).length).toBe((LISTED_KINDS.length + 1) * NAMESPACES.length);
    expect(kube.requests({ write: true })).toEqual([]);
  }, 60_000);
});
