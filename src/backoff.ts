/**
 * The one backoff policy of every retry loop: after failure number `attempt` (1-based) wait
 * `baseMs * 2^(attempt-1)`, capped at `maxMs`, spread by a uniform jitter of `jitter` (a
 * fraction, plus or minus). Each loop names its policy here, so that a reader finds every base,
 * cap and jitter in one place; where p-retry runs the loop, `pRetryBackoff` gives it the same
 * policy. A leaf module: it imports nothing of the agent.
 */

/** How a retry loop spaces its attempts. */
export interface BackoffPolicy {
  /** The delay after the first failure. */
  baseMs: number;
  /** No delay grows past this (before jitter, unless `capJittered`). */
  maxMs: number;
  /** Jitter as a fraction of the delay, plus or minus; 0 for none. */
  jitter: number;
  /**
   * Whether the jittered delay is held to `maxMs` too. Unset, a capped delay may come out up to
   * `jitter` longer, so that loops which all hit the cap still spread out.
   */
  capJittered?: boolean;
}

/** Each delay doubles the one before it. */
export const BACKOFF_FACTOR = 2;

/** Past this many doublings the delay is at its cap anyway; the bound keeps the power finite. */
const MAX_DOUBLINGS = 30;

/** `baseMs` scaled by a uniform factor in [1 - fraction, 1 + fraction], rounded to the millisecond. */
export function jitter(baseMs: number, fraction: number, random: () => number = Math.random): number {
  return Math.round(baseMs * (1 + fraction * (2 * random() - 1)));
}

/** The delay before retry number `attempt` (1-based) under `policy`. Never negative. */
export function backoffDelay(
  policy: BackoffPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const raw = Math.min(policy.maxMs, policy.baseMs * BACKOFF_FACTOR ** Math.min(attempt - 1, MAX_DOUBLINGS));
  const spread = policy.jitter > 0 ? jitter(raw, policy.jitter, random) : raw;
  return Math.max(0, policy.capJittered ? Math.min(policy.maxMs, spread) : spread);
}

/** A deployment's reconcile after a retryable error: 1 s, doubling, at most 5 min, +-20%. */
export const RECONCILE_BACKOFF: BackoffPolicy = {
  baseMs: 1000,
  maxMs: 300_000,
  jitter: 0.2,
  capJittered: true,
};

/** A watch of owned objects that broke or expired, before its relist: 1 s, doubling, at most 30 s, +-20%. */
export const WATCH_BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 30_000, jitter: 0.2 };

/** Start-up checks and registration: 1 s, doubling, at most 30 s. */
export const START_UP_BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 30_000, jitter: 0 };

/**
 * A failed poll: an eighth of the interval (at least 250 ms), doubling, at most the interval (so
 * the agent recovers within one interval of the control plane's return), +-10%.
 */
export function pollBackoff(intervalMs: number, baseMs?: number): BackoffPolicy {
  return { baseMs: baseMs ?? Math.max(250, Math.floor(intervalMs / 8)), maxMs: intervalMs, jitter: 0.1 };
}

/** A failed heartbeat: 5 s, doubling, never later than the heartbeat interval. */
export function heartbeatBackoff(intervalMs: number): BackoffPolicy {
  return { baseMs: 5000, maxMs: intervalMs, jitter: 0 };
}

/** One control-plane request: 250 ms, doubling, at most 5 s, randomized (p-retry's way). */
export const CONTROL_PLANE_REQUEST_BACKOFF: BackoffPolicy = { baseMs: 250, maxMs: 5000, jitter: 1 };

/** No wait of its own: the server's Retry-After is the whole wait (Kubernetes requests turned away). */
export const NO_BACKOFF: BackoffPolicy = { baseMs: 0, maxMs: 0, jitter: 0 };

/** p-retry's timing options. */
export interface PRetryTiming {
  minTimeout: number;
  maxTimeout: number;
  factor: number;
  randomize: boolean;
}

/**
 * p-retry's options for `policy`: the same base, cap and doubling. p-retry has a jitter of its
 * own (each delay times a random 1 to 2), used whenever the policy asks for any.
 */
export function pRetryBackoff(policy: BackoffPolicy): PRetryTiming {
  return {
    minTimeout: policy.baseMs,
    maxTimeout: policy.maxMs,
    factor: BACKOFF_FACTOR,
    randomize: policy.jitter > 0,
  };
}
