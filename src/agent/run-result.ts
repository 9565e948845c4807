/** What the runner runs and what it makes of each run: the vocabulary its reports speak. */
import type { MooringError } from '../errors.ts';

/** What a successful reconcile asks for: nothing, or to be looked at again after a while. */
export interface ReconcileOutcome {
  requeueAfterMs?: number;
}

/** Reconciles one key. Must honour `signal` (timeout or shutdown) promptly. */
export type ReconcileFn = (key: string, signal: AbortSignal) => Promise<ReconcileOutcome | undefined>;

/** How one run ended, as interpreted. */
export type RunResult =
  | { kind: 'success'; requeueAfterMs: number | undefined }
  | { kind: 'retry'; error: unknown; attempt: number; delayMs: number }
  /** Parked until the desired state changes (`change`) or until the next resync (`resync`). */
  | { kind: 'terminal'; error: unknown; until: 'change' | 'resync' }
  /** Cut by `stop` (shutdown, leadership lost; `reason`): no failure, no backoff, no status change. */
  | { kind: 'cancelled'; reason: MooringError };

export interface RunReport {
  key: string;
  /** The desired-state hash the run worked on. */
  desiredHash: string;
  result: RunResult;
  durationMs: number;
}
