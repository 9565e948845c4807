/**
 * Leader election on a coordination.k8s.io/v1 Lease, with client-go's rules: a candidate takes the
 * lease when it is free or when its record has not changed for a lease duration *as observed
 * locally* (so clock skew between replicas does not matter); the leader renews every retry
 * period and gives up leadership when it could not renew within the renew deadline; writes use
 * the lease's resourceVersion, so two candidates never both win. On shutdown the leader releases
 * the lease by clearing `holderIdentity`, so a standby takes over at once instead of after 15 s,
 * unless it cut a write in flight: then it leaves the lease to expire.
 */
import { safeErr } from './safe-error.ts';
import type { Logger } from '../log.ts';
import { jitter } from '../backoff.ts';
import { type Clock, sleep, systemClock, type TimerHandle } from './clock.ts';
import { type LeaseClient, LeaseConflict, type LeaseRecord } from '../objects/lease.ts';

export { type LeaseClient, LeaseConflict, type LeaseRecord } from '../objects/lease.ts';
export { leaseTimings } from './lease-timings.ts';

export interface LeaderElectorOptions {
  client: LeaseClient;
  identity: string;
  /** How long a lease is valid without renewal. Default 15 s. */
  leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before it steps down. Default 10 s. */
  renewDeadlineMs?: number;
  /** Time between attempts. Default 2 s. */
  retryPeriodMs?: number;
  clock?: Clock;
  random?: () => number;
  logger: Logger;
  /** Called when this replica becomes the leader. */
  onStartedLeading: () => void;
  /** Called when it stops being the leader (lost, or released on shutdown). */
  onStoppedLeading: () => void;
  /**
   * Asked right before taking a lease this replica does not hold; false: leave it to others this
   * time (sharding's fair share, shard-elector.ts). Default: always take it.
   */
  mayAcquire?: () => boolean;
  /**
   * Several replicas hold this lease under one identity and each renews it (sharding's lock of
   * the shard count, shard-elector.ts): a conflict on a renewal means another of them renewed it.
   */
  shared?: boolean;
}

export class LeaderElector {
  readonly #o: Required<LeaderElectorOptions>;
  #leader = false;
  /** The last record seen and the local time it was first seen: expiry is judged on that. */
  #observed: LeaseRecord | undefined;
  #observedAtMs = 0;
  #lastRenewMs = 0;
  /** When another holder's lease expires as observed here, while one holds it. */
  #otherExpiresAtMs: number | undefined;
  /** Released without clearing its holder (`release`): not renewed as this replica's own. */
  #leftToExpire = false;
  /**
   * When the last take or renewal was sent: the deadline counts from it, since the API server may
   * have stored it (and others started timing the lease) any time after.
   */
  #writeSentAtMs = 0;
  /** The step-down at the renew deadline, armed at each renewal. */
  #deadline: TimerHandle | undefined;

  constructor(options: LeaderElectorOptions) {
    this.#o = {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      clock: systemClock,
      random: Math.random,
      mayAcquire: () => true,
      shared: false,
      ...options,
    };
  }

  get isLeader(): boolean {
    return this.#leader;
  }

  /** The holder last observed (for logs and status). */
  get observedHolder(): string | undefined {
    return this.#observed?.holderIdentity;
  }

  /**
   * The holder as observed here while its lease is fresh (this replica only while it leads);
   * undefined when the lease is free or expired. Sharding counts live replicas with it.
   */
  get liveHolder(): string | undefined {
    const holder = this.#observed?.holderIdentity;
    if (holder === undefined) return undefined;
    if (holder === this.#o.identity) return this.#leader ? holder : undefined;
    return this.#otherExpiresAtMs !== undefined && this.#otherExpiresAtMs > this.#o.clock.now()
      ? holder
      : undefined;
  }

  /**
   * Campaigns and renews until `signal` aborts; then releases the lease if held. Never throws:
   * API errors are logged and retried.
   */
  async run(signal: AbortSignal): Promise<void> {
    const { clock } = this.#o;
    while (!signal.aborted) {
      const waitMs = await this.step(signal);
      if (waitMs === undefined) break;
      try {
        await sleep(clock, waitMs, signal);
      } catch {
        break;
      }
    }
    await this.release();
  }

  /**
   * One attempt to take or renew the lease, and what follows from it (started or stopped
   * leading); returns the wait before the next attempt, or undefined once `signal` aborted.
   */
  async step(signal?: AbortSignal): Promise<number | undefined> {
    const { clock, retryPeriodMs, renewDeadlineMs, logger } = this.#o;
    const ok = await this.#tryAcquireOrRenew();
    if (signal?.aborted) return undefined;
    const now = clock.now();
    if (ok) {
      this.#lastRenewMs = this.#writeSentAtMs;
      this.#armDeadline();
      if (!this.#leader) {
        this.#leader = true;
        logger.info('became the leader');
        this.#o.onStartedLeading();
      }
    } else if (this.#leader && now - this.#lastRenewMs >= renewDeadlineMs) {
      this.#stepDown('could not renew the lease within the renew deadline');
    }
    // Candidates spread their attempts (client-go's jitter factor 1.2); the leader renews on time.
    let waitMs = this.#leader ? retryPeriodMs : jitter(retryPeriodMs * 1.1, 0.1 / 1.1, this.#o.random);
    // A standby that knows when the holder's lease runs out tries right then, not up to a retry
    // period later: a takeover after a crash costs the lease duration, not that plus a period.
    if (!this.#leader && this.#otherExpiresAtMs !== undefined && this.#otherExpiresAtMs > clock.now()) {
      waitMs = Math.max(0, Math.min(waitMs, this.#otherExpiresAtMs - clock.now() + 1));
    }
    return waitMs;
  }

  /**
   * Steps down, logging `why`, and clears `holderIdentity` if this replica holds the lease. With
   * `clear` false the lease is left to run out: a write cut in flight may still land.
   */
  async release(why = 'released on shutdown', clear = true): Promise<void> {
    if (!this.#leader) return;
    this.#stepDown(why);
    if (!clear) {
      this.#leftToExpire = true;
      this.#o.logger.info('left the lease to expire: a write cut in flight may still land');
      return;
    }
    const observed = this.#observed;
    if (!observed || observed.holderIdentity !== this.#o.identity) return;
    try {
      await this.#withTimeout((signal) =>
        this.#o.client.update(
          {
            ...observed,
            holderIdentity: undefined,
            leaseDurationSeconds: 1,
            renewTimeMs: this.#o.clock.now(),
          },
          signal,
        ),
      );
      this.#o.logger.info('released the lease');
    } catch (err) {
      this.#o.logger.warn({ err: safeErr(err) }, 'could not release the lease; it will expire');
    }
  }

  /** Steps down at the renew deadline by the clock: an attempt may hang past it (a second at least). */
  #armDeadline(): void {
    const { clock, renewDeadlineMs } = this.#o;
    if (this.#deadline !== undefined) clock.clearTimeout(this.#deadline);
    this.#deadline = clock.setTimeout(() => {
      this.#deadline = undefined;
      if (clock.now() - this.#lastRenewMs >= renewDeadlineMs)
        this.#stepDown('could not renew the lease within the renew deadline');
    }, renewDeadlineMs);
  }

  #stepDown(reason: string): void {
    if (this.#deadline !== undefined) this.#o.clock.clearTimeout(this.#deadline);
    this.#deadline = undefined;
    if (!this.#leader) return;
    this.#leader = false;
    this.#o.logger.warn({ reason }, 'stopped leading');
    this.#o.onStoppedLeading();
  }

  /** One attempt; true when this replica holds a fresh lease afterwards. */
  async #tryAcquireOrRenew(): Promise<boolean> {
    const { client, identity, clock, leaseDurationMs, logger } = this.#o;
    const now = clock.now();
    const fresh: Omit<LeaseRecord, 'resourceVersion'> = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
      acquireTimeMs: now,
      renewTimeMs: now,
      leaseTransitions: 0,
    };
    try {
      const current = await this.#withTimeout((signal) => client.get(signal));
      if (!current) {
        if (!this.#o.mayAcquire()) return false;
        this.#writeSentAtMs = clock.now();
        this.#observe(
          await this.#withTimeout((signal) =>
            client.create({ ...fresh, resourceVersion: undefined }, signal),
          ),
        );
        return true;
      }
      this.#observe(current);
      const holder = current.holderIdentity;
      const durationMs = (current.leaseDurationSeconds ?? Math.ceil(leaseDurationMs / 1000)) * 1000;
      const heldByOther = holder !== undefined && holder !== identity;
      this.#otherExpiresAtMs = heldByOther ? this.#observedAtMs + durationMs : undefined;
      if (heldByOther && this.#observedAtMs + durationMs > clock.now()) return false;
      // A lease left to expire in this replica's name is taken back only as any other would be.
      if (holder !== identity) this.#leftToExpire = false;
      if ((holder !== identity || this.#leftToExpire) && !this.#o.mayAcquire()) return false;
      const next: LeaseRecord =
        holder === identity
          ? { ...current, renewTimeMs: now, leaseDurationSeconds: fresh.leaseDurationSeconds }
          : {
              ...fresh,
              leaseTransitions: (current.leaseTransitions ?? 0) + 1,
              resourceVersion: current.resourceVersion,
            };
      this.#writeSentAtMs = clock.now();
      this.#observe(await this.#withTimeout((signal) => client.update(next, signal)));
      this.#leftToExpire = false;
      return true;
    } catch (err) {
      if (!(err instanceof LeaseConflict))
        logger.warn({ err: safeErr(err), identity }, 'lease request failed');
      // A holder's renewal raced another holder's (a shared lease): held all the same.
      else if (this.#o.shared && this.#leader && this.#observed?.holderIdentity === identity) return true;
      return false;
    }
  }

  #observe(record: LeaseRecord): void {
    const prev = this.#observed;
    if (
      !prev ||
      prev.resourceVersion !== record.resourceVersion ||
      prev.holderIdentity !== record.holderIdentity ||
      prev.renewTimeMs !== record.renewTimeMs
    ) {
      this.#observedAtMs = this.#o.clock.now();
    }
    this.#observed = record;
  }

  /**
   * A hung request must not keep a deposed leader writing: each call is cut when its time is up (a
   * renewal given up on must not land later). A candidate's call gets a retry period; a leader's
   * renewal gets what is left of its renew deadline (a retry period at least), as in client-go: on a
   * loaded API server (or a busy event loop) answers slower than a retry period would otherwise
   * cut every renewal, and the leader would give up shards the server still gave it.
   */
  #withTimeout<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const { clock, retryPeriodMs, renewDeadlineMs } = this.#o;
    const leftMs = this.#leader ? this.#lastRenewMs + renewDeadlineMs - clock.now() : 0;
    const cut = new AbortController();
    const promise = call(cut.signal);
    return new Promise<T>((resolve, reject) => {
      const timer = clock.setTimeout(
        () => {
          const err = new Error('lease request timed out');
          cut.abort(err);
          reject(err);
        },
        Math.max(retryPeriodMs, leftMs, 1000),
      );
      promise.then(
        (v) => {
          clock.clearTimeout(timer);
          resolve(v);
        },
        (e: unknown) => {
          clock.clearTimeout(timer);
          reject(e);
        },
      );
    });
  }
}
