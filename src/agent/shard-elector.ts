/**
 * Sharding on Leases without a coordinator (ADR 0015): one `LeaderElector` per shard Lease, and one
 * per membership slot Lease so that replicas holding no shard are counted. Each round a replica
 * renews what it holds, counts the live replicas from the slot holders, takes free or expired
 * shards only while it holds fewer than its fair share, and gives back the shards above it (after
 * its own work on them stopped). A shard whose Lease cannot be renewed within the renew deadline
 * is dropped at once: the Lease outlives the deadline, so no other replica writes it meanwhile.
 * With N > 1 shards every replica also renews `--lease-name` itself as the lock of the shard count
 * (holder `mooring-shards-<N>`) and takes nothing without it, so replicas of two counts never
 * write at once. With one shard this is today's single-leader election on `--lease-name`, alone.
 */
import type { Logger } from '../log.ts';
import { type Clock, sleep, systemClock } from './clock.ts';
import { LeaderElector, type LeaseClient, leaseTimings } from './leader-election.ts';
import { extraShards, fairShare, memberLeaseName, shardLeaseName } from './shards.ts';

export interface ShardElectorOptions {
  shards: number;
  /** `--lease-name`: shard i's Lease is `<name>-<i>` (the name itself with one shard). */
  leaseName: string;
  /** A Lease client for a Lease name in the lease namespace. */
  clientFor: (name: string) => LeaseClient;
  identity: string;
  leaseDurationMs: number;
  clock?: Clock;
  random?: () => number;
  logger: Logger;
  /** This replica now holds `shard`: it may write its objects. */
  onGained: (shard: number) => void;
  /** This replica could not renew `shard` (or released it on shutdown): stop writing it at once. */
  onLost: (shard: number) => void;
  /**
   * Called before a shard above the fair share is given back, while its Lease is still held:
   * the replica's work on it must be over when this settles. True: nothing it sent may still land,
   * so the Lease is cleared for a new holder to start at once; false (work was cut in flight): the
   * Lease is left to expire.
   */
  beforeRelease: (shard: number) => Promise<boolean>;
  /**
   * Asked on shutdown before the shard Leases are released: false (work was cut in flight) leaves
   * them to expire. Default: cleared.
   */
  mayClearOnStop?: () => boolean;
}

export class ShardElector {
  readonly #o: ShardElectorOptions & { clock: Clock; random: () => number };
  readonly #shards: LeaderElector[];
  readonly #members: LeaderElector[];
  /** The lock of the shard count: `--lease-name` itself, held by every replica of this N. */
  readonly #family: LeaderElector | undefined;
  readonly #releasing = new Set<number>();
  /** Takes granted in the current round: a round takes at most its fair share, and one slot. */
  #shardTakes = 0;
  #memberTakes = 0;
  #fair: number;
  /**
   * When this replica may first take a shard: one retry period after it first held its slot, so
   * that it has seen the slots of replicas started with it (each renews its slot every period)
   * before it counts them. Undefined while it holds no slot.
   */
  #countedFromMs: number | undefined;

  constructor(options: ShardElectorOptions) {
    this.#o = { clock: systemClock, random: Math.random, ...options };
    const { shards, leaseName, clientFor, identity, leaseDurationMs, clock, random, logger } = this.#o;
    this.#fair = shards;
    const elector = (name: string, extra: Partial<ConstructorParameters<typeof LeaderElector>[0]>) =>
      new LeaderElector({
        client: clientFor(name),
        identity,
        ...leaseTimings(leaseDurationMs),
        clock,
        random,
        logger: logger.child({ lease: name }),
        onStartedLeading: () => undefined,
        onStoppedLeading: () => undefined,
        ...extra,
      });
    this.#shards = Array.from({ length: shards }, (_, i) =>
      elector(shardLeaseName(leaseName, i, shards), {
        onStartedLeading: () => this.#o.onGained(i),
        onStoppedLeading: () => this.#o.onLost(i),
        mayAcquire: () => this.#mayTakeShard(i),
      }),
    );
    // Replicas of another shard count (or a single leader) would give other deployments to the
    // same shard Lease names: only the replicas of the count holding `--lease-name` take shards.
    this.#family =
      shards > 1 ? elector(leaseName, { identity: familyIdentity(shards), shared: true }) : undefined;
    // One shard needs no count of replicas: whoever holds it holds everything.
    this.#members =
      shards > 1
        ? Array.from({ length: shards }, (_, k) =>
            elector(memberLeaseName(leaseName, k), { mayAcquire: () => this.#mayTakeSlot() }),
          )
        : [];
  }

  /** The shards this replica holds now, in order. */
  held(): number[] {
    return this.#shards.flatMap((e, i) => (e.isLeader ? [i] : []));
  }

  /** Live replicas as last observed: the fresh holders of membership slots, this one included. */
  liveReplicas(): number {
    if (this.#members.length === 0) return 1;
    const holders = new Set(this.#members.map((m) => m.liveHolder).filter((h) => h !== undefined));
    holders.add(this.#o.identity);
    return holders.size;
  }

  /** The fair share the last round computed. */
  get fairShare(): number {
    return this.#fair;
  }

  /**
   * Rounds until `signal` aborts, then releases its shards and its slot (not the lock of the
   * count: the other replicas of this count renew it). Never throws.
   */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const waitMs = await this.round(signal);
      if (waitMs === undefined) break;
      try {
        await sleep(this.#o.clock, waitMs, signal);
      } catch {
        break;
      }
    }
    // Slots fence no writes: they are cleared whatever the shards' work left in flight.
    const clear = this.#o.mayClearOnStop?.() ?? true;
    await Promise.all([
      ...this.#shards.map((e) => e.release(undefined, clear)),
      ...this.#members.map((e) => e.release()),
    ]);
  }

  /**
   * One round: the lock of the count then the slots (the count of replicas), beside the renewals
   * of the shards held; then the fair share, and the campaigns for shards not held. Returns
   * the wait before the next round, or undefined once `signal` aborted. Renewals go in the first
   * phase so that a slow API server delays them by one step, not by three in a row: a round
   * slower than the renew deadline would drop every shard.
   */
  async round(signal?: AbortSignal): Promise<number | undefined> {
    this.#memberTakes = 0;
    const renewing = this.#shards.filter((e, i) => e.isLeader && !this.#releasing.has(i));
    const [countWaits, renewWaits] = await Promise.all([
      this.#count(signal),
      Promise.all(renewing.map((e) => e.step(signal))),
    ]);
    const counted = this.#family === undefined || this.#family.isLeader;
    this.#settle();
    this.#fair = counted ? fairShare(this.#o.shards, this.liveReplicas()) : 0;
    for (const shard of extraShards(this.held(), this.#fair)) this.#giveBack(shard);
    this.#shardTakes = 0;
    const campaigning = this.#shards.filter((e, i) => !this.#releasing.has(i) && !renewing.includes(e));
    const takeWaits = await Promise.all(campaigning.map((e) => e.step(signal)));
    const waits = [...countWaits, ...renewWaits, ...takeWaits];
    if (signal?.aborted || waits.includes(undefined)) return undefined;
    return Math.min(...(waits as number[]));
  }

  /**
   * The lock of the shard count and the slots; returns their waits. Once the lock is held both are
   * renewed at once (a slot is given up right after, should the lock be lost); before, the slots
   * wait for the lock.
   */
  async #count(signal?: AbortSignal): Promise<(number | undefined)[]> {
    const family = this.#family;
    const slots = () => Promise.all(this.#members.map((m) => m.step(signal)));
    let waits: (number | undefined)[];
    if (family?.isLeader) {
      const [familyWait, slotWaits] = await Promise.all([family.step(signal), slots()]);
      waits = [familyWait, ...slotWaits];
    } else {
      const familyWait = family ? [await family.step(signal)] : [];
      waits = [...familyWait, ...(family && !family.isLeader ? [] : await slots())];
    }
    // Without the lock of the shard count (another count's replicas run): no slot, no shard. With
    // it, one slot: a take that timed out here may have landed, and is found held at the next GET.
    const extra =
      family && !family.isLeader ? this.#members : this.#members.filter((m) => m.isLeader).slice(1);
    const why = family && !family.isLeader ? 'the shard count is held by other replicas' : 'a second slot';
    await Promise.all(extra.map((m) => m.release(why)));
    return waits;
  }

  /**
   * Starts (or stops) the wait before the first take. Without it the first replica of a rollout
   * counts itself alone and takes every shard: at 10,000 deployments that one ran out of heap
   * before it could give the extras back (bench/README.md).
   */
  #settle(): void {
    if (this.#members.length === 0) return;
    if (!this.#members.some((m) => m.isLeader)) this.#countedFromMs = undefined;
    else this.#countedFromMs ??= this.#o.clock.now() + leaseTimings(this.#o.leaseDurationMs).retryPeriodMs;
  }

  #mayTakeShard(shard: number): boolean {
    if (this.#releasing.has(shard)) return false;
    if (this.#members.length > 0) {
      const from = this.#countedFromMs;
      if (from === undefined || this.#o.clock.now() < from) return false;
    }
    if (this.held().length + this.#shardTakes >= this.#fair) return false;
    this.#shardTakes += 1;
    return true;
  }

  #mayTakeSlot(): boolean {
    if (this.#family && !this.#family.isLeader) return false;
    if (this.#memberTakes > 0 || this.#members.some((m) => m.isLeader)) return false;
    this.#memberTakes += 1;
    return true;
  }

  /** Stops this replica's work on `shard`, then clears the Lease's holder for another to take. */
  #giveBack(shard: number): void {
    if (this.#releasing.has(shard)) return;
    this.#releasing.add(shard);
    const elector = this.#shards[shard]!;
    this.#o.logger.info({ shard, fairShare: this.#fair }, 'giving back a shard above the fair share');
    void this.#o
      .beforeRelease(shard)
      .catch(() => false)
      .then((quiet) => elector.release('given back: above the fair share', quiet))
      .finally(() => this.#releasing.delete(shard));
  }
}

/** The holder of `--lease-name` for the replicas of one shard count (no pod is named so). */
export function familyIdentity(shards: number): string {
  return `mooring-shards-${shards}`;
}
