/**
 * The shards held now, as the rule of whose object entries a sharded replica keeps
 * (kube/shard-entries.ts, ADR 0015): the agent tells each change of its held shards, and the watch
 * cache is told in turn, so a shard taken is listed again and a shard given up is dropped.
 */
import { shardOf } from './shards.ts';

/** Whether a deployment's objects get entries: the shape of kube/shard-entries.ts's `Keeps`. */
type Keeps = (deploymentId: string) => boolean;

/** What is told of each change of the held shards, and whether one was taken (the watch cache). */
export interface Reshardable {
  reshard(gained: boolean): void;
}

export class ShardKeeps {
  readonly #total: number;
  #watched: Reshardable | undefined;
  #held: ReadonlySet<number> = new Set();

  constructor(total: number) {
    this.#total = total;
  }

  /** Tells `watched` (when there is one) of each change of the held shards; returns it. */
  watching<T extends Reshardable>(watched: T | undefined): T | undefined {
    this.#watched = watched;
    return watched;
  }

  /** The agent's `onShards`: `also` (the restart memos'), then `holding`. */
  alongside(also: ((held: number[]) => void) | undefined): (held: number[]) => void {
    return (held) => {
      also?.(held);
      this.holding(held);
    };
  }

  /** Whether a deployment is in a shard held at the moment it is asked; undefined with one shard. */
  get now(): Keeps | undefined {
    if (this.#total <= 1) return undefined;
    return (id) => this.#held.has(shardOf(id, this.#total));
  }

  /** Whether a deployment is in a shard held now, fixed (for one listing); undefined with one shard. */
  fixed(): Keeps | undefined {
    if (this.#total <= 1) return undefined;
    const held = this.#held;
    return (id) => held.has(shardOf(id, this.#total));
  }

  /** The shards held now (the agent's `onShards`). */
  holding(held: readonly number[]): void {
    const gained = held.some((s) => !this.#held.has(s));
    const changed = gained || held.length !== this.#held.size;
    this.#held = new Set(held);
    if (changed) this.#watched?.reshard(gained);
  }
}
