/**
 * The agent: start-up checks and registration, then (while holding a shard, or always without
 * leader election) the poll loop feeding the runner, the orphan pass after each listing and (shard
 * 0's holder) the heartbeat, until the last shard is lost (its writes cut at once) or a shutdown
 * (after the grace period; then the memo is saved and the Leases released) ends them. Work is
 * scoped to the held shards (held-shards.ts, ADR 0015). Access comes through `AgentDeps`.
 */
import { type ErrorCode, MooringError } from '../errors.ts';
import type { Check } from '../ops/server.ts';
import { pollLoopHealth, readiness } from './agent-checks.ts';
import { type AgentDeps, type AgentStatus, statusDocumentOf } from './agent-deps.ts';
import { type Clock, sleep, systemClock } from './clock.ts';
import type { Deployments } from './deployments.ts';
import { drainBoundMs, HeldShards, shardGauges, shardLost } from './held-shards.ts';
import { MemoSchedule } from './memo-schedule.ts';
import { type Snapshot, Poller } from './poller.ts';
import { ShardElector } from './shard-elector.ts';
import { startUp } from './start-up.ts';
import { StatusStore } from './status.ts';
import { endTerm, heartbeat, type Term, termDeployments, termRunner, untilAborted } from './term-parts.ts';

export type { AgentDeps, AgentStatus } from './agent-deps.ts';
export type { OrphanPassResult } from './deployments.ts';

export class Agent {
  readonly #d: AgentDeps & { clock: Clock; random: () => number };
  readonly status: StatusStore;
  readonly #deployments: Deployments;
  #term: Term | undefined;
  #termStopping: Promise<boolean> | undefined;
  #previousSettled: Promise<void> = Promise.resolve();
  #registered = false;
  #lastPollAtMs: number | undefined;
  #kubeUnreachableSinceMs: number | undefined;
  readonly #held: HeldShards;
  /** The last term ended because another replica took the lease (not by shutdown). */
  #deposed = false;
  /** The shutdown cut no write in flight: the Leases may be cleared for a standby at once. */
  #quietStop = true;
  readonly #memoSchedule = new MemoSchedule();

  constructor(deps: AgentDeps) {
    this.#d = { clock: systemClock, random: Math.random, ...deps };
    this.status = new StatusStore({ ...(deps.redactor ? { scrubber: deps.redactor } : {}) });
    this.#held = new HeldShards(
      deps.config.shards,
      shardGauges(deps.metrics, deps.config.shards, deps.onShards),
    );
    this.#deployments = termDeployments(this.#d, this.status, (snapshot, signal) =>
      this.#held.guardAll(signal, (s) => this.#d.collectOrphans(snapshot, s, this.#held.scopeOf(snapshot))),
    );
  }

  get isLeader(): boolean {
    return this.#term !== undefined;
  }

  /**
   * Whether Events may be recorded: while leading, and while a term's last reconciles finish on
   * shutdown; never by a standby, nor after the lease went to another replica.
   */
  get recordsEvents(): boolean {
    return this.#term !== undefined || (this.#termStopping !== undefined && !this.#deposed);
  }

  /** Queue depth and in-flight reconciles of the current term (0 when not leading). */
  get queueDepth(): number {
    return this.#term?.runner.depth ?? 0;
  }
  get inFlight(): number {
    return this.#term?.runner.inFlight ?? 0;
  }

  /** A deployment's desired state, or a promise of it while a poll resolves it (ADR 0008). */
  desiredOf(id: string): ReturnType<Deployments['desiredOf']> {
    return this.#deployments.desiredOf(id);
  }

  /** Each Kubernetes request's result: network failures make the agent unready; cut ones say nothing. */
  observeKubeResult(result: string): void {
    if (result === 'error') this.#kubeUnreachableSinceMs ??= this.#d.clock.now();
    else if (result !== 'cancelled') this.#kubeUnreachableSinceMs = undefined;
  }

  /**
   * Runs until `signal` aborts. Rejects only when start-up is refused (listener or namespace
   * missing, listener not k8s): retryable start-up failures are retried with backoff.
   */
  async run(signal: AbortSignal): Promise<void> {
    const { config, logger } = this.#d;
    await this.#startUp(signal);
    if (signal.aborted) return;
    const stopped = untilAborted(signal);
    const clientFor = this.#d.leaseClientFor ?? (this.#d.leaseClient && (() => this.#d.leaseClient!));
    if (config.leaderElection && !config.dryRun && clientFor) {
      // The elector gets its own signal: the Leases are released only after in-flight reconciles
      // finished (or the grace period ran out), never while one may still write.
      const electorAbort = new AbortController();
      const elector = new ShardElector({
        ...config,
        clientFor,
        clock: this.#d.clock,
        random: this.#d.random,
        logger,
        onGained: (shard) => this.#gained(shard, signal),
        // Another replica may be writing that shard already: stop at once, no grace.
        onLost: (shard) => this.#lost(shard, shardLost(shard, false)),
        beforeRelease: (shard) => this.#giveBack(shard),
        mayClearOnStop: () => this.#quietStop,
      });
      const electing = elector.run(electorAbort.signal);
      await stopped;
      await this.#shutDown();
      electorAbort.abort();
      await electing;
    } else {
      this.#held.gainAll();
      this.#startTerm();
      await stopped;
      await this.#shutDown();
    }
    logger.info('agent stopped');
  }

  /** One poll and the reconciles it causes, then return (`mooring diff`, `sandbox --once`). */
  async runOnce(signal: AbortSignal): Promise<Snapshot> {
    await this.#startUp(signal, { register: false });
    this.#held.gainAll();
    this.#startTerm({ poll: false });
    const term = this.#term!;
    try {
      // The poll's cycle is taken (queued, orphan pass run) before it returns.
      const snapshot = await term.poller.pollOnce();
      await term.runner.whenIdle();
      return snapshot;
    } finally {
      await this.#stopTerm(this.#d.config.shutdownGracePeriodMs, 'one cycle done');
    }
  }

  /**
   * Live unless the poll loop is stuck: far past its own schedule, or inside one cycle for far
   * longer than any healthy cycle takes (an await that never returns). A standby is live.
   */
  health(): Check {
    return pollLoopHealth(this.#d.clock.now(), this.#d.config.pollIntervalMs, this.#term?.poller);
  }

  /** Ready: started, listener registered, Kubernetes reachable. A standby (not leader) is ready. */
  ready(): Check {
    const kubeOk = this.#kubeUnreachableSinceMs === undefined;
    return readiness(this.#registered, kubeOk, this.isLeader, this.#d.memory?.check());
  }

  /** The `/status` document, every string in it scrubbed of known secret values. */
  statusDocument(): AgentStatus {
    const live = { leader: this.isLeader, lastPollAtMs: this.#lastPollAtMs, shards: this.#held.status() };
    return statusDocumentOf(this.#d, live, this.#deployments.pruneRefusal, this.status.list());
  }

  /** Ends the term on shutdown; a leader then saves its restart memo while it still holds the lease. */
  async #shutDown(): Promise<void> {
    const leading = this.#term !== undefined;
    const passing = this.#held.passing;
    const finished = await this.#stopTerm(this.#d.config.shutdownGracePeriodMs, 'shutdown');
    this.#quietStop = finished && !passing;
    if (leading && !this.#deposed) await this.#d.saveRestartMemo?.(this.#deployments.convergedPasses());
  }

  async #startUp(signal: AbortSignal, opts: { register?: boolean } = {}): Promise<void> {
    if (await startUp(this.#d, signal, opts)) this.#registered = true;
  }

  /**
   * Starts a term once the previous one is fully over: a reconcile the previous term gave up on (it
   * ignored its abort) must not run next to a new one for the same deployment. Waits one timeout at most.
   */
  async #startTermWhenClear(signal: AbortSignal): Promise<void> {
    if (this.#termStopping) {
      await this.#termStopping;
      const bound = new AbortController();
      await Promise.race([
        this.#previousSettled,
        sleep(this.#d.clock, this.#d.config.reconcileTimeoutMs, bound.signal).catch(() => undefined),
      ]);
      bound.abort();
    }
    if (!signal.aborted && this.#held.count > 0) this.#startTerm();
  }

  /** A shard taken: a term starts with the first; shard 0 brings the heartbeat. */
  #gained(shard: number, signal: AbortSignal): void {
    if (signal.aborted) return;
    this.#held.gain(shard);
    if (!this.#term) void this.#startTermWhenClear(signal);
    else if (shard === 0) this.#beat(this.#term);
  }

  /** A shard lost: its reconciles are cut; with the last one the term ends, with no grace. */
  #lost(shard: number, reason: MooringError): void {
    this.#held.lose(shard, reason);
    if (this.#held.count > 0 || !this.#term) return;
    this.#deposed = true;
    void this.#stopTerm(0, 'leadership lost', 'MOORING_E_LEADERSHIP_LOST');
  }

  /**
   * A shard above the fair share: its work is cut and waited for, its memo saved, before its Lease
   * is let go. True (its Lease may be cleared) when none was running: a cut request may still land.
   */
  async #giveBack(shard: number): Promise<boolean> {
    const quiet = !this.#held.busy(shard);
    this.#held.lose(shard, shardLost(shard, true));
    await this.#held.drained(shard, this.#d.clock, drainBoundMs(this.#d.config.leaseDurationMs));
    await this.#d.saveRestartMemo?.(this.#deployments.convergedPasses(), [shard]);
    return quiet;
  }

  #startTerm(opts: { poll?: boolean } = {}): void {
    if (this.#term) return;
    this.#deposed = false;
    const { config, logger, metrics, clock, random } = this.#d;
    const abort = new AbortController();
    const runner = termRunner(
      this.#d,
      (key, signal) => this.#held.guard(key, signal, (s) => this.#deployments.reconcile(key, s), {}),
      (r) => this.#deployments.report(r),
    );
    const poller = new Poller({
      client: this.#d.controlPlane,
      resolver: this.#d.resolver,
      listenerId: config.listenerId,
      intervalMs: config.pollIntervalMs,
      collisions: { ...config.references, urls: this.#d.exposesUrls, holdsObjects: this.#d.ownsObjects },
      onListed: (n) => this.#d.memory?.sized(n),
      scope: () => this.#held.scope,
      retains: (id) => !this.#deployments.parked(id),
      waits: (deployment) => this.#deployments.waitsFor(deployment),
      beforeListing: this.#d.beforeListing,
      clock,
      random,
      logger,
      // A term that ended (leadership lost meanwhile) takes nothing more from its poll.
      onCycle: (cycle) => {
        if (this.#term !== term) return;
        const current = () => this.#term === term;
        const mine = this.#held.filterCycle(cycle);
        const taken = this.#deployments.takeCycle(mine, term.runner, term.abort.signal, current);
        const save = this.#d.saveRestartMemo;
        const due = () => this.#term === term && this.#memoSchedule.due(clock.now(), this.#d.memory?.level);
        return taken.then(() => (save && due() ? save(this.#deployments.convergedPasses()) : undefined));
      },
      onPoll: (result, ms) => {
        metrics.polls.inc({ result });
        metrics.pollDuration.observe({ result }, ms / 1000);
        if (result === 'success') {
          this.#lastPollAtMs = clock.now();
          metrics.lastPollSuccess.set(clock.now() / 1000);
        }
      },
    });
    const term: Term = { abort, runner, poller, loops: [] };
    this.#term = term;
    metrics.leader.set(1);
    runner.start();
    if (opts.poll !== false) {
      term.loops.push(poller.run(abort.signal));
      this.#beat(term);
    }
  }

  /** The listener heartbeat (and namespace patch), from shard 0's holder only, while it holds it. */
  #beat(term: Term): void {
    const shard0 = this.#held.signalOf(0);
    if (shard0) term.loops.push(heartbeat(this.#d, AbortSignal.any([term.abort.signal, shard0])));
  }

  /** Resolves true when every reconcile finished on its own (none was cut). */
  #stopTerm(graceMs: number, why: string, code: ErrorCode = 'MOORING_E_CANCELLED'): Promise<boolean> {
    const term = this.#term;
    if (!term) return this.#termStopping ?? Promise.resolve(true);
    this.#term = undefined;
    this.#d.metrics.leader.set(0);
    this.#termStopping = endTerm(this.#d, term, graceMs, new MooringError(code, why), (settled) => {
      this.#previousSettled = settled;
    });
    return this.#termStopping;
  }
}
