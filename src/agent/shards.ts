/**
 * The arithmetic of sharding (ADR 0015): which shard a deployment is in, how many shards a replica
 * may hold, and the names of the Leases and restart memos that go with each shard. Pure functions,
 * shared by the elector, the agent and the orphan pass, so they can never disagree.
 */
import { hash } from 'node:crypto';

/**
 * The shard of a deployment: the first 4 bytes of sha256 of its id (lower case, as labels carry
 * it) modulo `shards`. Stable across replicas, restarts and versions; never from a name.
 */
export function shardOf(deploymentId: string, shards: number): number {
  if (shards <= 1) return 0;
  // The one-shot hash: a poll asks for every deployment's shard, 100,000 of them on a large listener.
  return hash('sha256', deploymentId.toLowerCase(), 'buffer').readUInt32BE(0) % shards;
}

/**
 * The most shards one replica may hold: ceil(shards / live replicas). A replica holding fewer may
 * campaign for a free one; one holding more releases the extras, so a joining replica gets work.
 */
export function fairShare(shards: number, liveReplicas: number): number {
  return Math.ceil(shards / Math.max(1, liveReplicas));
}

/** The shards a replica gives up to come down to `fair`: the highest-numbered beyond it. */
export function extraShards(held: Iterable<number>, fair: number): number[] {
  const sorted = [...held].sort((a, b) => a - b);
  return sorted.slice(Math.max(0, fair)).reverse();
}

/** Shard `shard`'s Lease; with one shard, the old single Lease name (upgrades keep working). */
export function shardLeaseName(leaseName: string, shard: number, shards: number): string {
  return shards <= 1 ? leaseName : `${leaseName}-${shard}`;
}

/**
 * Membership slot `slot`'s Lease. A replica holds one slot while it runs, so replicas that hold
 * no shard are counted too; there are as many slots as shards (a replica beyond that would get
 * no shard anyway, and the fair share is then 1 either way).
 */
export function memberLeaseName(leaseName: string, slot: number): string {
  return `${leaseName}-member-${slot}`;
}

/** Shard `shard`'s restart memo ConfigMap; with one shard, the old name. */
export function shardMemoName(memo: string, shard: number, shards: number): string {
  return shards <= 1 ? memo : `${memo}-${shard}`;
}
