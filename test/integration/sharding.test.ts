/**
 * Three agents sharing one listener over six shards, in this process, against the sandbox
 * Kubernetes API and the reference control plane: they split the shards two each, and each write
 * of an object of the 30 deployments created after the split comes from the replica holding its
 * deployment's shard at that moment, every one writing a share.
 *
 * "At that moment", not "at the split": the three agents, the sandbox and the control plane share
 * one event loop, and with the shortest lease (3 s) a loaded machine starved it for 4 to 7 s at a
 * time (Lease writes of one replica that far apart in the sandbox's log), so Leases expired and
 * shards moved, as the design means them to. The holder at each write is read from the log: the
 * last writer of the shard's Lease before it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardOf } from '../../src/agent/shards.ts';
import type { WiredAgent } from '../../src/cli/wiring.ts';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import type { ControlPlaneServer } from '../../src/control-plane/server/index.ts';
import type { RequestRecord } from '../../src/sandbox/request-log.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { smallDeployment } from '../support/deployment-body.ts';
import { startListenerControlPlane, wireTestAgent } from '../support/wired-agent.ts';

const LISTENER = '6d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a';
const NAMESPACE = 'apps';
const SHARDS = 6;
const REPLICAS = ['replica-a', 'replica-b', 'replica-c'];

let kube: KubeApi;
let cp: ControlPlaneServer;
let client: ControlPlaneClient;
const agents = new Map<string, WiredAgent>();
/** Each replica's own stop (a SIGTERM of its pod). */
const stops = new Map(REPLICAS.map((r) => [r, new AbortController()]));
const running: Promise<void>[] = [];

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  const apiKey = randomBytes(16).toString('hex');
  kube = await startKubeApi({ namespaces: [NAMESPACE] });
  cp = await startListenerControlPlane({
    apiKey,
    listenerId: LISTENER,
    namespaces: [NAMESPACE],
    name: 'shards',
  });
  client = new ControlPlaneClient({ baseUrl: cp.url, apiKey, retries: 0 });
  for (const identity of REPLICAS) {
    agents.set(
      identity,
      wireTestAgent({
        controlPlaneUrl: cp.url,
        apiKey,
        listenerId: LISTENER,
        namespaces: [NAMESPACE],
        kubeconfig: kube.kubeconfig,
        env: {
          MOORING_LEADER_ELECTION: 'true',
          MOORING_SHARDS: String(SHARDS),
          MOORING_LEASE_DURATION: '3',
          MOORING_POLL_INTERVAL: '1',
          MOORING_HEARTBEAT_INTERVAL: '1',
          MOORING_POD_NAME: identity,
        },
      }),
    );
  }
});

afterAll(async () => {
  for (const s of stops.values()) s.abort();
  await Promise.all(running.map((r) => r.catch(() => undefined)));
  for (const a of agents.values()) await a.close();
  await cp?.close();
  await kube?.close();
});

describe('three agents over six shards', () => {
  it('split the shards, and write each object from one replica only, every one a share', {
    timeout: 90_000,
  }, async () => {
    for (const [id, a] of agents) running.push(a.agent.run(stops.get(id)!.signal));
    const held = (id: string) => agents.get(id)!.agent.statusDocument().shards?.held ?? [];
    await until('the shards to be split two each', () => REPLICAS.every((r) => held(r).length === 2), 30_000);
    const since = Date.now();
    const names = Array.from({ length: 30 }, (_, i) => `sharded-${i}`);
    const ids = new Map<string, string>();
    for (const name of names) {
      const created = await client.createDeployment(smallDeployment(name, LISTENER, NAMESPACE));
      ids.set(name, created.id);
    }
    await until(
      'every Deployment to exist',
      () => names.every((n) => kube.hasObject('apps/v1', 'Deployment', NAMESPACE, n)),
      45_000,
    );
    expect(REPLICAS.flatMap(held).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    const who = (r: RequestRecord) => /\(([^)]+)\)/.exec(r.userAgent ?? '')?.[1] ?? '?';
    const log = kube.requests();
    // Each shard's holder over time: the writer of its Lease's latest write (a take or a renewal).
    const leaseWrites = log.filter((r) => r.kind === 'Lease' && r.write && r.status < 300);
    const holderAt = (shard: number, time: string): string | undefined => {
      const last = leaseWrites.filter((r) => r.name === `mooring-leader-${shard}` && r.time <= time).at(-1);
      return last && who(last);
    };
    // An object's deployment by its name (`<deployment>` or `<deployment>-<part>`, the longest match).
    const deploymentOf = (name: string) =>
      names.filter((n) => name === n || name.startsWith(`${n}-`)).sort((a, b) => b.length - a.length)[0];
    const writes = log.filter(
      (r) =>
        r.write &&
        r.kind !== 'Lease' &&
        r.kind !== 'Event' &&
        deploymentOf(r.name ?? '') !== undefined &&
        Date.parse(r.time) >= since,
    );
    for (const name of names)
      expect(
        writes.some((r) => r.kind === 'Deployment' && r.name === name),
        name,
      ).toBe(true);
    for (const r of writes) {
      const shard = shardOf(ids.get(deploymentOf(r.name ?? '')!)!, SHARDS);
      expect(who(r), `${r.kind}/${r.name} at ${r.time}`).toBe(holderAt(shard, r.time));
    }
    // Every replica wrote a share.
    expect(new Set(writes.map(who))).toEqual(new Set(REPLICAS));
  });

  it('a replica stopping gives its shards to the others, and a deployment created then converges there', {
    timeout: 60_000,
  }, async () => {
    const held = (id: string) => agents.get(id)!.agent.statusDocument().shards?.held ?? [];
    const leaving = held('replica-c');
    stops.get('replica-c')!.abort();
    await running[2];
    const stayed = ['replica-a', 'replica-b'];
    await until('the two left to hold every shard', () => stayed.flatMap(held).length === SHARDS, 20_000);
    expect(stayed.flatMap(held).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    // A deployment of one of the shards that moved, created after the move.
    let name = '';
    let id = '';
    for (let i = 0; !leaving.includes(shardOf(id, SHARDS)) || id === ''; i++) {
      name = `after-${i}`;
      id = (await client.createDeployment(smallDeployment(name, LISTENER, NAMESPACE))).id;
    }
    await until('it to converge', () => kube.hasObject('apps/v1', 'Deployment', NAMESPACE, name), 20_000);
    const writer = kube
      .requests({ resource: 'deployments' })
      .filter((r) => r.write && r.name === name)
      .map((r) => /\(([^)]+)\)/.exec(r.userAgent ?? '')?.[1]);
    const holder = stayed.find((r) => held(r).includes(shardOf(id, SHARDS)));
    expect(new Set(writer)).toEqual(new Set([holder]));
  });
});
