/**
 * The shards this replica holds, and what holding one means for its work (ADR 0015): each held
 * shard has an AbortController, combined into the signal of every reconcile of its deployments,
 * so losing the shard cuts their writes at once; polls are seen through the held shards only;
 * work still running on a shard can be waited for before it is given back.
 */
import { MooringError } from '../errors.ts';
import type { AgentMetrics } from '../ops/metrics.ts';
import { type Clock, sleep } from './clock.ts';
import { leaseTimings } from './leader-election.ts';
import type { DesiredDeployment, PollCycle, Snapshot } from './poll-cycle.ts';
import { shardOf } from './shards.ts';

export class HeldShards {
  readonly total: number;
  readonly #held = new Map<number, AbortController>();
  /** Work running per shard (reconciles), and work over every held shard (orphan passes). */
  readonly #running = new Map<number, Set<Promise<unknown>>>();
  readonly #runningAll = new Set<Promise<unknown>>();
  /** The shards each filtered snapshot was taken for (`scopeOf`). */
  readonly #snapshotShards = new WeakMap<Snapshot, ReadonlySet<number>>();
  readonly #onChange: (held: number[]) => void;
  /** The shards the latest listing was scoped to (`scope`): its cycle is cut to those still held. */
  #scoped: ReadonlySet<number> | undefined;

  constructor(total: number, onChange: (held: number[]) => void = () => undefined) {
    this.total = total;
    this.#onChange = onChange;
  }

  /** Every shard, as a replica without leader election holds them. */
  gainAll(): void {
    for (let i = 0; i < this.total; i++) this.gain(i);
  }

  gain(shard: number): void {
    if (this.#held.has(shard)) return;
    this.#held.set(shard, new AbortController());
    this.#onChange(this.list());
  }

  /** Stops holding `shard`: every reconcile of its deployments is cut with `reason`. */
  lose(shard: number, reason: MooringError): void {
    const abort = this.#held.get(shard);
    if (!abort) return;
    this.#held.delete(shard);
    abort.abort(reason);
    this.#onChange(this.list());
  }

  has(shard: number): boolean {
    return this.#held.has(shard);
  }

  get count(): number {
    return this.#held.size;
  }

  /** The held shards, in order. */
  list(): number[] {
    return [...this.#held.keys()].sort((a, b) => a - b);
  }

  /** The signal aborted when `shard` is lost; undefined when it is not held. */
  signalOf(shard: number): AbortSignal | undefined {
    return this.#held.get(shard)?.signal;
  }

  /**
   * Whether a deployment is in one of the shards held now, fixed for a listing: a shard gained
   * while it runs joins at the next (its records were kept as sketches only); undefined with one
   * shard (everything is this replica's).
   */
  get scope(): ((id: string) => boolean) | undefined {
    if (this.total <= 1) return undefined;
    const shards = new Set(this.#held.keys());
    this.#scoped = shards;
    const total = this.total;
    return (id) => shards.has(shardOf(id, total));
  }

  /** Runs `fn` for deployment `id` with a signal cut when its shard is lost; nothing when not held. */
  async guard<T>(
    id: string,
    signal: AbortSignal,
    fn: (signal: AbortSignal) => Promise<T>,
    none: T,
  ): Promise<T> {
    const shard = shardOf(id, this.total);
    const abort = this.#held.get(shard);
    if (!abort) return none;
    const run = async () => {
      try {
        return await fn(AbortSignal.any([signal, abort.signal]));
      } catch (err) {
        // Whatever a run cut by its shard's loss threw, it was the loss (a cancellation).
        throw abort.signal.aborted && !signal.aborted ? abort.signal.reason : err;
      }
    };
    return this.#track(this.#runningOf(shard), run());
  }

  /** Runs `fn` (an orphan pass) with a signal cut when any shard held now is lost. */
  async guardAll<T>(signal: AbortSignal, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const signals = [...this.#held.values()].map((a) => a.signal);
    return this.#track(this.#runningAll, fn(AbortSignal.any([signal, ...signals])));
  }

  /** Whether work of `shard`, or a pass over every held shard, runs now: cutting it may leave a write in flight. */
  busy(shard: number): boolean {
    return (this.#running.get(shard)?.size ?? 0) > 0 || this.#runningAll.size > 0;
  }

  /** Whether a pass over every held shard (the orphan pass) runs now. */
  get passing(): boolean {
    return this.#runningAll.size > 0;
  }

  /** What /status says of the shards. */
  status(): { total: number; held: number[] } {
    return { total: this.total, held: this.list() };
  }

  /** Waits (at most `boundMs`) until no work of `shard`, nor any pass over all, still runs. */
  async drained(shard: number, clock: Clock, boundMs: number): Promise<void> {
    const running = [...(this.#running.get(shard) ?? []), ...this.#runningAll];
    if (running.length === 0) return;
    const bound = new AbortController();
    await Promise.race([
      Promise.allSettled(running),
      sleep(clock, boundMs, bound.signal).catch(() => undefined),
    ]);
    bound.abort();
  }

  /**
   * `cycle` seen through the shards its listing was scoped to (`scope`) and still held (itself
   * with one shard): a shard gained since joins at the next poll, and its objects are never judged
   * orphans by a listing that did not hold its deployments.
   */
  filterCycle(cycle: PollCycle): PollCycle {
    if (this.total <= 1) return cycle;
    const scoped = this.#scoped;
    const shards = new Set([...this.#held.keys()].filter((s) => scoped === undefined || scoped.has(s)));
    const total = this.total;
    const holds = (id: string) => shards.has(shardOf(id, total));
    async function* desired(): AsyncGenerator<DesiredDeployment> {
      for await (const d of cycle.desired) if (holds(d.deployment.id)) yield d;
    }
    const snapshot = cycle.snapshot.then((s) => this.filterSnapshot(s, shards));
    snapshot.catch(() => undefined);
    return { desired: desired(), snapshot };
  }

  /** `snapshot` with only the deployments (and refused records) of `shards` (default: held now). */
  filterSnapshot(snapshot: Snapshot, shards: ReadonlySet<number> = new Set(this.#held.keys())): Snapshot {
    if (this.total <= 1) return snapshot;
    const holds = (id: string) => shards.has(shardOf(id, this.total));
    const mine: Snapshot = {
      ...snapshot,
      deployments: snapshot.deployments.filter((d) => holds(d.deployment.id)),
      // A refused record without an id keeps its objects wherever it is: never pruned for it.
      rejected: snapshot.rejected.filter((r) => r.id === undefined || holds(r.id)),
    };
    this.#snapshotShards.set(mine, shards);
    return mine;
  }

  /**
   * Which deployments the orphan pass of `snapshot` may act for: those of shards held both when
   * it was taken and now. A shard gained in between is not in its listing, so its objects would
   * look orphaned; one lost is another replica's. Undefined (all) with one shard.
   */
  scopeOf(snapshot: Snapshot): ((id: string) => boolean) | undefined {
    if (this.total <= 1) return undefined;
    const then = this.#snapshotShards.get(snapshot) ?? new Set<number>();
    return (id) => {
      const shard = shardOf(id, this.total);
      return then.has(shard) && this.#held.has(shard);
    };
  }

  #runningOf(shard: number): Set<Promise<unknown>> {
    const set = this.#running.get(shard) ?? new Set<Promise<unknown>>();
    this.#running.set(shard, set);
    return set;
  }

  async #track<T>(set: Set<Promise<unknown>>, work: Promise<T>): Promise<T> {
    set.add(work);
    try {
      return await work;
    } finally {
      set.delete(work);
    }
  }
}

/**
 * How long a shard given back waits for its work to stop: two retry periods, well inside the renew
 * deadline, so the shards still held are renewed on time meanwhile.
 */
export function drainBoundMs(leaseDurationMs: number): number {
  return 2 * leaseTimings(leaseDurationMs).retryPeriodMs;
}

/** Why a shard's reconciles were cut. */
export function shardLost(shard: number, given: boolean): MooringError {
  // `shardCut`: the runner counts a run cut by it as cancelled, not as a failure to retry.
  const details = { shardCut: true, shard };
  return given
    ? new MooringError('MOORING_E_CANCELLED', `shard ${shard} given back to another replica`, { details })
    : new MooringError('MOORING_E_LEADERSHIP_LOST', `shard ${shard}: its Lease could not be renewed`, {
        details,
      });
}

/**
 * Keeps the shard gauges: 1 for each held shard, 0 for one held before (a shard never held gets
 * no series: 256 of them would be noise). Returns the `HeldShards` change callback.
 */
export function shardGauges(
  metrics: Pick<AgentMetrics, 'shards' | 'shardsHeld' | 'shardHeld'>,
  total: number,
  also: (held: number[]) => void = () => undefined,
): (held: number[]) => void {
  const seen = new Set<number>();
  metrics.shards.set(total);
  return (held) => {
    also(held);
    metrics.shardsHeld.set(held.length);
    for (const shard of held) seen.add(shard);
    for (const shard of seen) metrics.shardHeld.set({ shard: String(shard) }, held.includes(shard) ? 1 : 0);
  };
}
