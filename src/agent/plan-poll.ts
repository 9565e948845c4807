/**
 * What one poll does, decided once, when its listing is complete and before anything of it is
 * queued: a full resync (every deployment queued, the cycle's inventory listing and the orphan
 * pass), or changes only (new and changed deployments queued, nothing listed, nothing pruned).
 * Pure: the caller gathers the inputs (the queue, the resync history, the clock) and acts on the
 * answer; `describePlan` says why in the debug line.
 *
 * A poll queues changes only, the first rule that holds giving the reason, when
 * - `queued`: the previous cycle's work is still queued (a cold start, or more deployments than
 *   one interval can get through): a resync is not stacked on one still in progress;
 * - `not-due`: the last resync began less than `resyncIntervalMs` ago (less the poll jitter:
 *   polls come up to that much sooner than their interval, and so may a resync);
 * - `resting`: the last resync (the cold start's excepted) outlasted the poll interval and
 *   drained less than its own duration ago (again less the jitter): resyncs then take at most
 *   about half the agent's time, so that a listener too large to resync within an interval polls
 *   on time between them (ADR 0006). A resync that fits in the interval never rests;
 * - `memory-short`: a resync's listing does not fit the heap (memory-budget.ts, `resyncFits`): a
 *   resync lists every object the agent owns and holds that listing while it runs, which is what
 *   ran an agent of 10,000 deployments under 256 MiB out of heap just after it converged. Changes
 *   still go.
 * Otherwise it is a resync; the first one ever is the cold start.
 */

/** How the last resyncs went, as the planner needs it. */
export interface ResyncHistory {
  /** When the latest resync began (clock ms); undefined before the first. */
  lastStartedAtMs: number | undefined;
  /** When the latest resync after the first drained, and how long it took; undefined before. */
  lastDrained: { atMs: number; tookMs: number } | undefined;
}

/** Everything a poll's plan depends on. */
export interface PollPlanInput extends ResyncHistory {
  /** Now (clock ms): when the poll's listing completed. */
  nowMs: number;
  /** Keys waiting in the work queue (in-flight reconciles aside). */
  queued: number;
  /** Time between full resyncs; 0 makes every poll one that no other rule stops. */
  resyncIntervalMs: number;
  /** The poll interval; undefined: resyncs never rest. */
  pollIntervalMs: number | undefined;
  /** Polls start up to this fraction of their interval sooner than it. */
  pollJitter: number;
  /** Whether a resync's listing does not fit the heap (no resync but the first); default false. */
  memoryShort?: boolean;
}

/** Why a poll queues changes only. */
export type ChangesOnlyReason = 'queued' | 'not-due' | 'resting' | 'memory-short';

/** What one poll does, and when it was decided. */
export type PollPlan =
  | { kind: 'resync'; atMs: number /** The cold start, which converges everything. */; first: boolean }
  | { kind: 'changes-only'; atMs: number; reason: ChangesOnlyReason };

/** The plan of a poll whose listing completed at `input.nowMs` (see the module comment). */
export function planPoll(input: PollPlanInput): PollPlan {
  const { nowMs: atMs, lastStartedAtMs, lastDrained } = input;
  const slack = 1 - input.pollJitter;
  const first = lastStartedAtMs === undefined;
  if (input.queued > 0) return { kind: 'changes-only', atMs, reason: 'queued' };
  if (!first && atMs - lastStartedAtMs < slack * input.resyncIntervalMs) {
    return { kind: 'changes-only', atMs, reason: 'not-due' };
  }
  const resting =
    lastDrained !== undefined &&
    lastDrained.tookMs > (input.pollIntervalMs ?? Number.POSITIVE_INFINITY) &&
    atMs - lastDrained.atMs < slack * lastDrained.tookMs;
  if (resting) return { kind: 'changes-only', atMs, reason: 'resting' };
  if (!first && input.memoryShort) return { kind: 'changes-only', atMs, reason: 'memory-short' };
  return { kind: 'resync', atMs, first };
}

/** The debug line saying why `plan` queues changes only; undefined for a resync. */
export function describePlan(
  plan: PollPlan,
  input: Pick<PollPlanInput, 'queued' | 'lastDrained'>,
): { fields?: Record<string, unknown>; message: string } | undefined {
  if (plan.kind === 'resync') return undefined;
  switch (plan.reason) {
    case 'queued':
      return {
        fields: { queued: input.queued },
        message: 'previous resync still queued: queueing changes only',
      };
    case 'not-due':
      return { message: 'resync not due yet: queueing changes only' };
    case 'resting':
      return {
        fields: { lastResyncTookMs: input.lastDrained?.tookMs },
        message:
          'the last resync outlasted the poll interval and drained less than its own duration ago: queueing changes only',
      };
    case 'memory-short':
      return { message: 'the heap is short: no resync (it lists every object); queueing changes only' };
  }
}
