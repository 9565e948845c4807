/**
 * Two agents sharing one listener over four shards, in this process, against the sandbox
 * Kubernetes API and the reference control plane: they split the shards two and two, and each
 * object of a deployment created after the split is written by exactly one of them (the holder of
 * its deployment's shard), both writing a share; only one sends the listener heartbeat.
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
const SHARDS = 4;

let kube: KubeApi;
let cp: ControlPlaneServer;
let client: ControlPlaneClient;
const agents = new Map<string, WiredAgent>();
const stop = new AbortController();
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
  for (const identity of ['replica-a', 'replica-b']) {
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
  stop.abort();
  await Promise.all(running.map((r) => r.catch(() => undefined)));
  for (const a of agents.values()) await a.close();
  await cp?.close();
  await kube?.close();
});

describe('two agents over four shards', () => {
  it('split the shards, and write each object from one replica only, both a share', {
    timeout: 90_000,
  }, async () => {
    for (const a of agents.values()) running.push(a.agent.run(stop.signal));
    const held = (id: string) => agents.get(id)!.agent.statusDocument().shards?.held ?? [];
    await until(
      'the shards to be split two and two',
      () => held('replica-a').length === 2 && held('replica-b').length === 2,
      30_000,
    );
    const holderOf = (shard: number) => (held('replica-a').includes(shard) ? 'replica-a' : 'replica-b');
    const since = Date.now();
    const names = Array.from({ length: 12 }, (_, i) => `sharded-${i}`);
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
    expect([...held('replica-a'), ...held('replica-b')].sort()).toEqual([0, 1, 2, 3]);
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
    expect(all).toEqual(new Set(['replica-a', 'replica-b']));
  });
});
