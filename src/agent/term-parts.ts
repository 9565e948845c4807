/**
 * Parts of the agent (agent.ts) built from its dependencies: the deployments it keeps, and for
 * each term (a stretch of holding shards) the runner and the listener heartbeat that only shard
 * 0's holder sends.
 */
import type { MooringError } from '../errors.ts';
import type { AgentDeps } from './agent-deps.ts';
import { type Clock, sleep } from './clock.ts';
import { Deployments, type DeploymentsDeps } from './deployments.ts';
import { concurrencyAt } from './memory-levels.ts';
import type { StatusStore } from './status.ts';
import { runHeartbeat } from './registration.ts';
import type { Poller } from './poller.ts';
import { type RunReport, Runner } from './runner.ts';

type Deps = AgentDeps & { clock: Clock; random: () => number };

/** Work that runs only while holding a shard. */
export interface Term {
  abort: AbortController;
  runner: Runner;
  poller: Poller;
  loops: Promise<unknown>[];
}

/**
 * Ends a term's work within `graceMs`: most of it for its reconciles to finish, the rest to abort
 * them with `reason`; then its loops get what is left. `onSettled` gets the promise of the runner's
 * last reconciles (a next term waits for it). Resolves true when none was cut.
 */
export async function endTerm(
  d: Deps,
  term: Term,
  graceMs: number,
  reason: MooringError,
  onSettled: (settled: Promise<void>) => void,
): Promise<boolean> {
  term.abort.abort(reason);
  const abortWaitMs = Math.min(2000, Math.floor(graceMs / 10));
  const started = d.clock.now();
  const finished = await term.runner.stop(graceMs - abortWaitMs, abortWaitMs, reason);
  onSettled(term.runner.settled());
  // The poll and heartbeat loops stop at their next await; one stuck in a control-plane request
  // is left behind rather than holding the exit past the grace period (the term is over).
  const leftMs = Math.max(0, graceMs - (d.clock.now() - started));
  const bound = new AbortController();
  await Promise.race([Promise.all(term.loops), sleep(d.clock, leftMs, bound.signal).catch(() => undefined)]);
  bound.abort();
  d.logger.info({ why: reason.message, inFlightFinished: finished }, 'stopped reconciling');
  return finished;
}

/** The agent's deployments, their orphan passes through `collectOrphans` (scoped to held shards). */
export function termDeployments(
  d: Deps,
  status: StatusStore,
  collectOrphans: DeploymentsDeps['collectOrphans'],
): Deployments {
  return new Deployments({
    status,
    redactor: d.redactor,
    logger: d.logger,
    metrics: d.metrics,
    clock: d.clock,
    resyncIntervalMs: d.config.resyncIntervalMs,
    pollIntervalMs: d.config.pollIntervalMs,
    reconcile: (input, signal) => d.reconcile(input, signal),
    loadRevision: d.loadRevision,
    collectOrphans,
    beginCycle: d.beginCycle,
    onReconciled: d.onReconciled,
    onRefused: d.onRefused,
    ownsObjects: d.ownsObjects,
    quiet: d.quiet,
    memory: d.memory,
    restored: d.restored,
    onListed: d.onListed,
  });
}

/** The term's runner over `reconcile`, sized by the memory budget when there is one. */
export function termRunner(
  d: Deps,
  reconcile: (key: string, signal: AbortSignal) => Promise<{ requeueAfterMs?: number }>,
  onReport: (r: RunReport) => void,
): Runner {
  const { config, clock, random, logger, memory } = d;
  return new Runner({
    reconcile,
    concurrency: config.concurrency,
    timeoutMs: config.reconcileTimeoutMs,
    clock,
    random,
    logger,
    onReport,
    ...(memory ? { limit: (n: number) => concurrencyAt(memory.level ?? 'ok', n) } : {}),
  });
}

/** The listener heartbeat and namespace patch until `signal` aborts (the term ends or shard 0 goes). */
export function heartbeat(d: Deps, signal: AbortSignal): Promise<void> {
  const { config, logger, metrics, clock } = d;
  return runHeartbeat(
    {
      client: d.controlPlane,
      listenerId: config.listenerId,
      namespaces: config.namespaces,
      version: d.version,
      intervalMs: config.heartbeatIntervalMs,
      clock,
      logger,
      onBeat: (result) => metrics.heartbeats.inc({ result }),
    },
    signal,
  );
}

/** Settles once `signal` aborts. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
