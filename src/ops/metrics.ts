/**
 * The agent's Prometheus metrics, in a registry of its own (never prom-client's global default,
 * so two agents in one process, as in tests and the sandbox, do not collide). Label values come
 * from closed sets or ids the operator configured; never from secrets or free text.
 */
import {
  Counter,
  Gauge,
  Histogram,
  processMemoryMetrics,
  processStartTimeMetric,
  Registry,
} from '../lean/prom-client.ts';

export interface AgentMetrics {
  registry: Registry;
  /** Poll cycles by result: success, failure. */
  polls: Counter<'result'>;
  pollDuration: Histogram<'result'>;
  /** Reconciles by result: success, retry, terminal, cancelled. */
  reconciles: Counter<'result'>;
  reconcileDuration: Histogram<'result'>;
  /** From a full resync's start until the work queue has drained. */
  resyncDuration: Histogram;
  /** Control-plane requests by route template and result (HTTP status or "error"). */
  controlPlaneRequests: Counter<'route' | 'result'>;
  /** Kubernetes API requests by verb and result (HTTP status, "error" or "cancelled"). */
  kubeRequests: Counter<'verb' | 'result'>;
  /** Time Kubernetes requests waited before being sent, by reason: rate_limiter, retry_after. */
  kubeWaitSeconds: Counter<'reason'>;
  /** AWAITING_DELETE deletions held back by the per-cycle cap. */
  deleteCapRefusals: Counter;
  /** Deployments by state, filled at scrape time. */
  deployments: Gauge<'state'>;
  queueDepth: Gauge;
  reconcilesInFlight: Gauge;
  /** 1 while this replica holds the lease (or leader election is off). */
  leader: Gauge;
  /** The shards the listener is split into (`--shards`), how many this replica holds, and which. */
  shards: Gauge;
  shardsHeld: Gauge;
  shardHeld: Gauge<'shard'>;
  heartbeats: Counter<'result'>;
  /** Orphan passes that deleted nothing because the rules forbade it, by code. */
  pruneRefusals: Counter<'code'>;
  lastPollSuccess: Gauge;
  buildInfo: Gauge<'version' | 'node_version'>;
  pausedObjects: Gauge;
  /** The memory budget's figures, filled at scrape time (agent/memory-budget.ts). */
  heapLiveBytes: Gauge;
  heapLimitBytes: Gauge;
  memoryNeededBytes: Gauge;
  deploymentsWaitingForMemory: Gauge;
}

/** What the memory budget says at scrape time (see MemoryVerdict). */
export interface MemoryFigures {
  liveBytes: number;
  limitBytes: number;
  neededLimitBytes: number;
  deferred: number;
}

export interface MetricsSources {
  version: string;
  /** Deployment counts by state at scrape time. */
  deploymentStates?: () => Readonly<Record<string, number>>;
  queueDepth?: () => number;
  inFlight?: () => number;
  /** Objects left alone for a pause, at scrape time. */
  pausedObjects?: () => number;
  memory?: () => MemoryFigures | undefined;
}

/** The codes `mooring_prune_refusals_total` counts, each with a sample (0) from the start. */
const PRUNE_REFUSAL_CODES = ['MOORING_E_PRUNE_CAP_EXCEEDED', 'MOORING_E_PRUNE_LISTING_INCOMPLETE'] as const;

const DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const RESYNC_BUCKETS = [0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

export function createMetrics(sources: MetricsSources): AgentMetrics {
  const registry = new Registry();
  const registers = [registry];
  const deploymentStates: () => Readonly<Record<string, number>> = sources.deploymentStates ?? (() => ({}));
  function memoryGauge(name: string, help: string, pick: (m: MemoryFigures) => number): Gauge {
    return new Gauge({
      name,
      help,
      registers,
      collect() {
        const figures = sources.memory?.();
        this.set(figures ? pick(figures) : 0);
      },
    });
  }
  const metrics: AgentMetrics = {
    registry,
    polls: new Counter({
      name: 'mooring_polls_total',
      help: 'Poll cycles of the control plane, by result (success, failure).',
      labelNames: ['result'],
      registers,
    }),
    pollDuration: new Histogram({
      name: 'mooring_poll_duration_seconds',
      help: 'Duration of a poll cycle (all pages and new revisions), by result.',
      labelNames: ['result'],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    reconciles: new Counter({
      name: 'mooring_reconciles_total',
      help: 'Reconciles of one deployment, by result (success, retry, terminal, cancelled).',
      labelNames: ['result'],
      registers,
    }),
    reconcileDuration: new Histogram({
      name: 'mooring_reconcile_duration_seconds',
      help: 'Duration of one reconcile, by result.',
      labelNames: ['result'],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    resyncDuration: new Histogram({
      name: 'mooring_resync_duration_seconds',
      help: 'Time from the start of a full resync (every deployment queued, the cycle listing started) until the work queue drained.',
      buckets: RESYNC_BUCKETS,
      registers,
    }),
    controlPlaneRequests: new Counter({
      name: 'mooring_control_plane_requests_total',
      help: 'Requests to the control plane, by route template and result (HTTP status or "error").',
      labelNames: ['route', 'result'],
      registers,
    }),
    kubeRequests: new Counter({
      name: 'mooring_kube_requests_total',
      help: 'Requests to the Kubernetes API, by verb and result (HTTP status, "error" or "cancelled").',
      labelNames: ['verb', 'result'],
      registers,
    }),
    kubeWaitSeconds: new Counter({
      name: 'mooring_kube_wait_seconds_total',
      help: 'Seconds Kubernetes requests waited before being sent, by reason: rate_limiter (--kube-qps/--kube-burst) or retry_after (a 429 or 503 answer, sent again after its Retry-After).',
      labelNames: ['reason'],
      registers,
    }),
    deleteCapRefusals: new Counter({
      name: 'mooring_delete_cap_refusals_total',
      help: 'AWAITING_DELETE deployments whose deletion was held back to a later cycle by the per-cycle cap.',
      registers,
    }),
    deployments: new Gauge({
      name: 'mooring_deployments',
      help: 'Deployments owned by this listener, by state.',
      labelNames: ['state'],
      registers,
      collect() {
        this.reset();
        for (const [state, count] of Object.entries(deploymentStates())) this.set({ state }, count);
      },
    }),
    pausedObjects: new Gauge({
      name: 'mooring_paused_objects',
      help: 'Managed objects the agent leaves alone because an operator annotated them (or their deployment) mooring.dev/reconcile: disabled.',
      registers,
      collect() {
        this.set(sources.pausedObjects?.() ?? 0);
      },
    }),
    queueDepth: new Gauge({
      name: 'mooring_queue_depth',
      help: 'Deployments waiting for a reconcile slot.',
      registers,
      collect() {
        this.set(sources.queueDepth?.() ?? 0);
      },
    }),
    reconcilesInFlight: new Gauge({
      name: 'mooring_reconciles_in_flight',
      help: 'Reconciles running now.',
      registers,
      collect() {
        this.set(sources.inFlight?.() ?? 0);
      },
    }),
    leader: new Gauge({
      name: 'mooring_leader',
      help: '1 while this replica is the leader (always 1 without leader election).',
      registers,
    }),
    shards: new Gauge({
      name: 'mooring_shards',
      help: "The shards the listener's deployments are split into (--shards).",
      registers,
    }),
    shardsHeld: new Gauge({
      name: 'mooring_shards_held',
      help: 'The shards this replica holds (writes) now.',
      registers,
    }),
    shardHeld: new Gauge({
      name: 'mooring_shard_held',
      help: '1 for each shard this replica holds, 0 for one it held before.',
      labelNames: ['shard'],
      registers,
    }),
    heartbeats: new Counter({
      name: 'mooring_heartbeats_total',
      help: 'Listener heartbeats (PATCH), by result (success, failure).',
      labelNames: ['result'],
      registers,
    }),
    pruneRefusals: new Counter({
      name: 'mooring_prune_refusals_total',
      help: 'Orphan passes that deleted nothing because a rule forbade it, by code (MOORING_E_PRUNE_CAP_EXCEEDED, MOORING_E_PRUNE_LISTING_INCOMPLETE).',
      labelNames: ['code'],
      registers,
    }),
    lastPollSuccess: new Gauge({
      name: 'mooring_last_poll_success_timestamp_seconds',
      help: 'Unix time of the last complete poll.',
      registers,
    }),
    buildInfo: new Gauge({
      name: 'mooring_build_info',
      help: 'Always 1; labels carry the build.',
      labelNames: ['version', 'node_version'],
      registers,
    }),
    heapLiveBytes: memoryGauge(
      'mooring_heap_live_bytes',
      "Bytes of V8's old generation live after its latest full collection.",
      (m) => m.liveBytes,
    ),
    heapLimitBytes: memoryGauge(
      'mooring_heap_limit_bytes',
      "The ceiling of V8's old generation (the image gives it a share of the memory limit).",
      (m) => m.limitBytes,
    ),
    memoryNeededBytes: memoryGauge(
      'mooring_memory_needed_bytes',
      "The container memory limit the listener's deployments need (an estimate; 0 before the first poll).",
      (m) => m.neededLimitBytes,
    ),
    deploymentsWaitingForMemory: memoryGauge(
      'mooring_deployments_waiting_for_memory',
      'Deployments never reconciled that wait for memory (MOORING_E_MEMORY_SHORT): the heap is short, or they are still to be taken back.',
      (m) => m.deferred,
    ),
  };
  // The process's resident memory and start time, under prom-client's standard names: the chart's
  // dashboard shows the one, its restart alert counts changes of the other.
  processMemoryMetrics(registry);
  processStartTimeMetric(registry);
  metrics.buildInfo.set({ version: sources.version, node_version: process.versions.node }, 1);
  metrics.leader.set(0);
  metrics.shardsHeld.set(0);
  // A series without a sample before its first increment hides that increment from increase().
  for (const code of PRUNE_REFUSAL_CODES) metrics.pruneRefusals.inc({ code }, 0);
  // The same for the results the chart's alerts count: the first refusal or failure must show.
  for (const result of ['success', 'retry', 'terminal']) metrics.reconciles.inc({ result }, 0);
  for (const result of ['success', 'failure']) {
    metrics.polls.inc({ result }, 0);
    metrics.heartbeats.inc({ result }, 0);
  }
  return metrics;
}

/** Counts one control-plane request by route and result (its HTTP status, or `error` without one). */
export function countControlPlaneRequest(
  metrics: Pick<AgentMetrics, 'controlPlaneRequests'>,
  e: { method: string; route: string; status?: number },
): void {
  metrics.controlPlaneRequests.inc({
    route: `${e.method} ${e.route}`,
    result: e.status ? String(e.status) : 'error',
  });
}
