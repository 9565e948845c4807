/**
 * Acceptance: a deposed leader makes no write after losing its Lease. The sandbox holds every
 * Deployment apply for longer than the leader's renew deadline; while those are in flight another
 * holder takes the Lease. The leader steps down at its renew deadline, and its writes in flight are
 * cut there: the API server sees no write of it after that moment, and acts on none of the held
 * ones (no Deployment exists once their latency has passed).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WiredAgent } from '../../src/cli/wiring.ts';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import type { ControlPlaneServer } from '../../src/control-plane/server/index.ts';
import { createKubeClient } from '../../src/kube/clients.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { smallDeployment } from '../support/deployment-body.ts';
import { startListenerControlPlane, wireTestAgent } from '../support/wired-agent.ts';

const LISTENER = '5c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const NAMESPACE = 'apps';
/** Longer than the renew deadline (10 s) plus a retry period: the apply outlives the leadership. */
const APPLY_LATENCY_MS = 15_000;

let kube: KubeApi;
let cp: ControlPlaneServer;
let wired: WiredAgent;
const stop = new AbortController();
let running: Promise<void> | undefined;

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Another replica takes the Lease, as one would after seeing it expire. */
async function usurp(): Promise<void> {
  const http = createKubeClient(kube.kubeconfig);
  const path = `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases/mooring-leader`;
  try {
    const lease = (await http.request<{ spec: Record<string, unknown> }>({ method: 'GET', path })).body;
    const now = new Date().toISOString().replace(/Z$/, '000Z');
    lease.spec = { ...lease.spec, holderIdentity: 'usurper', renewTime: now, acquireTime: now };
    await http.request({ method: 'PUT', path, body: lease });
  } finally {
    await http.close();
  }
}

beforeAll(async () => {
  const apiKey = randomBytes(16).toString('hex');
  kube = await startKubeApi({ namespaces: [NAMESPACE] });
  cp = await startListenerControlPlane({
    apiKey,
    listenerId: LISTENER,
    namespaces: [NAMESPACE],
    name: 'deposed',
  });
  const client = new ControlPlaneClient({ baseUrl: cp.url, apiKey, retries: 0 });
  for (const name of ['one', 'two', 'three']) {
    await client.createDeployment(smallDeployment(name, LISTENER, NAMESPACE));
  }
  wired = wireTestAgent({
    controlPlaneUrl: cp.url,
    apiKey,
    listenerId: LISTENER,
    namespaces: [NAMESPACE],
    kubeconfig: kube.kubeconfig,
    env: { MOORING_LEADER_ELECTION: 'true', MOORING_POD_NAME: 'leader' },
  });
});

afterAll(async () => {
  stop.abort();
  await running?.catch(() => undefined);
  await wired?.close();
  await cp?.close();
  await kube?.close();
});

describe('a leader deposed while its writes are in flight', () => {
  it('makes no write after losing its Lease, and none of those in flight is acted on', {
    timeout: 60_000,
  }, async () => {
    // A cold start creates what the listing does not hold and applies the rest: hold both.
    kube.setFaults([
      { verb: 'apply', resource: 'deployments', latencyMs: APPLY_LATENCY_MS },
      { verb: 'create', resource: 'deployments', latencyMs: APPLY_LATENCY_MS },
    ]);
    const held = () =>
      kube.requests({ resource: 'deployments' }).filter((r) => r.verb === 'apply' || r.verb === 'create');
    running = wired.agent.run(stop.signal);
    await until('a write of a Deployment in flight', () => held().length > 0, 30_000);
    expect(wired.agent.isLeader).toBe(true);
    await usurp();
    const deposedAt = await until(
      'the leader to step down',
      () => !wired.agent.isLeader && Date.now(),
      30_000,
    );
    // Past the held applies' latency: had any been finished, its Deployment would exist now.
    const firstHeld = Math.min(...held().map((r) => Date.parse(r.time)));
    await new Promise((r) => setTimeout(r, Math.max(0, firstHeld + APPLY_LATENCY_MS + 1_000 - Date.now())));
    const late = kube
      .requests()
      .filter((r) => r.write && r.kind !== 'Lease' && Date.parse(r.time) >= deposedAt)
      .map((r) => `${r.verb} ${r.kind}/${r.name}`);
    expect(late).toEqual([]);
    for (const name of ['one', 'two', 'three']) {
      expect(kube.hasObject('apps/v1', 'Deployment', NAMESPACE, name)).toBe(false);
    }
    // The cut reconciles are cancellations, not failures the status would show.
    const states = wired.agent.statusDocument().deployments.map((d) => d.state);
    expect(states.filter((s) => s === 'Retrying' || s === 'Refused')).toEqual([]);
  });
});
