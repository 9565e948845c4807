/**
 * Everything the agent holds of one deployment between polls, in one object: its desired state
 * (with the digest that names it), the digest its last successful reconcile applied, what that
 * reconcile verified (the resync's shortcut), its last run (for the run's log line), a refusal
 * told, and where it is in its lifecycle. Only `DeploymentBook` makes and forgets records, and only
 * `Deployments` calls their transitions (docs/state.md).
 */
import type { ConvergedPass } from '../reconcile/converged.ts';
import type { DesiredDeployment } from './poll-cycle.ts';

/**
 * Where a deployment is: `listed` (taken from a poll), `queued` (handed to the runner), `running`,
 * then `settled` (the run returned), `refused` (the poller or the delete cap refused it),
 * `deferred` (waits for memory), `deleting` (its deletion is queued or running), and `forgotten`
 * (it left the listing; the record is dropped and a run still in flight reports into nothing).
 */
export type Lifecycle =
  | 'listed'
  | 'queued'
  | 'running'
  | 'settled'
  | 'refused'
  | 'deferred'
  | 'deleting'
  | 'forgotten';

/** One run of a record's reconcile, from its start: what it worked on. */
export interface Run {
  /** The desired digest the run worked on. */
  readonly hash: string;
  readonly revisionId: string | null;
  /** The record's decision count when the run began: a newer decision makes the run stale. */
  readonly decision: number;
  /** Change-set summary once the run returned. */
  changes: string | null;
  /** Whether the run changed nothing and found the same health (its line is debug). */
  quiet: boolean;
}

/**
 * The agent's record of one deployment (named apart from the control plane's `DeploymentRecord`,
 * which it holds as `desired.deployment`).
 */
export class TrackedDeployment {
  #desired: DesiredDeployment;
  #lifecycle: Lifecycle = 'listed';
  /** Desired digest of the last successful reconcile. */
  #appliedHash: string | undefined;
  /** What the last reconcile returned as `converged`, handed to the next one once. */
  #converged: ConvergedPass | undefined;
  /** The run that started last, until its report. */
  #lastRun: Run | undefined;
  /** The refusal reason last told (its Event recorded), cleared when the deployment is taken again. */
  #refusal: string | undefined;
  /** Bumped by every decision a run in flight must not overwrite (a refusal, forgetting). */
  #decision = 0;

  constructor(d: DesiredDeployment) {
    this.#desired = d;
  }

  get desired(): DesiredDeployment {
    return this.#desired;
  }

  get lifecycle(): Lifecycle {
    return this.#lifecycle;
  }

  /** The run that started last, handed to its report once: nothing of a run is kept after it. */
  takeRun(): Run | undefined {
    const run = this.#lastRun;
    this.#lastRun = undefined;
    return run;
  }

  /** The refusal in force (`code: message`), if any. */
  get refusal(): string | undefined {
    return this.#refusal;
  }

  /** Whether the deployment is refused now, by the poller or the delete cap. */
  get refused(): boolean {
    return this.#lifecycle === 'refused';
  }

  /** A poll took `d` as the deployment's desired state (not refused). */
  take(d: DesiredDeployment): void {
    this.#desired = d;
    if (this.#lifecycle === 'refused' || this.#lifecycle === 'forgotten') this.#lifecycle = 'listed';
    this.#refusal = undefined;
  }

  /**
   * Refuses the deployment with `reason` (its desired state `d` is kept for the status): a run in
   * flight no longer reports into it. Returns whether the reason is new (worth an Event).
   */
  refuse(d: DesiredDeployment, reason: string): boolean {
    this.#desired = d;
    const fresh = this.#refusal !== reason;
    this.#refusal = reason;
    this.#lifecycle = 'refused';
    this.#decision += 1;
    return fresh;
  }

  /** Handed to the runner (a deletion: `deleting`). */
  queue(): void {
    this.#lifecycle = this.#desired.deployment.status === 'AWAITING_DELETE' ? 'deleting' : 'queued';
  }

  /** Waits for memory: it was never reconciled and the heap is short. */
  defer(): void {
    this.#lifecycle = 'deferred';
  }

  /** A run starts on the desired state held now. */
  start(revisionId: string | null): Run {
    if (this.#lifecycle !== 'deleting') this.#lifecycle = 'running';
    const run: Run = {
      hash: this.#desired.hash,
      revisionId,
      decision: this.#decision,
      changes: null,
      quiet: false,
    };
    this.#lastRun = run;
    return run;
  }

  /** What the previous reconcile verified, handed over once: a reconcile that throws passes nothing on. */
  takeConverged(): ConvergedPass | undefined {
    const converged = this.#converged;
    this.#converged = undefined;
    return converged;
  }

  /**
   * `run` succeeded: its digest is what the cluster holds. What it verified is kept only while the
   * desired state it worked on is still the one taken.
   */
  succeeded(run: Run, converged: ConvergedPass | undefined): void {
    if (this.#lifecycle === 'forgotten') return;
    this.#appliedHash = run.hash;
    if (converged && this.#desired.hash === run.hash) this.#converged = converged;
    if (this.#lifecycle === 'running' || this.#lifecycle === 'deleting') this.#lifecycle = 'settled';
  }

  /** Whether what `run` found may still be told (no refusal or forgetting since it began). */
  current(run: Run): boolean {
    return run.decision === this.#decision;
  }

  /** The deployment left the listing: nothing reports into this record any more. */
  forget(): void {
    this.#lifecycle = 'forgotten';
    this.#decision += 1;
    this.#converged = undefined;
  }

  /** The verified pass held now (the restart memo's content). */
  get converged(): ConvergedPass | undefined {
    return this.#converged;
  }

  /**
   * Whether the agent holds the deployment already, so that a short heap does not hold it back: a
   * reconcile of it succeeded since it was taken, or it is being deleted (which frees what it holds).
   */
  get holds(): boolean {
    return this.#appliedHash !== undefined || this.#desired.deployment.status === 'AWAITING_DELETE';
  }

  /** Whether `d`'s desired state is the one the last successful reconcile applied. */
  reconciled(d: DesiredDeployment): boolean {
    return this.#appliedHash === d.hash;
  }

  /** Whether `d`'s desired state differs from the one the last successful reconcile applied. */
  changed(d: DesiredDeployment): boolean {
    return this.#appliedHash !== undefined && this.#appliedHash !== d.hash;
  }
}
