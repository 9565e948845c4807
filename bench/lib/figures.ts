/**
 * The benchmark's figures: the result record (its JSON keys are the issue's), the targets each
 * figure is judged against, percentiles, and the table printed on stdout. Pure: no I/O.
 */
import os from 'node:os';
import type { AgentMemory, KubeManners } from './agent-metrics.ts';

/** The machine the figures were measured on. */
export interface Machine {
  cpu_model: string;
  cores: number;
  memory_gib: number;
  node: string;
  os: string;
}

/** Everything one run measured. `null` means the phase was skipped or did not finish. */
/** One replica's figures in a run with `--replicas` above 1 (bench/lib/replica-phases.ts). */
export interface ReplicaFigures {
  name: string;
  peak_rss_mib: number | null;
  /** CPU seconds over the whole run (user + system). */
  cpu_s: number | null;
  /** `mooring_shards_held` at the end. */
  shards_held: number | null;
  /** Deployments it knew (`mooring_deployments`): those of its shards. */
  deployments: number | null;
  /** Reconciles it ran (`mooring_reconciles_total`). */
  reconciles: number | null;
  /**
   * Kubernetes writes it sent over the run (`mooring_kube_requests_total`, verbs create, update,
   * patch, apply, delete; its Lease renewals included), and its reads (get, list).
   */
  kube_writes?: number | null;
  kube_reads?: number | null;
  /** Mean full-resync time up to the idle phase (its cold start's cycle over its shards), s. */
  cold_resync_s: number | null;
  /** Mean full-resync time in the idle cycles, s. */
  idle_resync_s: number | null;
  /** Mean poll time in the idle cycles, s. */
  idle_poll_s: number | null;
  idle_cpu_s_per_cycle: number | null;
}

/** Idle cycles of the restarted agent (`--restart-idle-cycles`). */
export interface RestartIdle {
  cycles: number;
  kube_writes: number;
  kube_reads_per_cycle: number;
  kube_reads_by_verb_per_cycle: Record<string, number>;
  agent_cpu_s_per_cycle: number;
}

export interface BenchResult {
  started_at: string;
  /** What was measured, as given by `--label` (e.g. a commit); null without one. */
  label: string | null;
  /** The commit measured (`git rev-parse --short HEAD`, `+dirty` with uncommitted changes); absent in older results. */
  commit?: string | null;
  deployments: number;
  namespaces: number;
  /** Objects the renderer makes for the N deployments (what convergence waits for). */
  objects: number;
  poll_interval_s: number;
  convergence_s: number | null;
  /** From spawning the agent to its first apply reaching the sandbox: start-up (Node, listings, revisions). */
  convergence_first_apply_s: number | null;
  convergence_kube_reads: number | null;
  convergence_kube_writes: number | null;
  /**
   * The writes of managed objects alone (`convergence_kube_writes` less Events, the leader Lease
   * and the restart memo's ConfigMap, reported apart): one per object is the target.
   */
  convergence_object_writes?: number | null;
  /** The cold convergence's writes per `verb resource` (e.g. `create deployments`, `create events`). */
  convergence_kube_writes_by_target?: Record<string, number> | null;
  /** The cold convergence's reads per `verb resource` (`list` pages, `get`s of single objects). */
  convergence_kube_reads_by_target?: Record<string, number> | null;
  convergence_controlplane_requests: number | null;
  /** CPU seconds of the agent process from start to convergence. */
  convergence_agent_cpu_s: number | null;
  /** CPU seconds of the harness process (sandbox API + control plane + polling) over the same time. */
  convergence_harness_cpu_s: number | null;
  /** The sandbox's event loop utilization (0-1) from the first object stored to convergence. */
  convergence_sandbox_busy: number | null;
  /**
   * Seconds the sandbox's event loop (the harness's main thread) was ready to run but waited for
   * a core, from spawning the agent to convergence (Linux's schedstat; null elsewhere).
   */
  convergence_sandbox_wait_s: number | null;
  /** The same for the agent's threads together (main thread and V8's helpers). */
  convergence_agent_wait_s: number | null;
  kubectl_convergence_s: number | null;
  kubectl_kube_reads: number | null;
  kubectl_kube_writes: number | null;
  kubectl_harness_cpu_s: number | null;
  /** Seconds the sandbox waited for a core while kubectl ran (compare `convergence_sandbox_wait_s`). */
  kubectl_sandbox_wait_s: number | null;
  /** agent / kubectl, for convergence time; with several rounds, the median of the rounds' ratios. */
  convergence_ratio: number | null;
  /**
   * Each round's cold convergence, agent and kubectl (`--rounds`). With more than one,
   * `convergence_s`, `kubectl_convergence_s` and `convergence_ratio` are their medians; the other
   * convergence figures are the first round's.
   */
  convergence_rounds: ConvergenceRound[];
  idle_cycles: number | null;
  /**
   * Full resyncs that drained in the idle window: as many as the cycles when every poll resyncs;
   * fewer with `--resync-interval`, or where a resync outlasts the poll interval (it then rests).
   */
  idle_resyncs: number | null;
  idle_kube_writes: number | null;
  /** Idle writes of managed objects (Events, Leases and the restart memo apart: `REPORTED_APART`). */
  idle_object_writes?: number | null;
  idle_kube_reads_per_cycle: number | null;
  /** The idle reads per cycle by verb: `list` pages, and `get`s of single objects. */
  idle_kube_reads_by_verb_per_cycle: Record<string, number> | null;
  /** The same by `verb resource` (which kinds an idle cycle still lists). */
  idle_kube_reads_by_target_per_cycle: Record<string, number> | null;
  idle_controlplane_requests_per_cycle: number | null;
  /** The agent's CPU seconds per idle cycle (all its threads, from /proc). */
  idle_agent_cpu_s_per_cycle: number | null;
  /** `GET /v2/deployments` per cycle: ceil(N/100) pages is the target. */
  idle_controlplane_list_requests_per_cycle: number | null;
  idle_controlplane_by_route_per_cycle: Record<string, number> | null;
  propagation_changes: number | null;
  propagation_p50_ms: number | null;
  propagation_p99_ms: number | null;
  propagation_max_ms: number | null;
  peak_rss_mib: number | null;
  /** The memory limit the agent ran under (its own memory cgroup), MiB; null when none was applied. */
  memory_limit_mib: number | null;
  /** The agent's cgroup's peak charged memory, MiB (pages the agent shares with others may be charged to them). */
  cgroup_peak_mib: number | null;
  /** Times the kernel killed an agent process for exceeding the limit (first and restarted agent). */
  agent_oom_kills: number | null;
  /** Times V8 stopped an agent process for want of heap ("JavaScript heap out of memory"; first and restarted agent). */
  agent_heap_exhaustions: number | null;
  /** CPU seconds of the first agent process over its whole life (convergence, idle, propagation). */
  agent_cpu_s: number | null;
  /** How the first agent (convergence, idle, propagation) paced its Kubernetes requests. */
  kube_manners: KubeManners | null;
  /**
   * The first agent's memory budget when it stopped: its old generation's live bytes and ceiling,
   * the memory limit it says the listener needs, and how many deployments waited for memory.
   */
  agent_memory: AgentMemory | null;
  /**
   * Under a memory limit the agent did not converge within: the objects there when the first
   * agent was stopped, and after a restarted one ran as long again under the same limit, or until
   * it exited (nothing lost, progress kept: degrading, not crash-looping). Null when it converged
   * or had no limit.
   */
  degraded_objects: number | null;
  degraded_restart_objects: number | null;
  restart_kube_writes: number | null;
  restart_kube_reads: number | null;
  /** The restart's Kubernetes reads by verb (get, list): a restart should read by listing. */
  restart_kube_reads_by_verb: Record<string, number> | null;
  /** The same by verb and resource (`list secrets`; `list secrets by name` for a lookup of one). */
  restart_kube_reads_by_target: Record<string, number> | null;
  /** How the restarted agent paced its Kubernetes requests until it settled. */
  restart_kube_manners: KubeManners | null;
  restart_controlplane_requests: number | null;
  /** Seconds from the restarted agent's start until it had checked every deployment. */
  restart_settled_s: number | null;
  /** With `--restarts N` above 1: each restart's settled time, of which restart_settled_s is the median. */
  restart_settled_rounds_s: number[] | null;
  restart_peak_rss_mib: number | null;
  /** With `--restart-idle-cycles N`: the restarted agent's idle cycles, once its watches can have started. */
  restart_idle: RestartIdle | null;
  machine: Machine;
  /** 1-minute load average at the start and at the end of the run: other work on the machine skews every figure. */
  load_average: [number, number] | null;
  /** Problems met during the run (a phase that timed out, a process that failed). */
  notes: string[];
  /** Agents run at once (`--replicas`); absent: one. */
  replicas?: number;
  /** Per replica, with `--replicas` above 1. */
  replica_figures?: ReplicaFigures[];
}

/** The machine description: CPU model, cores, memory, Node version, OS. */
export function describeMachine(): Machine {
  const cpus = os.cpus();
  return {
    cpu_model: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memory_gib: round(os.totalmem() / 1024 ** 3, 1),
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

/** The nearest-rank percentile (`p` in 0..100) of `values`; null when there are none. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
}

/** The middle value (the mean of the middle two for an even count); null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** One round of cold convergence: the agent's and kubectl's time, seconds (null: not measured). */
export interface ConvergenceRound {
  agent_s: number | null;
  kubectl_s: number | null;
  /** agent_s / kubectl_s, when both were measured. */
  ratio: number | null;
}

export function convergenceRound(agentS: number | null, kubectlS: number | null): ConvergenceRound {
  return {
    agent_s: agentS,
    kubectl_s: kubectlS,
    ratio: agentS === null || kubectlS === null ? null : round(agentS / kubectlS, 3),
  };
}

/**
 * The headline convergence figures from the rounds: the median agent time, the median kubectl
 * time, and the median of the rounds' own ratios. Each round pairs an agent and a kubectl run
 * made minutes apart, so a change in the machine's speed over the run moves both sides of a ratio.
 */
export function summarizeRounds(
  rounds: readonly ConvergenceRound[],
): Pick<BenchResult, 'convergence_s' | 'kubectl_convergence_s' | 'convergence_ratio'> {
  const of = (pick: (r: ConvergenceRound) => number | null) => {
    const m = median(rounds.map(pick).filter((v): v is number => v !== null));
    return m === null ? null : round(m, 3);
  };
  return {
    convergence_s: of((r) => r.agent_s),
    kubectl_convergence_s: of((r) => r.kubectl_s),
    convergence_ratio: of((r) => r.ratio),
  };
}

/** One line per round for the notes, when there is more than one. */
export function roundsNote(rounds: readonly ConvergenceRound[]): string | undefined {
  if (rounds.length < 2) return undefined;
  const list = (pick: (r: ConvergenceRound) => number | null) => rounds.map((r) => show(pick(r))).join(', ');
  return (
    `${rounds.length} rounds of cold convergence (medians in the table): agent ${list((r) => r.agent_s)} s; ` +
    `kubectl ${list((r) => r.kubectl_s)} s; ratios ${list((r) => r.ratio)}`
  );
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** `round`, keeping null (not measured) as it is. */
export function roundOrNull(value: number | null, digits = 2): number | null {
  return value === null ? null : round(value, digits);
}

/** One acceptance target of the issue and whether the run met it (null: not measured). */
export interface Verdict {
  figure: string;
  target: string;
  met: boolean | null;
}

/** Control-plane list requests one poll makes for N deployments (pages of 100). */
export function expectedListRequests(deployments: number): number {
  return Math.ceil(deployments / 100);
}

/**
 * The peak-RSS budget for N deployments under the chart's default limit, in MiB: 160 up to 1,000
 * deployments and 300 beyond (the targets set for 1,000 and 10,000; bench/README.md).
 */
export function rssBudgetMib(deployments: number): number {
  return deployments <= 1_000 ? 160 : 300;
}

/** Judges a result against the acceptance targets. */
export function verdicts(r: BenchResult): Verdict[] {
  const when = <T>(v: T | null, test: (v: T) => boolean) => (v === null ? null : test(v));
  return [
    {
      figure: 'convergence_ratio',
      target: '<= 0.33 (a third of kubectl)',
      met: when(r.convergence_ratio, (v) => v <= 1 / 3),
    },
    {
      figure: 'idle_object_writes',
      target: '0 (Events, Leases and the restart memo reported apart)',
      met: when(r.idle_object_writes ?? null, (v) => v === 0),
    },
    {
      figure: 'idle_controlplane_list_requests_per_cycle',
      target: `${expectedListRequests(r.deployments)} (ceil(N/100))`,
      met: when(r.idle_controlplane_list_requests_per_cycle, (v) => v <= expectedListRequests(r.deployments)),
    },
    {
      figure: 'propagation_p99_ms',
      target: `<= ${(r.poll_interval_s + 1) * 1000} (poll interval + 1 s)`,
      met: when(r.propagation_p99_ms, (v) => v <= (r.poll_interval_s + 1) * 1000),
    },
    {
      figure: 'peak_rss_mib',
      target: `<= ${rssBudgetMib(r.deployments)}`,
      met: when(r.peak_rss_mib, (v) => v <= rssBudgetMib(r.deployments)),
    },
    { figure: 'restart_kube_writes', target: '0', met: when(r.restart_kube_writes, (v) => v === 0) },
    {
      figure: 'convergence_object_writes',
      target: `<= ${Math.floor(r.objects * 1.01)} (objects x 1.01)`,
      met: when(r.convergence_object_writes ?? null, (v) => v <= r.objects * 1.01),
    },
  ];
}

function show(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(2);
  return String(value);
}

/** The rows of the stdout table: figure, value, target and verdict where the issue sets one. */
export function tableRows(r: BenchResult): string[][] {
  const judged = new Map(verdicts(r).map((v) => [v.figure, v]));
  const row = (label: string, key: keyof BenchResult): string[] => {
    const v = judged.get(key);
    const verdict = v ? (v.met === null ? 'not measured' : v.met ? 'met' : 'MISSED') : '';
    return [label, show(r[key]), v?.target ?? '', verdict];
  };
  return [
    row('deployments', 'deployments'),
    row('objects (rendered)', 'objects'),
    row('poll interval (s)', 'poll_interval_s'),
    row('cold convergence (s)', 'convergence_s'),
    row('  first apply after (s)', 'convergence_first_apply_s'),
    row('  kube reads', 'convergence_kube_reads'),
    row('  kube writes', 'convergence_kube_writes'),
    row('    of objects (Events, Lease, memo apart)', 'convergence_object_writes'),
    row('  control-plane requests', 'convergence_controlplane_requests'),
    row('  agent CPU (s)', 'convergence_agent_cpu_s'),
    row('  sandbox+control plane CPU (s)', 'convergence_harness_cpu_s'),
    row('  sandbox busy after first apply', 'convergence_sandbox_busy'),
    row('  sandbox waiting for a core (s)', 'convergence_sandbox_wait_s'),
    row('  agent threads waiting for a core (s)', 'convergence_agent_wait_s'),
    row('kubectl apply (s)', 'kubectl_convergence_s'),
    row('  kubectl kube reads', 'kubectl_kube_reads'),
    row('  kubectl kube writes', 'kubectl_kube_writes'),
    row('  sandbox CPU during kubectl (s)', 'kubectl_harness_cpu_s'),
    row('  sandbox waiting for a core (s)', 'kubectl_sandbox_wait_s'),
    row('convergence ratio agent/kubectl', 'convergence_ratio'),
    row('idle cycles measured', 'idle_cycles'),
    row('  of which full resyncs', 'idle_resyncs'),
    row('idle kube writes (total)', 'idle_kube_writes'),
    row('    of objects (Events, Lease, memo apart)', 'idle_object_writes'),
    row('idle kube reads / cycle', 'idle_kube_reads_per_cycle'),
    row('idle control-plane requests / cycle', 'idle_controlplane_requests_per_cycle'),
    row('  of which deployment list pages', 'idle_controlplane_list_requests_per_cycle'),
    row('idle agent CPU / cycle (s)', 'idle_agent_cpu_s_per_cycle'),
    row('propagation changes', 'propagation_changes'),
    row('propagation p50 (ms)', 'propagation_p50_ms'),
    row('propagation p99 (ms)', 'propagation_p99_ms'),
    row('propagation max (ms)', 'propagation_max_ms'),
    row('agent peak RSS (MiB)', 'peak_rss_mib'),
    row('  memory limit (MiB)', 'memory_limit_mib'),
    row('  cgroup peak (MiB)', 'cgroup_peak_mib'),
    row('  OOM kills', 'agent_oom_kills'),
    row('  V8 heap exhaustions', 'agent_heap_exhaustions'),
    ['agent heap live / old-space ceiling (MiB)', memoryText(r.agent_memory), '', ''],
    [
      "  memory limit needed (agent's estimate, MiB), deployments waiting for memory",
      r.agent_memory === null
        ? '-'
        : `${r.agent_memory.needed_limit_mib ?? '-'}, ${r.agent_memory.waiting_for_memory ?? '-'}`,
      '',
      '',
    ],
    row('agent CPU, whole first run (s)', 'agent_cpu_s'),
    row('not converged: objects there at the end', 'degraded_objects'),
    row('  after a restart ran as long again (or exited)', 'degraded_restart_objects'),
    ['kube rate-limiter / Retry-After wait (s), 429s', mannersText(r.kube_manners), '', ''],
    row('restart kube writes', 'restart_kube_writes'),
    row('restart kube reads', 'restart_kube_reads'),
    [
      '  by verb',
      r.restart_kube_reads_by_verb === null ? 'n/a' : JSON.stringify(r.restart_kube_reads_by_verb),
      '',
      '',
    ],
    ['restart rate-limiter / Retry-After wait (s), 429s', mannersText(r.restart_kube_manners), '', ''],
    row('restart control-plane requests', 'restart_controlplane_requests'),
    row('restart settled (s)', 'restart_settled_s'),
    [
      '  each restart (s)',
      r.restart_settled_rounds_s === null ? 'n/a' : r.restart_settled_rounds_s.join(', '),
      '',
      '',
    ],
    row('restart peak RSS (MiB)', 'restart_peak_rss_mib'),
    [
      'idle after the restart: kube reads / agent CPU (s) per cycle',
      // Absent from results written before the figure was.
      !r.restart_idle
        ? 'n/a'
        : `${JSON.stringify(r.restart_idle.kube_reads_by_verb_per_cycle)} / ${r.restart_idle.agent_cpu_s_per_cycle}`,
      '',
      '',
    ],
  ];
}

/** The memory budget's heap figures as one cell. */
function memoryText(m: AgentMemory | null): string {
  return m === null ? '-' : `${m.heap_live_mib ?? '-'} / ${m.heap_limit_mib ?? '-'}`;
}

function mannersText(m: KubeManners | null): string {
  return m === null ? 'n/a' : `${m.rate_limiter_wait_s} / ${m.retry_after_wait_s}, ${m.status_429}`;
}

/** The figures as a Markdown table (stdout and the README section use the same one). */
export function formatTable(r: BenchResult): string {
  const header = ['figure', 'value', 'target', 'verdict'];
  const rows = tableRows(r);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const m = r.machine;
  return [
    line(header),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map(line),
    '',
    `- machine: ${m.cpu_model}, ${m.cores} cores, ${m.memory_gib} GiB, Node ${m.node}, ${m.os}`,
    ...(r.load_average ? [`- load average (1 min) at start / end: ${r.load_average.join(' / ')}`] : []),
    ...(r.replica_figures ?? []).map(
      (f) => `- replica ${f.name}: ${JSON.stringify({ ...f, name: undefined })}`,
    ),
    ...r.notes.map((n) => `- note: ${n}`),
  ].join('\n');
}

/** The JSON document written by `--json FILE`: the result plus the verdicts. */
export function toJson(r: BenchResult): string {
  return `${JSON.stringify({ ...r, verdicts: verdicts(r) }, null, 2)}\n`;
}

/** A result with every measured figure null: phases fill it in as they finish. */
export function emptyResult(deployments: number, namespaces: number, pollIntervalS: number): BenchResult {
  return {
    started_at: new Date().toISOString(),
    label: null,
    commit: null,
    deployments,
    namespaces,
    objects: 0,
    poll_interval_s: pollIntervalS,
    convergence_s: null,
    convergence_first_apply_s: null,
    convergence_kube_reads: null,
    convergence_kube_writes: null,
    convergence_object_writes: null,
    convergence_kube_writes_by_target: null,
    convergence_kube_reads_by_target: null,
    convergence_controlplane_requests: null,
    convergence_agent_cpu_s: null,
    convergence_harness_cpu_s: null,
    convergence_sandbox_busy: null,
    convergence_sandbox_wait_s: null,
    convergence_agent_wait_s: null,
    kubectl_convergence_s: null,
    kubectl_kube_reads: null,
    kubectl_kube_writes: null,
    kubectl_harness_cpu_s: null,
    kubectl_sandbox_wait_s: null,
    convergence_ratio: null,
    convergence_rounds: [],
    idle_cycles: null,
    idle_resyncs: null,
    idle_kube_writes: null,
    idle_object_writes: null,
    idle_kube_reads_per_cycle: null,
    idle_kube_reads_by_verb_per_cycle: null,
    idle_kube_reads_by_target_per_cycle: null,
    idle_controlplane_requests_per_cycle: null,
    idle_agent_cpu_s_per_cycle: null,
    idle_controlplane_list_requests_per_cycle: null,
    idle_controlplane_by_route_per_cycle: null,
    propagation_changes: null,
    propagation_p50_ms: null,
    propagation_p99_ms: null,
    propagation_max_ms: null,
    peak_rss_mib: null,
    memory_limit_mib: null,
    cgroup_peak_mib: null,
    agent_oom_kills: null,
    agent_heap_exhaustions: null,
    agent_cpu_s: null,
    kube_manners: null,
    agent_memory: null,
    restart_kube_writes: null,
    restart_kube_reads: null,
    restart_kube_reads_by_verb: null,
    restart_kube_reads_by_target: null,
    restart_kube_manners: null,
    restart_controlplane_requests: null,
    degraded_objects: null,
    degraded_restart_objects: null,
    restart_settled_s: null,
    restart_settled_rounds_s: null,
    restart_peak_rss_mib: null,
    restart_idle: null,
    machine: describeMachine(),
    load_average: null,
    notes: [],
  };
}
