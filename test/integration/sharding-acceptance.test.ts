/**
 * Acceptance of sharding (one listener across replicas): three agent processes with
 * `--leader-election --shards 6 --lease-duration 3s` over 36 deployments of the reference control
 * plane, reconciling into the sandbox. The proof is read from the API server's side: the request
 * log puts every write down to the replica named in its User-Agent, and the sandbox's change feed
 * gives every shard Lease's terms. Every object is written by exactly one replica, every replica
 * writes a share, and every write comes from the holder of its deployment's shard at that moment.
 * Then one replica is SIGKILLed: its shards are taken over within the lease duration plus one
 * poll, and deployments created after the kill converge.
 */
import { shardOf } from '../../src/agent/shards.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentProcess, StatusEntry } from '../support/agent-process.ts';
import { LeaseTerms } from '../support/lease-terms.ts';
import { checkFencing, DEPLOYMENT_KINDS, DeploymentOfObject } from '../support/shard-fencing.ts';
import { waitFor } from '../support/wait.ts';
import { objectsPerWriter, writersByObject, writesByObject } from '../support/writers.ts';
import { deploymentBody, NAMESPACE, spawnAgent, type Stack, startStack } from './harness.ts';

const SHARDS = 6;
const LEASE_SECONDS = 3;
// The takeover bound is the lease duration plus one poll; at 1 s the margin over the Lease
// protocol's own delay (expiry, then a retry period) was thin on a loaded 2-core machine.
const POLL_SECONDS = 2;
const LEASE = 'mooring-leader';
const REPLICAS = ['replica-a', 'replica-b', 'replica-c'];
const KINDS = new Set<string>(DEPLOYMENT_KINDS.map((k) => k.kind));
const shardLeases = Array.from({ length: SHARDS }, (_, i) => `${LEASE}-${i}`);
const shardLease = (deploymentId: string) => `${LEASE}-${shardOf(deploymentId, SHARDS)}`;

interface ShardStatus {
  deployments: StatusEntry[];
  shards?: { total: number; held: number[] };
}

describe('three sharded replicas (6 shards, 3 s leases)', { timeout: 120_000 }, () => {
  let stack: Stack;
  let terms: LeaseTerms;
  let owners: DeploymentOfObject;
  const agents = new Map<string, AgentProcess>();
  const ids: string[] = [];

  const heldBy = (replica: string) => shardLeases.filter((l) => terms.holder(l) === replica);
  const statusOf = (replica: string) => (agents.get(replica) as AgentProcess).json<ShardStatus>('/status');
  /** Ready, as the replicas still running report it (each reports only its own shards' deployments). */
  const readyIds = async () => {
    const ready = new Set<string>();
    for (const [name, agent] of agents) {
      if (!agent.running()) continue;
      for (const d of (await statusOf(name)).deployments) if (d.state === 'Ready') ready.add(d.id);
    }
    return ready;
  };
  const create = async (name: string) => {
    const { id } = await stack.client.createDeployment(deploymentBody(name, `registry.example/${name}:1`));
    ids.push(id);
    return id;
  };

  beforeAll(async () => {
    stack = await startStack();
    terms = new LeaseTerms(stack.kube, NAMESPACE);
    owners = new DeploymentOfObject(stack.kube);
    for (const name of REPLICAS) {
      agents.set(
        name,
        spawnAgent(
          stack.agentEnv({
            MOORING_POD_NAME: name,
            MOORING_LEADER_ELECTION: 'true',
            MOORING_SHARDS: String(SHARDS),
            MOORING_LEASE_DURATION: String(LEASE_SECONDS),
            MOORING_POLL_INTERVAL: String(POLL_SECONDS),
            MOORING_LOG_LEVEL: 'info',
          }),
        ),
      );
    }
  }, 60_000);

  afterAll(async () => {
    terms?.stop();
    owners?.stop();
    await Promise.all([...agents.values()].map((a) => a.stop()));
    await stack?.close();
  });

  it('spreads the shards: every replica holds its fair share, ceil(6 / 3) = 2, and says so', async () => {
    await waitFor(
      'every replica holding 2 shards',
      () => REPLICAS.every((r) => heldBy(r).length === SHARDS / REPLICAS.length),
      45_000,
      100,
    );
    // Each replica's own account agrees with the Leases (it may learn of a take a moment after
    // the Lease write is stored, so it is given a few seconds).
    for (const replica of REPLICAS) {
      const held = heldBy(replica).map((l) => Number(l.slice(LEASE.length + 1)));
      await waitFor(
        `${replica}'s /status and metrics naming shards ${held}`,
        async () => {
          const status = await statusOf(replica);
          const metrics = await (agents.get(replica) as AgentProcess).text('/metrics');
          return (
            status.shards?.total === SHARDS &&
            JSON.stringify([...(status.shards?.held ?? [])].sort()) === JSON.stringify([...held].sort()) &&
            /mooring_shards_held(\{[^}]*\})? 2\b/.test(metrics)
          );
        },
        5_000,
        100,
      );
    }
  });

  it('36 deployments converge; each object is written by exactly one replica, every replica writes a share', async () => {
    for (let i = 0; i < 36; i++) await create(`shard-app-${i}`);
    await waitFor(
      'all 36 Ready',
      async () => {
        const ready = await readyIds();
        return ids.every((id) => ready.has(id));
      },
      60_000,
      500,
    );
    for (let i = 0; i < 36; i++)
      expect(stack.kube.hasObject('apps/v1', 'Deployment', NAMESPACE, `shard-app-${i}`)).toBe(true);

    const writes = writesByObject(stack.kube.requests(), KINDS);
    const writers = writersByObject(writes);
    expect(writers.size).toBeGreaterThanOrEqual(36);
    const shared = [...writers].filter(([, w]) => w.length !== 1).map(([o, w]) => `${o}: ${w.join(',')}`);
    expect(shared).toEqual([]);
    const share = objectsPerWriter(writes);
    expect([...share.keys()].sort()).toEqual(REPLICAS);
    process.stdout.write(
      `sharding: objects written per replica ${JSON.stringify(Object.fromEntries(share))}\n`,
    );

    // Every write of a deployment's object came from the holder of its shard at that moment.
    const report = checkFencing(writes, owners, terms, shardLease);
    expect(report.unattributed).toEqual([]);
    expect(report.breaches.map((b) => `${b.object} by ${b.write.writer} under ${b.lease}`)).toEqual([]);
    expect(report.sharedTerms).toEqual([]);
  });

  it('SIGKILL one replica: its shards are taken over within lease duration + one poll; a new deployment converges', async () => {
    const victim = REPLICAS[1] as string;
    const orphaned = heldBy(victim);
    expect(orphaned.length).toBe(2);
    const killedAt = Date.now();
    await (agents.get(victim) as AgentProcess).kill();
    await waitFor(
      "the victim's shards held by the survivors",
      () => orphaned.every((l) => terms.holder(l) !== '' && terms.holder(l) !== victim),
      20_000,
      100,
    );
    for (const lease of orphaned) {
      const takeover = terms.terms(lease).find((t) => t.start >= killedAt && t.holder !== victim);
      expect(takeover, `${lease} taken over`).toBeDefined();
      const ms = (takeover?.start ?? 0) - killedAt;
      process.stdout.write(`sharding: ${lease} taken over by ${takeover?.holder} ${ms} ms after SIGKILL\n`);
      expect(ms).toBeLessThanOrEqual((LEASE_SECONDS + POLL_SECONDS) * 1000);
    }
    // The survivors now hold all six, three each (the fair share of 6 over 2).
    await waitFor(
      '3 shards each',
      () => REPLICAS.filter((r) => r !== victim).every((r) => heldBy(r).length === 3),
      20_000,
      100,
    );

    // New deployments until one lands in a shard the victim held (each has a 1 in 3 chance).
    const late: string[] = [];
    while (late.length < 3 || !late.some((id) => orphaned.includes(shardLease(id)))) {
      expect(late.length).toBeLessThan(15);
      late.push(await create(`shard-late-${late.length}`));
    }
    await waitFor(
      'the late deployments Ready',
      async () => {
        const ready = await readyIds();
        return late.every((id) => ready.has(id));
      },
      30_000,
      500,
    );
    const before = new Set(ids.filter((id) => !late.includes(id)));
    await waitFor(
      'every earlier deployment still Ready',
      async () => {
        const ready = await readyIds();
        return [...before].every((id) => ready.has(id));
      },
      30_000,
      500,
    );
    // Over the whole run, kill and takeover included: no write outside its writer's term.
    const report = checkFencing(writesByObject(stack.kube.requests(), KINDS), owners, terms, shardLease);
    expect(report.breaches.map((b) => `${b.object} by ${b.write.writer} under ${b.lease}`)).toEqual([]);
    expect(report.sharedTerms).toEqual([]);
  });

  it("the namespace patch comes from shard 0's holder only", () => {
    const writes = writesByObject(stack.kube.requests(), new Set(['Namespace']));
    const report = checkFencing(writes, { get: () => 'namespace' }, terms, () => `${LEASE}-0`);
    expect(report.breaches.map((b) => `${b.object} by ${b.write.writer} (holder ${b.holders})`)).toEqual([]);
  });
});
