/**
 * Parts of the agent (agent.ts) built from its dependencies: the deployments it keeps, and for
 * each term (a stretch of holding shards) the runner and the listener heartbeat that only shard
 * 0's holder sends.
 */
import type { AgentDeps } from './agent-deps.ts';
import type { Clock } from './clock.ts';
import { Deployments, type DeploymentsDeps } from './deployments.ts';
import { concurrencyAt } from './memory-budget.ts';
import type { StatusStore } from './status.ts';
import { runHeartbeat } from './registration.ts';
import { type RunReport, Runner } from './runner.ts';

type Deps = AgentDeps & { clock: Clock; random: () => number };

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
