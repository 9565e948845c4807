/**
 * The agent's per-deployment bookkeeping: what the latest complete snapshot asks for, what each
 * reconcile did, and the status, metrics and the log line per reconcile that follow. It
 * decides nothing about retries (the runner does); it turns snapshots into queue entries and
 * outcomes into reports.
 */
import { errorCode } from '../errors.ts';
import { allUnchanged, type ChangeSet, hasChanges, summarize } from '../objects/change-set.ts';
import type { Logger } from '../log.ts';
import type { AgentMetrics } from '../ops/metrics.ts';
import type { ConvergedPass } from '../reconcile/converged.ts';
import type { ReconcileResult } from '../reconcile/result.ts';
import { secretValues } from '../reconcile/steps.ts';
import type { Redactor } from '../redact.ts';
import type { Clock } from './clock.ts';
import { deleteHold } from './delete-cap.ts';
import { DesiredWaiters } from './desired-waiters.ts';
import { type DesiredDeployment, POLL_JITTER, type Snapshot } from './poller.ts';
import type { RunReport, Runner } from './runner.ts';
import { describeError, safeErr } from './safe-error.ts';
import type { DeploymentState, StatusStore } from './status.ts';

/** The result of one orphan pass (after a complete listing). */
export interface OrphanPassResult {
  /** Deletions made (or previewed in dry-run), when any. */
  changeSet?: ChangeSet;
  /** Set when the rules forbade every deletion this cycle (cap exceeded, listing incomplete). */
  refused?: { code: string; message: string };
}

/** The last orphan pass that was refused, for `/status`. */
export interface PruneRefusal {
  code: string;
  message: string;
  at: string;
}

/**
 * The secret values of a deployment's desired state: its record's `secrets[].value`, and those of
 * its revision should the control plane send a revision with `secrets` (the tolerant parse keeps
 * members the interface does not list).
 */
export function secretValuesOf(d: Pick<DesiredDeployment, 'deployment' | 'revision'>): string[] {
  const fromRevision = (d.revision as { secrets?: unknown } | undefined)?.secrets;
  const revisionValues = Array.isArray(fromRevision)
    ? fromRevision.map((s: { value?: unknown }) => s?.value).filter((v): v is string => typeof v === 'string')
    : [];
  return [...secretValues(d.deployment), ...revisionValues];
}

export interface DeploymentsDeps {
  status: StatusStore;
  logger: Logger;
  /**
   * Told each deployment's secret values as its record is taken, and to forget them once it left
   * the listing and no reconcile of it runs any more: what the agent emits is scrubbed of them.
   */
  redactor?: Pick<Redactor, 'set' | 'forget'> | undefined;
  metrics: AgentMetrics;
  clock: Clock;
  /**
   * Time between full resyncs (default 0: every poll is one). A poll sooner than that after the
   * last resync queues only changed and new deployments, like a poll while work is still queued.
   */
  resyncIntervalMs?: number;
  /**
   * The poll interval. A resync that took longer than this (its cold start's excepted) is
   * followed by a rest as long as it took before the next resync; unset, resyncs never rest.
   */
  pollIntervalMs?: number;
  reconcile(
    input: Pick<DesiredDeployment, 'deployment' | 'revision'> & {
      changed?: boolean;
      hash?: string;
      converged?: ConvergedPass | undefined;
    },
    signal: AbortSignal,
  ): Promise<ReconcileResult>;
  collectOrphans(snapshot: Snapshot, signal: AbortSignal): Promise<OrphanPassResult>;
  /** Called when a complete snapshot arrives, before its deployments are queued (starts the cycle's inventory listing). */
  beginCycle?: (() => void) | undefined;
  onReconciled?: ((deploymentId: string, result: ReconcileResult) => void) | undefined;
  /**
   * Whether a deployment still owns objects (kept volumes aside) by the latest complete listing;
   * undefined when there is none yet. An AWAITING_DELETE record whose objects are gone is not due
   * for deletion, so records lingering in the control plane never hold the cap (delete-cap.ts).
   */
  ownsObjects?: ((deploymentId: string) => boolean | undefined) | undefined;
  /** Told once when a deployment becomes refused by the poller (or its reason changes): the Event. */
  onRefused?: ((d: DesiredDeployment) => void) | undefined;
}

/** What a poll decided when its listing completed: whether it is a resync, and when it began. */
interface PollPlan {
  busy: boolean;
  atMs: number;
  /** Whether this is the first resync (the cold start, which converges everything). */
  first: boolean;
  /** Whether the resync has begun (`#begin`): once the poll queued something, or at its snapshot. */
  begun: boolean;
}

export class Deployments {
  readonly #d: DeploymentsDeps;
  readonly #desired = new Map<string, DesiredDeployment>();
  /**
   * Revision and change-set summary of each key's last run, for its log line; `quiet` when it
   * changed nothing and left the deployment in the state and reason it had.
   */
  readonly #lastRun = new Map<
    string,
    { revisionId: string | null; changes: string | null; quiet?: boolean }
  >();
  /** What each key's last reconcile returned as `converged`, passed to its next (the resync's shortcut). */
  readonly #converged = new Map<string, ConvergedPass>();
  /** Desired hash of each key's last successful reconcile. */
  readonly #reconciledHash = new Map<string, string>();
  #pruneRefusal: PruneRefusal | null = null;
  /** When the latest resync began (clock ms). */
  #lastResyncMs: number | undefined;
  /** When the latest resync after the first one drained, and how long it took (clock ms). */
  #lastDrained: { atMs: number; tookMs: number } | undefined;
  /** The poll in progress (`beginPoll`): whether it is a resync, and what it queued early. */
  #poll: { plan: PollPlan; early: Set<string> } | undefined;
  readonly #waiters = new DesiredWaiters<DesiredDeployment>();

  constructor(deps: DeploymentsDeps) {
    this.#d = deps;
  }

  /**
   * The poll's listing is complete; its revisions are still being fetched. Decides now, before
   * anything of the poll is queued, whether the snapshot to come is a resync (see
   * `applySnapshot`). The resync begins (the cycle's inventory listing starts) with the first
   * deployment queued early (`takeEarly`), or at the snapshot: a poll that fails before either
   * lists nothing and does not count as a resync.
   */
  beginPoll(runner: Runner): void {
    this.#poll = { plan: this.#plan(runner), early: new Set() };
  }

  /**
   * One deployment's desired state, ready before the rest of its poll's snapshot: a new or changed
   * one is queued at once, not after every other revision has been fetched (at a cold start, the
   * first applies used to wait for 1,000 revision reads). The snapshot does not queue it again.
   */
  takeEarly(d: DesiredDeployment, runner: Runner): void {
    const poll = this.#poll;
    // A deletion waits for the snapshot: only the whole of it tells whether the cap holds it.
    if (!poll || d.refused || this.#reconciled(d) || d.deployment.status === 'AWAITING_DELETE') return;
    this.#begin(poll.plan, runner);
    this.#take(d);
    runner.enqueue(d.deployment.id, d.hash);
    poll.early.add(d.deployment.id);
  }

  /**
   * Takes a complete snapshot: records each deployment, queues it (a resync), forgets those that
   * left the listing, then runs the orphan pass.
   *
   * Only changed and new deployments are queued, and neither the cycle's listing nor the orphan
   * pass runs, when
   * - the previous cycle's work is still queued (a cold start, or more deployments than one
   *   interval can get through): a resync is not stacked on one still in progress; or
   * - the last resync is more recent than `resyncIntervalMs` (allowing for the poll's jitter); or
   * - the last resync outlasted the poll interval and drained less than its own duration ago
   *   (the cold start's excepted): resyncs then take at most about half the agent's time, so that
   *   a listener too large to resync within a poll interval (10,000 deployments on 2 cores) polls
   *   on time between them instead of resyncing back to back. Where a resync fits in the
   *   interval, as at 1,000 deployments, this never delays one.
   * Changes propagate at once either way; the next resync starts at the first poll after all
   * have passed. The decision is taken when the poll's listing completed (`beginPoll`), before
   * anything of that poll was queued; a snapshot without one decides here.
   */
  async applySnapshot(snapshot: Snapshot, runner: Runner, signal: AbortSignal): Promise<void> {
    const { status } = this.#d;
    const poll = this.#poll;
    this.#poll = undefined;
    const plan = poll?.plan ?? this.#plan(runner);
    this.#begin(plan, runner);
    const { busy, atMs, first } = plan;
    const seen = new Set<string>();
    const hold = deleteHold(
      snapshot.deployments,
      (id) => status.get(id)?.state === 'Deleted' || this.#d.ownsObjects?.(id) === false,
    );
    if (hold) this.#holdDeletes(hold);
    // Changed deployments first: the runner's free slots go to them, not to the resync of the rest.
    const ordered = [
      ...snapshot.deployments.filter((d) => this.#changed(d)),
      ...snapshot.deployments.filter((d) => !this.#changed(d)),
    ];
    for (const d of ordered) {
      const { deployment } = d;
      seen.add(deployment.id);
      if (poll?.early.has(deployment.id)) continue;
      this.#take(d);
      if (d.refused) {
        runner.forget(deployment.id);
        const reason = `${d.refused.code}: ${d.refused.message}`;
        const told = status.get(deployment.id)?.reason === reason;
        this.#setState(deployment.id, 'Refused', reason);
        if (!told) this.#d.onRefused?.(d);
      } else if (hold?.due.has(deployment.id)) {
        runner.forget(deployment.id);
        this.#setState(deployment.id, 'Refused', `MOORING_E_DELETE_CAP_EXCEEDED: ${hold.message}`);
      } else if (!busy || !this.#reconciled(d)) {
        // AWAITING_DELETE goes through the runner too: its deletion is a reconcile like any other,
        // so it never races an apply of the same deployment.
        runner.enqueue(deployment.id, d.hash);
      }
    }
    this.#waiters.settleAll((id) => this.#desired.get(id));
    for (const id of [...this.#desired.keys()]) {
      if (seen.has(id)) continue;
      this.#desired.delete(id);
      this.#reconciledHash.delete(id);
      this.#converged.delete(id);
      this.#lastRun.delete(id);
      // A reconcile of it still running may yet log what the API server quotes: its report forgets.
      if (this.#d.redactor && !runner.isRunning(id)) this.#d.redactor.forget(id);
      runner.forget(id);
      status.remove(id);
    }
    if (busy) return;
    const { clock, logger } = this.#d;
    // How long a resync takes is what `--resync-interval` is chosen by (the first one is the cold start).
    void runner.whenIdle().then(() => {
      const ms = clock.now() - atMs;
      if (!first) this.#lastDrained = { atMs: clock.now(), tookMs: ms };
      this.#d.metrics.resyncDuration.observe(ms / 1000);
      logger.debug({ durationMs: ms, deployments: snapshot.deployments.length }, 'resync drained');
    });
    await this.#orphanPass(snapshot, signal);
  }

  /** The deletions of this snapshot are over the cap (delete-cap.ts): said loudly, none made. */
  #holdDeletes(hold: NonNullable<ReturnType<typeof deleteHold>>): void {
    this.#d.metrics.deleteCapRefusals.inc();
    this.#d.logger.error(
      { code: 'MOORING_E_DELETE_CAP_EXCEEDED', due: hold.due.size, cap: hold.cap },
      hold.message,
    );
  }

  /** Whether this poll is a resync (see `applySnapshot`). */
  #plan(runner: Runner): PollPlan {
    const { logger, clock } = this.#d;
    const queued = runner.depth > 0;
    const atMs = clock.now();
    // Polls come up to POLL_JITTER sooner than their interval; so may a resync.
    const slack = 1 - POLL_JITTER;
    const first = this.#lastResyncMs === undefined;
    const due = first || atMs - (this.#lastResyncMs ?? 0) >= slack * (this.#d.resyncIntervalMs ?? 0);
    const drained = this.#lastDrained;
    const rested =
      drained === undefined ||
      drained.tookMs <= (this.#d.pollIntervalMs ?? Number.POSITIVE_INFINITY) ||
      atMs - drained.atMs >= slack * drained.tookMs;
    if (queued) logger.debug({ queued: runner.depth }, 'previous resync still queued: queueing changes only');
    else if (!due) logger.debug('resync not due yet: queueing changes only');
    else if (!rested)
      logger.debug(
        { lastResyncTookMs: drained?.tookMs },
        'the last resync outlasted the poll interval and drained less than its own duration ago: queueing changes only',
      );
    return { busy: queued || !due || !rested, atMs, first, begun: false };
  }

  /**
   * Begins the resync a poll planned, once: its time counts from the plan, its listing starts, and
   * deployments parked until a resync (an object of theirs belongs to someone else) are let go.
   */
  #begin(plan: PollPlan, runner: Runner): void {
    if (plan.busy || plan.begun) return;
    plan.begun = true;
    this.#lastResyncMs = plan.atMs;
    runner.resync();
    this.#d.beginCycle?.();
  }

  /**
   * `id`'s desired state as taken, or (while a poll is resolving its deployments) a promise of it,
   * settled once the poll takes it or ends; undefined when there is none (a cold start's listing).
   */
  desiredOf(id: string): DesiredDeployment | Promise<DesiredDeployment | undefined> | undefined {
    return this.#desired.get(id) ?? (this.#poll ? this.#waiters.wait(id) : undefined);
  }

  /** The poll under way failed: nothing more of it will be taken. */
  pollFailed(): void {
    this.#poll = undefined;
    this.#waiters.settleAll(() => undefined);
  }

  /** Records `d` as its deployment's desired state and shows it in the status. */
  #take(d: DesiredDeployment): void {
    const { deployment } = d;
    // Before anything of it runs or is logged: the redactor knows its values from here on.
    this.#d.redactor?.set(deployment.id, secretValuesOf(d));
    this.#desired.set(deployment.id, d);
    this.#waiters.settle(deployment.id, d);
    this.#d.status.observe({
      id: deployment.id,
      name: deployment.name,
      namespace: deployment.source_config.listener_config?.k8s_namespace ?? null,
      revision: d.revision?.id ?? deployment.latest_revision_id,
      controlPlaneStatus: String(deployment.status),
    });
  }

  /** The refusal of the latest orphan pass, or null when it was allowed to run. */
  get pruneRefusal(): PruneRefusal | null {
    return this.#pruneRefusal;
  }

  /** The runner's reconcile: one deployment, by id. */
  async reconcile(key: string, signal: AbortSignal): Promise<{ requeueAfterMs?: number }> {
    const d = this.#desired.get(key);
    if (!d || d.refused) return {};
    const { deployment, revision } = d;
    this.#lastRun.set(key, { revisionId: revision?.id ?? null, changes: null });
    const converged = this.#converged.get(key);
    // Taken before the call: a reconcile that throws passes nothing on.
    this.#converged.delete(key);
    const result = await this.#d.reconcile(
      { deployment, revision, changed: this.#changed(d), hash: d.hash, converged },
      signal,
    );
    // Nothing is kept of a deployment that left the listing while it ran, nor what it verified
    // once its desired state changed meanwhile.
    const current = this.#desired.get(key);
    if (current) this.#reconciledHash.set(key, d.hash);
    if (result.converged && current?.hash === d.hash) this.#converged.set(key, result.converged);
    this.#d.onReconciled?.(key, result);
    const changes = summarize(result.changeSet);
    const changed = hasChanges(result.changeSet);
    const state = result.health.state;
    const reason = state === 'Ready' ? null : result.health.reason;
    const before = this.#d.status.get(key);
    // Only a pass whose every object was found unchanged: a skipped or refused one stays at info.
    const quiet = allUnchanged(result.changeSet) && before?.state === state && before.reason === reason;
    this.#lastRun.set(key, { revisionId: revision?.id ?? null, changes, quiet });
    this.#d.status.record(key, { state, reason, changed, changes, atMs: this.#d.clock.now() });
    return result.requeueAfterMs === undefined ? {} : { requeueAfterMs: result.requeueAfterMs };
  }

  /** Metrics, status and the log line per reconcile (info when it changed something or the health moved, else debug). Decides nothing (the runner did). */
  report(r: RunReport): void {
    // A deployment that left the listing while it ran: its line is the last use of its run, and
    // of its secret values (forgotten once the line is written).
    const gone = !this.#desired.has(r.key);
    try {
      this.#report(r, gone);
    } finally {
      if (gone) this.#d.redactor?.forget(r.key);
    }
  }

  #report(r: RunReport, gone: boolean): void {
    const { metrics, logger, status } = this.#d;
    const { result } = r;
    metrics.reconciles.inc({ result: result.kind });
    metrics.reconcileDuration.observe({ result: result.kind }, r.durationMs / 1000);
    const last = this.#lastRun.get(r.key);
    if (gone) this.#lastRun.delete(r.key);
    const line = {
      deploymentId: r.key,
      revisionId: last?.revisionId ?? null,
      changes: last?.changes ?? null,
      durationMs: r.durationMs,
      result: result.kind,
    };
    if (result.kind === 'success') {
      const entry = status.get(r.key);
      const fields = { ...line, state: entry?.state, reason: entry?.reason ?? undefined };
      // A resync that changed nothing and found the same health is debug: at info, an idle agent
      // would log one line per deployment per poll (200 lines a second at 1,000 deployments).
      if (last?.quiet) logger.debug(fields, 'reconciled');
      else logger.info(fields, 'reconciled');
      return;
    }
    const { code, message } = describeError(result.error);
    if (result.kind === 'retry') {
      this.#setState(r.key, 'Retrying', `${code}: ${message}`);
      logger.warn(
        { ...line, code, attempt: result.attempt, retryInMs: result.delayMs, err: safeErr(result.error) },
        'reconcile failed; will retry',
      );
    } else {
      this.#setState(r.key, 'Refused', `${code}: ${message}`);
      logger.error(
        { ...line, code, err: safeErr(result.error) },
        result.until === 'resync'
          ? 'reconcile refused; tried again at the next resync'
          : 'reconcile refused; parked until the deployment changes',
      );
    }
  }

  async #orphanPass(snapshot: Snapshot, signal: AbortSignal): Promise<void> {
    const { logger } = this.#d;
    try {
      const result = await this.#d.collectOrphans(snapshot, signal);
      this.#pruneRefused(result.refused ?? null);
      if (result.changeSet && result.changeSet.entries.length > 0) {
        logger.info(
          { changes: summarize(result.changeSet), dryRun: result.changeSet.dryRun },
          'orphan pass deleted objects',
        );
      }
    } catch (err) {
      const code = errorCode(err);
      logger.warn({ err: safeErr(err), code }, 'orphan pass failed; nothing pruned this cycle');
      // A failed inventory listing refuses the pass as surely as an unparsable record does.
      if (code === 'MOORING_E_PRUNE_LISTING_INCOMPLETE') {
        this.#pruneRefused({ code, message: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  /** A refusal is an alert, not a log line only: counted, and shown in /status until a pass runs. */
  #pruneRefused(refused: { code: string; message: string } | null): void {
    if (refused) {
      this.#d.metrics.pruneRefusals.inc({ code: refused.code });
      this.#pruneRefusal = { ...refused, at: new Date(this.#d.clock.now()).toISOString() };
    } else {
      this.#pruneRefusal = null;
    }
  }

  /** Whether `d`'s desired state is the one its last successful reconcile applied. */
  #reconciled(d: DesiredDeployment): boolean {
    return this.#reconciledHash.get(d.deployment.id) === d.hash;
  }

  /** Whether `d`'s desired state differs from the one its last successful reconcile applied. */
  #changed(d: DesiredDeployment): boolean {
    const previous = this.#reconciledHash.get(d.deployment.id);
    return previous !== undefined && previous !== d.hash;
  }

  #setState(id: string, state: DeploymentState, reason: string | null): void {
    this.#d.status.record(id, { state, reason, changed: false, changes: null, atMs: this.#d.clock.now() });
  }
}
