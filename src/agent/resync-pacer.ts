/**
 * When resyncs happen and how long they take: plans each poll from the queue, the clock and the
 * resync history (plan-poll.ts), begins a planned resync once, and times it until the queue
 * drains. The history is written in two places only: `begin` (when a resync began) and the drain
 * handler (when one after the cold start drained, as the runner's `whenIdle` tells; the handler
 * runs whole, so a plan sees a drain entirely or not at all, and its failure is logged).
 */
import type { Logger } from '../log.ts';
import type { AgentMetrics } from '../ops/metrics.ts';
import type { Clock } from './clock.ts';
import { describePlan, type PollPlan, planPoll, type ResyncHistory } from './plan-poll.ts';
import { POLL_JITTER } from './poller.ts';
import type { Runner } from './runner.ts';
import { safeErr } from './safe-error.ts';

export interface ResyncPacerDeps {
  logger: Logger;
  metrics: AgentMetrics;
  clock: Clock;
  /** Time between full resyncs (default 0). */
  resyncIntervalMs?: number | undefined;
  /** The poll interval (the rest rule); unset, resyncs never rest. */
  pollIntervalMs?: number | undefined;
  /** Called when a resync begins, before its deployments are queued. */
  beginCycle?: (() => void) | undefined;
  /** The memory budget: while a resync's listing does not fit, polls make no resync. */
  memory?: { readonly resyncFits?: boolean } | undefined;
}

/** A poll's plan, and whether the resync it plans has begun. */
export interface PlannedPoll {
  readonly plan: PollPlan;
  begun: boolean;
}

export class ResyncPacer {
  readonly #d: ResyncPacerDeps;
  readonly #history: ResyncHistory = { lastStartedAtMs: undefined, lastDrained: undefined };

  constructor(deps: ResyncPacerDeps) {
    this.#d = deps;
  }

  /** This poll's plan, now; why it is no resync goes to the debug log. */
  plan(runner: Pick<Runner, 'depth'>): PlannedPoll {
    const input = {
      ...this.#history,
      nowMs: this.#d.clock.now(),
      queued: runner.depth,
      resyncIntervalMs: this.#d.resyncIntervalMs ?? 0,
      pollIntervalMs: this.#d.pollIntervalMs,
      pollJitter: POLL_JITTER,
      memoryShort: this.#d.memory?.resyncFits === false,
    };
    const plan = planPoll(input);
    const why = describePlan(plan, input);
    if (why) this.#d.logger.debug(why.fields ?? {}, why.message);
    return { plan, begun: false };
  }

  /**
   * Begins the resync `poll` planned, once: its time counts from the plan, deployments parked until
   * a resync (an object of theirs belongs to someone else) are let go, and its listing starts.
   */
  begin(poll: PlannedPoll, runner: Pick<Runner, 'resync'>): void {
    if (poll.plan.kind !== 'resync' || poll.begun) return;
    poll.begun = true;
    this.#history.lastStartedAtMs = poll.plan.atMs;
    runner.resync();
    this.#d.beginCycle?.();
  }

  /**
   * Times the resync `poll` began until the queue drains (`mooring_resync_duration_seconds`: what
   * `--resync-interval` is chosen by; the first is the cold start).
   */
  timeDrain(poll: PlannedPoll, runner: Pick<Runner, 'whenIdle'>, deployments: number): void {
    const { plan } = poll;
    if (plan.kind !== 'resync') return;
    const { clock, logger, metrics } = this.#d;
    runner
      .whenIdle()
      .then(() => {
        const ms = clock.now() - plan.atMs;
        if (!plan.first) this.#history.lastDrained = { atMs: clock.now(), tookMs: ms };
        metrics.resyncDuration.observe(ms / 1000);
        logger.debug({ durationMs: ms, deployments }, 'resync drained');
      })
      .catch((err: unknown) => logger.warn({ err: safeErr(err) }, 'resync drain not observed'));
  }
}
