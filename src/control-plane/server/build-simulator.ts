import type { Revision, RevisionStatus } from '../../contract/index.ts';
import type { ControlStore } from './control-store.ts';

/** The statuses a simulated build passes through, in order, before `DEPLOYED`. */
export const SIMULATED_STAGES: readonly RevisionStatus[] = [
  'QUEUED',
  'AWAITING_BUILD',
  'BUILDING',
  'AWAITING_DEPLOY',
  'DEPLOYING',
];
const BUILDING = SIMULATED_STAGES.indexOf('BUILDING');

export interface BuildSimulatorOptions {
  /** Time from a revision's creation to `DEPLOYED` (or its failure), in milliseconds. */
  durationMs: number;
  /** Share of revisions whose build fails (`BUILD_FAILED`), 0 to 1; default 0. */
  failureRate?: number;
  /** Random source in [0, 1) deciding failures; injected so tests choose. */
  random?: () => number;
  /** The store's clock. */
  now: () => Date;
}

/**
 * A stand-in for the build service the reference does not have (`--simulate-builds`): a revision
 * of a source that the service builds or deploys (every source but `external_docker`, whose
 * revisions start `DEPLOYED`) moves through `QUEUED`, `AWAITING_BUILD`, `BUILDING`,
 * `AWAITING_DEPLOY`, `DEPLOYING` in equal steps and is `DEPLOYED` once `durationMs` have passed
 * since it was made; a failing one stops at `BUILD_FAILED` when it would leave `BUILDING`. The
 * status follows from the revision's age, so it is computed when asked (before each request)
 * rather than by timers: under an injected clock the outcome is exact.
 */
export class BuildSimulator {
  readonly #store: ControlStore;
  readonly #options: BuildSimulatorOptions;
  /** Whether each in-flight revision fails, decided once when it is first seen. */
  readonly #fails = new Map<string, boolean>();

  constructor(store: ControlStore, options: BuildSimulatorOptions) {
    if (!(options.durationMs > 0)) throw new Error('simulated build duration must be positive');
    const rate = options.failureRate ?? 0;
    if (!(rate >= 0 && rate <= 1)) throw new Error('simulated build failure rate must be between 0 and 1');
    this.#store = store;
    this.#options = options;
  }

  /** Moves every in-flight revision to the status its age gives; returns how many moved. */
  advance(): number {
    const now = this.#options.now().getTime();
    let moved = 0;
    for (const { deploymentId, revision } of this.#store.lifecycle.revisionsInStatus(SIMULATED_STAGES)) {
      const target = this.#target(revision, now);
      if (target === revision.status) continue;
      this.#store.setRevisionStatus(deploymentId, revision.id, target);
      if (!SIMULATED_STAGES.includes(target)) this.#fails.delete(revision.id);
      moved += 1;
    }
    return moved;
  }

  #target(revision: Revision, now: number): RevisionStatus {
    const step = this.#options.durationMs / SIMULATED_STAGES.length;
    const reached = Math.floor((now - Date.parse(revision.created_at)) / step);
    const current = SIMULATED_STAGES.indexOf(revision.status as RevisionStatus);
    if (this.#failing(revision.id) && reached > BUILDING) return 'BUILD_FAILED';
    if (reached >= SIMULATED_STAGES.length) return 'DEPLOYED';
    // Statuses only move forward (an operator may have moved one on by hand).
    return SIMULATED_STAGES[Math.max(current, reached)]!;
  }

  #failing(revisionId: string): boolean {
    let fails = this.#fails.get(revisionId);
    if (fails === undefined) {
      const rate = this.#options.failureRate ?? 0;
      fails = rate > 0 && (this.#options.random ?? Math.random)() < rate;
      this.#fails.set(revisionId, fails);
    }
    return fails;
  }
}
