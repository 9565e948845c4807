/**
 * The reconcile runner: takes keys (deployment ids) from a `WorkQueue`, runs at most one reconcile
 * per key and at most `concurrency` in all, each with a timeout, and decides what happens next in
 * ONE place (`#interpret`, after controller-runtime's `reconcileHandler`): success with an optional
 * requeue-after, a retryable error (per-key exponential backoff with jitter and a cap, honouring a
 * server's Retry-After), or a terminal error (parked until the desired state changes, or for a
 * refusal the cluster must resolve, `isParkedUntilResync`, until the next resync). Nothing else in
 * the agent touches reconcile timers.
 */
import { backoffDelay, RECONCILE_BACKOFF } from '../backoff.ts';
import { isParkedUntilResync, isRetryable, MooringError } from '../errors.ts';
import { type Logger, silentLogger } from '../log.ts';
import { type Clock, systemClock } from './clock.ts';
import { safeErr } from './safe-error.ts';
import type { ReconcileFn, ReconcileOutcome, RunReport, RunResult } from './run-result.ts';
import { WorkQueue } from './work-queue.ts';

export type { ReconcileFn, ReconcileOutcome, RunReport, RunResult } from './run-result.ts';

export interface BackoffOptions {
  /** Delay after the first failure. Default 1 s. */
  baseMs?: number;
  /** Upper bound of any backoff delay. Default 5 min. */
  maxMs?: number;
  /** Jitter as a fraction of the delay (+-). Default 0.2. */
  jitterFraction?: number;
}

export interface RunnerOptions {
  reconcile: ReconcileFn;
  /** Reconciles at once. Default 8. */
  concurrency?: number;
  /** Time one reconcile may take before its signal is aborted. Default 120 s. */
  timeoutMs?: number;
  backoff?: BackoffOptions;
  clock?: Clock;
  random?: () => number;
  /** Called once per finished run (metrics, status, logs). Must not throw: if it does, `logger` says so. */
  onReport?: (report: RunReport) => void;
  logger?: Logger;
  /** Reconciles at once now, given `concurrency` (lower under memory pressure); default `concurrency`. */
  limit?: (concurrency: number) => number;
}

/** The delay before retry number `attempt` (1-based): the reconcile policy (src/backoff.ts), with `options` over it. */
export function backoffDelayMs(attempt: number, options: BackoffOptions = {}, random = Math.random): number {
  const { baseMs, maxMs, jitter } = RECONCILE_BACKOFF;
  const policy = { ...RECONCILE_BACKOFF, baseMs: options.baseMs ?? baseMs, maxMs: options.maxMs ?? maxMs };
  return backoffDelay({ ...policy, jitter: options.jitterFraction ?? jitter }, attempt, random);
}

/** What `stop` cuts reconciles with unless told why. */
const shutdown = () => new MooringError('MOORING_E_CANCELLED', 'shutdown: grace period over');

export class Runner {
  readonly #options: Required<Omit<RunnerOptions, 'onReport' | 'backoff' | 'logger'>> & {
    backoff: BackoffOptions;
    onReport: (report: RunReport) => void;
  };
  readonly #queue: WorkQueue;
  /** Latest desired-state hash per key, as the poller last saw it. */
  readonly #desired = new Map<string, string>();
  /** Consecutive failures per key (for backoff). */
  readonly #failures = new Map<string, number>();
  /** Keys parked after a terminal error, with the desired hash they failed on. */
  readonly #parked = new Map<string, string>();
  /** Parked keys that the next resync releases (`resync()`): refusals the cluster must resolve. */
  readonly #untilResync = new Set<string>();
  readonly #inFlight = new Map<string, Promise<void>>();
  /** Aborted when a stop's grace period runs out: in-flight reconciles are cancelled. */
  readonly #cancelAll = new AbortController();
  #running = false;
  #idleWaiters: (() => void)[] = [];
  readonly #logger: Logger;

  constructor(options: RunnerOptions) {
    this.#logger = options.logger ?? silentLogger();
    this.#options = {
      reconcile: options.reconcile,
      concurrency: options.concurrency ?? 8,
      timeoutMs: options.timeoutMs ?? 120_000,
      backoff: options.backoff ?? {},
      clock: options.clock ?? systemClock,
      random: options.random ?? Math.random,
      onReport: options.onReport ?? (() => {}),
      limit: options.limit ?? ((n) => n),
    };
    this.#queue = new WorkQueue(this.#options.clock, () => this.#pump());
  }

  /** Starts dispatching queued keys. */
  start(): void {
    this.#running = true;
    this.#pump();
  }

  /**
   * Asks for `key` to be reconciled towards the state identified by `desiredHash`. A changed hash
   * runs now (and unparks, and resets backoff); an unchanged one is a resync: it runs now unless
   * the key is parked, in backoff, or already running that very state.
   */
  enqueue(key: string, desiredHash: string): void {
    const previous = this.#desired.get(key);
    const changed = previous !== desiredHash;
    this.#desired.set(key, desiredHash);
    const parkedOn = this.#parked.get(key);
    if (parkedOn !== undefined) {
      if (parkedOn === desiredHash) return;
      this.#parked.delete(key);
      this.#untilResync.delete(key);
    }
    if (changed) this.#failures.delete(key);
    else if (this.#queue.isProcessing(key)) return;
    else if ((this.#failures.get(key) ?? 0) > 0 && this.#queue.hasDelayed(key)) return;
    // A changed deployment goes ahead of the resync (latency); first sightings keep listing order.
    this.#queue.add(key, changed && previous !== undefined);
  }

  /**
   * A resync begins: keys parked until it (an object of theirs is someone else's) are released for
   * its `enqueue`. Not sooner: each attempt reads those objects, and the agent cannot resolve it.
   */
  resync(): void {
    for (const key of this.#untilResync) this.#parked.delete(key);
    this.#untilResync.clear();
  }

  /** Forgets `key` (its deployment is gone); an in-flight run finishes and is not retried. */
  forget(key: string): void {
    this.#desired.delete(key);
    this.#failures.delete(key);
    this.#parked.delete(key);
    this.#untilResync.delete(key);
    this.#queue.remove(key);
  }

  /** Whether anything of `key` is held here: its digest, backoff or parking, its queue entry, a run. */
  holds(key: string): boolean {
    const byKey = [this.#desired, this.#failures, this.#parked, this.#inFlight];
    return byKey.some((m) => m.has(key)) || this.#untilResync.has(key) || this.#queue.holds(key);
  }

  isParked(key: string): boolean {
    return this.#parked.has(key);
  }

  /** Keys ready to run (queue depth). */
  get depth(): number {
    return this.#queue.depth;
  }

  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Resolves when every reconcile running now has returned (also ones a stop gave up on). */
  settled(): Promise<void> {
    return Promise.all([...this.#inFlight.values()]).then(() => undefined);
  }

  /** Resolves when nothing is queued or running (delayed retries do not count). */
  whenIdle(): Promise<void> {
    if (this.#queue.depth === 0 && this.#inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Stops dispatching and cancels pending retries; lets in-flight reconciles finish within
   * `graceMs`, then aborts them with `reason` (their requests in flight are cut) and waits at most
   * `abortWaitMs` more. Resolves `true` when every reconcile finished on its own.
   */
  async stop(graceMs: number, abortWaitMs = 2000, reason = shutdown()): Promise<boolean> {
    this.#running = false;
    this.#queue.clearDelayed();
    const settled = () => Promise.all([...this.#inFlight.values()]).then(() => true);
    const timeout = (ms: number) =>
      new Promise<false>((resolve) => this.#options.clock.setTimeout(() => resolve(false), ms));
    if (this.#inFlight.size === 0) return true;
    if (await Promise.race([settled(), timeout(graceMs)])) return true;
    this.#cancelAll.abort(reason);
    await Promise.race([settled(), timeout(abortWaitMs)]);
    return false;
  }

  #pump(): void {
    const limit = this.#options.limit(this.#options.concurrency); // once a pump: it reads the heap
    while (this.#running && this.#inFlight.size < limit) {
      const key = this.#queue.next();
      if (key === undefined) break;
      const run = this.#run(key).finally(() => {
        this.#inFlight.delete(key);
        this.#queue.done(key);
        this.#pump();
        this.#notifyIdle();
      });
      this.#inFlight.set(key, run);
    }
    this.#notifyIdle();
  }

  #notifyIdle(): void {
    if (this.#queue.depth > 0 || this.#inFlight.size > 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const w of waiters) w();
  }

  async #run(key: string): Promise<void> {
    const { clock, timeoutMs } = this.#options;
    const desiredHash = this.#desired.get(key) ?? '';
    const started = clock.now();
    const timedOut = new AbortController();
    const timer = clock.setTimeout(
      () => timedOut.abort(new MooringError('MOORING_E_RECONCILE_TIMEOUT', `reconcile ${key}: timed out`)),
      timeoutMs,
    );
    const signal = AbortSignal.any([timedOut.signal, this.#cancelAll.signal]);
    let outcome: { ok: true; value: ReconcileOutcome | undefined } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await this.#options.reconcile(key, signal) };
    } catch (error) {
      outcome = { ok: false, error };
    } finally {
      clock.clearTimeout(timer);
    }
    // A reconcile that overran its timeout failed with the timeout, whatever it returned.
    if (timedOut.signal.aborted) {
      outcome = {
        ok: false,
        error: new MooringError(
          'MOORING_E_RECONCILE_TIMEOUT',
          `reconcile ${key}: timed out after ${timeoutMs} ms`,
          {
            cause: outcome.ok ? undefined : outcome.error,
          },
        ),
      };
    }
    // Cut by stop(), or alone by its shard's loss: a cancellation, whatever it threw.
    const reason =
      outcome.ok || timedOut.signal.aborted ? undefined : cancellation(outcome.error, this.#cancelAll.signal);
    const result: RunResult = reason
      ? { kind: 'cancelled', reason }
      : this.#interpret(key, desiredHash, outcome);
    try {
      this.#options.onReport({ key, desiredHash, result, durationMs: clock.now() - started });
    } catch (err) {
      // Reporting must never break the loop, nor fail unseen.
      this.#logger.error({ deploymentId: key, err: safeErr(err) }, 'reconcile report failed');
    }
  }

  /** The one place that decides what an outcome means for the key's future. */
  #interpret(
    key: string,
    desiredHash: string,
    outcome: { ok: true; value: ReconcileOutcome | undefined } | { ok: false; error: unknown },
  ): RunResult {
    if (outcome.ok) {
      this.#failures.delete(key);
      this.#parked.delete(key);
      this.#untilResync.delete(key);
      const asked = outcome.value?.requeueAfterMs;
      // Not for a key forgotten meanwhile (gone from the listing, or refused): it must not run again.
      // Not while other keys are queued either: the resync after the queue drains looks again with
      // the cycle's shared listing (a look-again lists for itself; after a cold start, all at once).
      const requeueAfterMs =
        asked !== undefined && asked > 0 && this.#running && this.#desired.has(key) && this.#queue.depth === 0
          ? asked
          : undefined;
      if (requeueAfterMs !== undefined) this.#queue.addAfter(key, requeueAfterMs);
      return { kind: 'success', requeueAfterMs };
    }
    const { error } = outcome;
    if (!isRetryable(error)) {
      this.#failures.delete(key);
      const until = isParkedUntilResync(error) ? 'resync' : 'change';
      // Park only if the state it failed on is still the desired one; otherwise the newer state runs.
      if (this.#desired.get(key) === desiredHash) {
        this.#parked.set(key, desiredHash);
        if (until === 'resync') this.#untilResync.add(key);
        else this.#untilResync.delete(key);
      }
      return { kind: 'terminal', error, until };
    }
    const attempt = (this.#failures.get(key) ?? 0) + 1;
    // A key forgotten while it ran keeps nothing here (its run is not retried either).
    if (this.#desired.has(key)) this.#failures.set(key, attempt);
    const hint = error instanceof MooringError ? (error.retryAfterMs ?? 0) : 0;
    const delayMs = Math.max(backoffDelayMs(attempt, this.#options.backoff, this.#options.random), hint);
    if (this.#running && this.#desired.has(key)) this.#queue.addAfter(key, delayMs);
    return { kind: 'retry', error, attempt, delayMs };
  }
}

/** Why a failed run counts as cancelled: stop() cut it, or its shard was lost (held-shards.ts). */
function cancellation(err: unknown, all: AbortSignal): MooringError | undefined {
  if (all.aborted) return all.reason as MooringError;
  return err instanceof MooringError && err.details.shardCut === true ? err : undefined;
}
