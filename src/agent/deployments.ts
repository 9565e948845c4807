import { allUnchanged, hasChanges } from '../objects/change-set.ts';
import type { ColdPass } from './cold-start.ts';
import { deleteHold } from '../reconcile/delete-cap.ts';
import { DeploymentBook } from './deployment-book.ts';
import type { TrackedDeployment } from './deployment-record.ts';
import { revisionLoader, secretValuesOf, statusEntryOf } from './desired-book.ts';
import type { DeploymentsDeps } from './deployments-deps.ts';
import { DesiredWaiters } from './desired-waiters.ts';
import { OrphanPass, type PruneRefusal } from './orphan-pass.ts';
import type { DesiredDeployment, PollCycle, Snapshot } from './poll-cycle.ts';
import { type PlannedPoll, ResyncPacer } from './resync-pacer.ts';
import { quietOnResync } from './quiet-resync.ts';
import { RunLog } from './run-log.ts';
import { summarize } from '../objects/change-set.ts';
import type { RunReport, Runner } from './runner.ts';
import { pausedIds } from '../reconcile/paused.ts';

export { secretValuesOf } from './desired-book.ts';
export type { OrphanPassResult, PruneRefusal } from './orphan-pass.ts';

export type { DeploymentsDeps } from './deployments-deps.ts';

/**
 * The poll being taken: its plan, whether its resync began, and what it queued early (each
 * deployment's desired state as taken: the snapshot's may differ, and is then taken too).
 */
interface PollInProgress extends PlannedPoll {
  early: Map<string, DesiredDeployment>;
}

export class Deployments {
  readonly #d: DeploymentsDeps;
  /** Every deployment's record (deployment-book.ts): the one place its state lives. */
  readonly #book: DeploymentBook;
  readonly #orphans: OrphanPass;
  readonly #runs: RunLog;
  readonly #pacer: ResyncPacer;
  /** The poll whose deployments are being resolved (from its cycle's arrival to its snapshot). */
  #poll: PollInProgress | undefined;
  readonly #waiters = new DesiredWaiters<DesiredDeployment>();

  constructor(deps: DeploymentsDeps) {
    this.#d = deps;
    this.#book = new DeploymentBook(deps);
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
    const poll: PollInProgress = { ...this.#pacer.plan(runner), early: new Map() };
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
    await this.#apply(snapshot, runner, signal, { ...this.#pacer.plan(runner), early: new Map() });
  }

  /**
   * A new or changed deployment whose revision is in, queued before the rest of its poll's
   * snapshot (at a cold start, the first applies used to wait for 1,000 revision reads).
   */
  #takeEarly(poll: PollInProgress, d: DesiredDeployment, runner: Runner): void {
    const { id, status } = d.deployment;
    // A deletion waits for the snapshot: only the whole of it tells whether the cap holds it.
    if (d.refused || this.#book.get(id)?.reconciled(d) || status === 'AWAITING_DELETE') return;
    this.#pacer.begin(poll, runner);
    poll.early.set(id, d);
    const record = this.#take(d);
    if (!record) runner.forget(id);
    else {
      record.queue();
      runner.enqueue(id, d.hash);
    }
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
    const changed = (d: DesiredDeployment) => this.#book.get(d.deployment.id)?.changed(d) === true;
    const ordered = [
      ...snapshot.deployments.filter(changed),
      ...snapshot.deployments.filter((d) => !changed(d)),
    ];
    for (const d of ordered) {
      const { deployment } = d;
      seen.add(deployment.id);
      // Taken already, unless the complete listing says otherwise of it (a later copy, a refusal).
      if (poll.early.get(deployment.id)?.hash === d.hash) continue;
      if (d.refused) {
        const reason = `${d.refused.code}: ${d.refused.message}`;
        // Told once per reason: a run in flight no longer reports into the record (its `refuse`).
        if (this.#refuse(d, reason, runner)) this.#d.onRefused?.(d);
      } else if (hold?.due.has(deployment.id)) {
        this.#refuse(d, `MOORING_E_DELETE_CAP_EXCEEDED: ${hold.message}`, runner);
      } else {
        const record = this.#take(d);
        // AWAITING_DELETE goes through the runner too: its deletion is a reconcile like any other,
        // so it never races an apply of the same deployment.
        const quiet = resync && quietOnResync(d, status.get(deployment.id)?.state, this.#d.quiet);
        if (!record) runner.forget(deployment.id);
        else if ((resync && !quiet) || !record.reconciled(d)) {
          record.queue();
          runner.enqueue(deployment.id, d.hash);
        }
      }
    }
    this.#waiters.settleAll((id) => this.#book.desired(id));
    for (const id of this.#book.ids()) if (!seen.has(id)) this.#book.forget(id, runner);
    this.#d.onListed?.(seen);
    this.#d.memory?.parked?.(this.#book.parkedCount);
    if (!resync) return;
    this.#pacer.timeDrain(poll, runner, snapshot.deployments.length);
    await this.#orphans.run(snapshot, signal);
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
    return this.#book.convergedPasses();
  }

  /**
   * `id`'s desired state as taken, or (while a poll is resolving its deployments) a promise of it,
   * settled once the poll takes it or ends; undefined when there is none (a cold start's listing).
   */
  desiredOf(id: string): DesiredDeployment | Promise<DesiredDeployment | undefined> | undefined {
    return this.#book.desired(id) ?? (this.#poll ? this.#waiters.wait(id) : undefined);
  }

  /**
   * Records `d` as its deployment's desired state and shows it in the status; undefined when it
   * waits for memory instead, its record dropped (DeploymentBook.waitsForMemory), as one resolved
   * without its revision always does (`waitsFor`).
   */
  #take(d: DesiredDeployment): TrackedDeployment | undefined {
    const waits = d.waitsForMemory ?? this.#book.waitsForMemory(d, this.#d.memory, this.#d.restored);
    if (waits) return void this.#park(d, waits);
    const record = this.#observe(d);
    record.take(d);
    return record;
  }

  /** `d` waits for memory, shown Pending; only its id is kept, a later listing brings the rest. */
  #park(d: DesiredDeployment, reason: string): void {
    this.#show(d);
    this.#book.park(d.deployment.id);
    this.#d.redactor?.forget(d.deployment.id);
    this.#runs.setState(d.deployment.id, 'Pending', reason);
  }

  /** Why `deployment`, just listed, would wait for memory if taken now (PollerOptions.waits). */
  waitsFor(deployment: DesiredDeployment['deployment']): string | undefined {
    return this.#book.waitsForMemory({ deployment }, this.#d.memory, this.#d.restored);
  }

  /** Whether `id` waits for memory with its record dropped (the poller need not keep it). */
  parked(id: string): boolean {
    return this.#book.parked(id);
  }

  /** Refuses `d` with `reason` (no run of it goes on); whether the reason is new. */
  #refuse(d: DesiredDeployment, reason: string, runner: Runner): boolean {
    const fresh = this.#observe(d).refuse(d, reason);
    runner.forget(d.deployment.id);
    this.#runs.setState(d.deployment.id, 'Refused', reason);
    return fresh;
  }

  /** `d`'s record, its secret values known to the redactor, its waiters settled, its status shown. */
  #observe(d: DesiredDeployment): TrackedDeployment {
    const { deployment } = d;
    // Before anything of it runs or is logged: the redactor knows its values from here on.
    this.#d.redactor?.set(deployment.id, secretValuesOf(d));
    const record = this.#book.recordOf(d);
    this.#waiters.settle(deployment.id, d);
    this.#show(d);
    return record;
  }

  /** Shows `d` in the status. */
  #show(d: DesiredDeployment): void {
    this.#d.status.observe(statusEntryOf(d));
  }

  /** Whether anything of deployment `id` is held: its record, or a run whose report is due. */
  holds(id: string): boolean {
    return this.#book.holds(id);
  }

  /** The refusal of the latest orphan pass, or null when it was allowed to run. */
  get pruneRefusal(): PruneRefusal | null {
    return this.#orphans.refusal;
  }

  /** The runner's reconcile: one deployment, by id. */
  async reconcile(key: string, signal: AbortSignal): Promise<{ requeueAfterMs?: number }> {
    const record = this.#book.get(key);
    if (!record || record.refused) return {};
    const d = record.desired;
    const waits = this.#book.waitsForMemory(d, this.#d.memory, this.#d.restored);
    if (waits) {
      this.#park(d, waits);
      return {};
    }
    const { deployment, revision } = d;
    const run = record.start(revision?.id ?? d.pendingRevision ?? null);
    this.#book.running(key, record);
    const converged = record.takeConverged();
    const loadRevision = revisionLoader(d, this.#d.loadRevision, this.#d.redactor);
    const result = await this.#d.reconcile(
      { deployment, revision, loadRevision, changed: record.changed(d), hash: d.hash, converged },
      signal,
    );
    record.succeeded(run, result.converged);
    this.#d.onReconciled?.(key, result);
    run.changes = summarize(result.changeSet);
    // A refusal or a departure since the run began is newer than what the run found.
    if (!record.current(run)) return {};
    const state = result.health.state;
    const reason = state === 'Ready' ? null : result.health.reason;
    const before = this.#d.status.get(key);
    // Only a pass whose every object was found unchanged: a skipped or refused one stays at info.
    run.quiet = allUnchanged(result.changeSet) && before?.state === state && before.reason === reason;
    const changed = hasChanges(result.changeSet);
    const paused = pausedIds(result.changeSet);
    const atMs = this.#d.clock.now();
    this.#d.status.record(key, { state, reason, changed, changes: run.changes, atMs, paused });
    return result.requeueAfterMs === undefined ? {} : { requeueAfterMs: result.requeueAfterMs };
  }

  /** Metrics, status and the log line per reconcile (run-log.ts). */
  report(r: RunReport): void {
    // A deployment that left the listing while it ran: its line is the last use of its run, and
    // of its secret values (forgotten once the line is written).
    const { record, run, done } = this.#book.reported(r.key);
    try {
      this.#runs.report(r, run, record !== undefined && run !== undefined && record.current(run));
    } finally {
      done();
    }
  }
}
