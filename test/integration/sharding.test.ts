/**
 * Three agents sharing one listener over six shards, in this process, against the sandbox
 * Kubernetes API and the reference control plane: they split the shards two each, and each object
 * of the 30 deployments created after the split is written by exactly one of them (the holder of
 * its deployment's shard), every one writing a share.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardOf } from '../../src/agent/shards.ts';
import type { WiredAgent } from '../../src/cli/wiring.ts';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import type { ControlPlaneServer } from '../../src/control-plane/server/index.ts';
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
    const holderOf = (shard: number) => REPLICAS.find((r) => held(r).includes(shard));
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
    // The split did not move while they converged.
    expect(REPLICAS.flatMap(held).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    const writes = kube
      .requests()
      .filter((r) => r.write && r.kind !== 'Lease' && r.kind !== 'Event' && Date.parse(r.time) >= since);
    const writers = new Map<string, Set<string>>();
    for (const r of writes) {
      const identity = /\(([^)]+)\)/.exec(r.userAgent ?? '')?.[1] ?? '?';
      const key = `${r.kind}/${r.name}`;
      writers.set(key, (writers.get(key) ?? new Set()).add(identity));
    }
    for (const name of names) {
      const expected = holderOf(shardOf(ids.get(name)!, SHARDS));
      expect([...(writers.get(`Deployment/${name}`) ?? [])], name).toEqual([expected]);
    }
    for (const [key, who] of writers) expect(who.size, key).toBe(1);
    const all = new Set([...writers.values()].flatMap((s) => [...s]));
    expect(all).toEqual(new Set(REPLICAS));
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
