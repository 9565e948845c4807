import { allUnchanged, hasChanges } from '../objects/change-set.ts';
import type { ColdPass } from './cold-start.ts';
import { deleteHold } from './delete-cap.ts';
import { DesiredBook, revisionLoader, secretValuesOf } from './desired-book.ts';
import type { DeploymentsDeps } from './deployments-deps.ts';
import { DesiredWaiters } from './desired-waiters.ts';
import { OrphanPass, type PruneRefusal } from './orphan-pass.ts';
import type { DesiredDeployment, PollCycle, Snapshot } from './poll-cycle.ts';
import { type PlannedPoll, ResyncPacer } from './resync-pacer.ts';
import { RunLog } from './run-log.ts';
import type { RunReport, Runner } from './runner.ts';
import { pausedIds } from '../reconcile/paused.ts';

export { secretValuesOf } from './desired-book.ts';
export type { OrphanPassResult, PruneRefusal } from './orphan-pass.ts';

export type { DeploymentsDeps } from './deployments-deps.ts';

/** The poll being taken: its plan, whether its resync began, and what it queued early. */
interface PollInProgress extends PlannedPoll {
  early: Set<string>;
}

export class Deployments {
  readonly #d: DeploymentsDeps;
  readonly #desired = new DesiredBook();
  readonly #orphans: OrphanPass;
  readonly #runs: RunLog;
  readonly #pacer: ResyncPacer;
  /** The poll whose deployments are being resolved (from its cycle's arrival to its snapshot). */
  #poll: PollInProgress | undefined;
  readonly #waiters = new DesiredWaiters<DesiredDeployment>();

  constructor(deps: DeploymentsDeps) {
    this.#d = deps;
    this.#orphans = new OrphanPass(deps);
    this.#runs = new RunLog(deps);
    this.#pacer = new ResyncPacer(deps);
  }

  /**
   * Takes one poll (see the module comment): plans it now, queues each new or changed deployment
   * as its revision comes in, then applies the snapshot. `current` says whether this poll still
   * counts (a term that ended takes nothing more from it). A poll that fails is dropped: its
   * failure is the poller's to report.
   */
  async takeCycle(
    cycle: PollCycle,
    runner: Runner,
    signal: AbortSignal,
    current: () => boolean = () => true,
  ): Promise<void> {
    const poll: PollInProgress = { ...this.#pacer.plan(runner), early: new Set() };
    this.#poll = poll;
    // The poll's own failure ends the cycle here; what taking a deployment throws goes to the poller.
    const ended = () => {
      // Nothing more of it will be taken: whoever waits for one of its deployments stops waiting,
      // unless a later poll (a new term's) has taken over the waits.
      if (this.#poll !== poll) return;
      this.#poll = undefined;
      this.#waiters.settleAll(() => undefined);
    };
    const desired = cycle.desired[Symbol.asyncIterator]();
    for (;;) {
      const next = await desired.next().catch(() => undefined);
      if (next === undefined) return ended();
      if (next.done) break;
      if (current()) this.#takeEarly(poll, next.value, runner);
    }
    const snapshot = await cycle.snapshot.catch(() => undefined);
    if (snapshot === undefined) return ended();
    // A term that ended drops the snapshot; the next term's first one settles what still waits.
    if (!current()) return;
    this.#poll = undefined;
    await this.#apply(snapshot, runner, signal, poll);
  }

  /** Takes a complete snapshot that came without a cycle: planned now, nothing queued early. */
  async applySnapshot(snapshot: Snapshot, runner: Runner, signal: AbortSignal): Promise<void> {
    this.#poll = undefined;
    await this.#apply(snapshot, runner, signal, { ...this.#pacer.plan(runner), early: new Set() });
  }

  /**
   * A new or changed deployment whose revision is in, queued before the rest of its poll's
   * snapshot (at a cold start, the first applies used to wait for 1,000 revision reads).
   */
  #takeEarly(poll: PollInProgress, d: DesiredDeployment, runner: Runner): void {
    // A deletion waits for the snapshot: only the whole of it tells whether the cap holds it.
    if (d.refused || this.#desired.reconciled(d) || d.deployment.status === 'AWAITING_DELETE') return;
    this.#pacer.begin(poll, runner);
    this.#take(d);
    runner.enqueue(d.deployment.id, d.hash);
    poll.early.add(d.deployment.id);
  }

  /**
   * Records each deployment of a complete snapshot, queues it (all of them on a resync, else the
   * new and changed), forgets those that left the listing, then, on a resync, runs the orphan pass.
   */
  async #apply(snapshot: Snapshot, runner: Runner, signal: AbortSignal, poll: PollInProgress): Promise<void> {
    const { status } = this.#d;
    this.#pacer.begin(poll, runner);
    const resync = poll.plan.kind === 'resync';
    const seen = new Set<string>();
    const hold = deleteHold(
      snapshot.deployments,
      (id) => status.get(id)?.state === 'Deleted' || this.#d.ownsObjects?.(id) === false,
    );
    if (hold) this.#holdDeletes(hold);
    // Changed deployments first: the runner's free slots go to them, not to the resync of the rest.
    const ordered = [
      ...snapshot.deployments.filter((d) => this.#desired.changed(d)),
      ...snapshot.deployments.filter((d) => !this.#desired.changed(d)),
    ];
    for (const d of ordered) {
      const { deployment } = d;
      seen.add(deployment.id);
      if (poll.early.has(deployment.id)) continue;
      this.#take(d);
      if (d.refused) {
        runner.forget(deployment.id);
        const reason = `${d.refused.code}: ${d.refused.message}`;
        const told = status.get(deployment.id)?.reason === reason;
        this.#runs.setState(deployment.id, 'Refused', reason);
        if (!told) this.#d.onRefused?.(d);
      } else if (hold?.due.has(deployment.id)) {
        runner.forget(deployment.id);
        this.#runs.setState(deployment.id, 'Refused', `MOORING_E_DELETE_CAP_EXCEEDED: ${hold.message}`);
      } else if ((resync && !this.#quiet(d)) || !this.#desired.reconciled(d)) {
        // AWAITING_DELETE goes through the runner too: its deletion is a reconcile like any other,
        // so it never races an apply of the same deployment.
        runner.enqueue(deployment.id, d.hash);
      }
    }
    this.#waiters.settleAll((id) => this.#desired.get(id));
    for (const id of this.#desired.ids()) {
      if (seen.has(id)) continue;
      this.#desired.forget(id);
      this.#runs.forget(id);
      // A reconcile of it still running may yet log what the API server quotes: its report forgets.
      if (this.#d.redactor && !runner.isRunning(id)) this.#d.redactor.forget(id);
      runner.forget(id);
      status.remove(id);
    }
    if (!resync) return;
    this.#pacer.timeDrain(poll, runner, snapshot.deployments.length);
    await this.#orphans.run(snapshot, signal);
  }

  /**
   * Whether a resync may leave `d` alone: Ready, not exposed (the exposure kinds are not watched),
   * and nothing of it changed since it was verified (`quiet`, from the watches).
   */
  #quiet(d: DesiredDeployment): boolean {
    const { id } = d.deployment;
    if (!this.#d.quiet || this.#d.status.get(id)?.state !== 'Ready') return false;
    return !d.deployment.source_config.custom_url && this.#d.quiet(id);
  }

  /** The deletions of this snapshot are over the cap (delete-cap.ts): said loudly, none made. */
  #holdDeletes(hold: NonNullable<ReturnType<typeof deleteHold>>): void {
    this.#d.metrics.deleteCapRefusals.inc();
    this.#d.logger.error(
      { code: 'MOORING_E_DELETE_CAP_EXCEEDED', due: hold.due.size, cap: hold.cap },
      hold.message,
    );
  }

  /** What the deployments' latest reconciles left verified (the restart memo's content). */
  convergedPasses(): Iterable<[string, ColdPass]> {
    return this.#desired.convergedPasses();
  }

  /**
   * `id`'s desired state as taken, or (while a poll is resolving its deployments) a promise of it,
   * settled once the poll takes it or ends; undefined when there is none (a cold start's listing).
   */
  desiredOf(id: string): DesiredDeployment | Promise<DesiredDeployment | undefined> | undefined {
    return this.#desired.get(id) ?? (this.#poll ? this.#waiters.wait(id) : undefined);
  }

  /** Records `d` as its deployment's desired state and shows it in the status. */
  #take(d: DesiredDeployment): void {
    const { deployment } = d;
    // Before anything of it runs or is logged: the redactor knows its values from here on.
    this.#d.redactor?.set(deployment.id, secretValuesOf(d));
    this.#desired.set(d);
    this.#waiters.settle(deployment.id, d);
    this.#d.status.observe({
      id: deployment.id,
      name: deployment.name,
      namespace: deployment.source_config.listener_config?.k8s_namespace ?? null,
      revision: d.revision?.id ?? d.pendingRevision ?? deployment.latest_revision_id,
      controlPlaneStatus: String(deployment.status),
    });
  }

  /** The refusal of the latest orphan pass, or null when it was allowed to run. */
  get pruneRefusal(): PruneRefusal | null {
    return this.#orphans.refusal;
  }

  /** The runner's reconcile: one deployment, by id. */
  async reconcile(key: string, signal: AbortSignal): Promise<{ requeueAfterMs?: number }> {
    const d = this.#desired.get(key);
    if (!d || d.refused) return {};
    const waits = this.#d.memory?.defers(key, this.#desired.holds(d));
    if (waits) {
      this.#runs.setState(key, 'Pending', waits);
      return {};
    }
    const { deployment, revision } = d;
    const revisionId = revision?.id ?? d.pendingRevision ?? null;
    this.#runs.started(key, revisionId);
    const converged = this.#desired.takeConverged(key);
    const loadRevision = revisionLoader(d, this.#d.loadRevision, this.#d.redactor);
    const result = await this.#d.reconcile(
      { deployment, revision, loadRevision, changed: this.#desired.changed(d), hash: d.hash, converged },
      signal,
    );
    this.#desired.succeeded(d, result.converged);
    this.#d.onReconciled?.(key, result);
    const changed = hasChanges(result.changeSet);
    const state = result.health.state;
    const reason = state === 'Ready' ? null : result.health.reason;
    const before = this.#d.status.get(key);
    // Only a pass whose every object was found unchanged: a skipped or refused one stays at info.
    const quiet = allUnchanged(result.changeSet) && before?.state === state && before.reason === reason;
    const changes = this.#runs.returned(key, revisionId, result.changeSet, quiet);
    const paused = pausedIds(result.changeSet);
    this.#d.status.record(key, { state, reason, changed, changes, atMs: this.#d.clock.now(), paused });
    return result.requeueAfterMs === undefined ? {} : { requeueAfterMs: result.requeueAfterMs };
  }

  /** Metrics, status and the log line per reconcile (run-log.ts). */
  report(r: RunReport): void {
    // A deployment that left the listing while it ran: its line is the last use of its run, and
    // of its secret values (forgotten once the line is written).
    const gone = !this.#desired.has(r.key);
    try {
      this.#runs.report(r, gone);
    } finally {
      if (gone) this.#d.redactor?.forget(r.key);
    }
  }
}
