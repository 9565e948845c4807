/**
 * The phases run against the agent: cold convergence, idle cycles, propagation, restart. Each
 * phase that fails is noted and the next still runs where it can, so one missed figure never
 * hides the others (peak RSS and CPU are always taken before the first agent stops).
 */
import type { EventLoopUtilization } from 'node:perf_hooks';
import path from 'node:path';
import {
  allReconciled,
  scrapeCounters,
  scrapeManners,
  scrapeMemory,
  waitForCounters,
} from './agent-metrics.ts';
import type { AgentProcess } from './agent-process.ts';
import { refOf, waitForObjects } from './convergence.ts';
import { type BenchResult, round, roundOrNull } from './figures.ts';
import {
  countKube,
  firstApplyMs,
  type IdleResult,
  measureIdle,
  measurePropagation,
  waitQuiet,
} from './phases.ts';
import type { Stack } from './stack.ts';
import { processRunQueueWait, threadRunQueueWaitFromNow } from './run-queue.ts';

export interface PhaseSettings {
  deployments: number;
  pollIntervalS: number;
  idleCycles: number;
  changes: number;
  /** Restarts on the converged cluster; the settled time is their median. */
  restarts: number;
  /** Idle cycles measured after the first restart settles (0: none). */
  restartIdleCycles: number;
  timeoutMs: number;
  seed: number;
}

export interface RunningAgent {
  agent: AgentProcess;
  opsUrl: string;
}

export interface AgentPhasesInput {
  stack: Stack;
  settings: PhaseSettings;
  runDir: string;
  result: BenchResult;
  note: (line: string) => void;
  say: (line: string) => void;
  startAgent: (name: string) => Promise<RunningAgent>;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Runs the four agent phases, filling `result`. Never throws for a phase that fails. */
export async function runAgentPhases(input: AgentPhasesInput): Promise<void> {
  const { settings: o, result, note } = input;
  const first = await input.startAgent('agent');
  let converged = false;
  try {
    converged = await coldConvergence(input, first);
    if (!converged) return;
    // How long to wait for the queue to drain before measuring anyway.
    const quietMs = Math.min(o.timeoutMs, Math.max(60_000, o.pollIntervalS * 12_000));
    const busy = await waitQuiet(first.opsUrl, quietMs);
    if (!alive(input, first, 'after convergence')) return;
    if (busy) {
      note(
        `the agent's queue did not drain within ${quietMs / 1000} s after convergence (queue ${busy.queueDepth}, ` +
          `in flight ${busy.inFlight}): the idle cycles are measured while it works through it`,
      );
    }
    try {
      await idleCycles(input, first, quietMs);
    } catch (err) {
      note(`idle phase: ${message(err)}`);
    }
    if (!alive(input, first, 'during the idle cycles')) return;
    try {
      await propagation(input);
    } catch (err) {
      note(`propagation phase: ${message(err)}`);
    }
    if (!alive(input, first, 'during propagation')) return;
    await waitQuiet(first.opsUrl, quietMs);
  } finally {
    await stopFirst(input, first);
    // Under a limit it did not converge within: does a restart keep its progress and go on?
    if (!converged && result.degraded_objects !== null && result.memory_limit_mib !== null)
      await degradedRestart(input);
  }
  if (result.convergence_s === null) return;
  // Restarts on the converged cluster: the first gives the counts, the median of all the time.
  const settled: number[] = [];
  for (let n = 1; n <= o.restarts; n++) {
    const s = await restartOnce(input, n === 1 ? 'agent-restart' : `agent-restart-${n}`, n === 1);
    if (s === undefined) break;
    settled.push(s);
  }
  if (settled.length > 0) result.restart_settled_s = median(settled);
  if (o.restarts > 1) result.restart_settled_rounds_s = settled;
}

/** The first agent's figures as it stops (however its phases ended), then it stopped. */
async function stopFirst(input: AgentPhasesInput, first: RunningAgent): Promise<void> {
  const { result, note } = input;
  result.kube_manners = (await scrapeManners(first.opsUrl)) ?? null;
  result.agent_memory = (await scrapeMemory(first.opsUrl)) ?? null;
  first.agent.sample();
  result.peak_rss_mib = roundOrNull(first.agent.peakRssMib, 1);
  result.agent_cpu_s = roundOrNull(first.agent.cpuSeconds());
  const code = await first.agent.stop();
  if (code !== 0) note(`the agent exited with ${code} on SIGTERM`);
  recordLimit(input, first.agent, true);
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return round(s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2);
};

/**
 * One restart on the converged cluster: seconds until the new agent reported every deployment
 * reconciled, or undefined when it did not. The first (`counts`) also fills the restart's
 * request figures; a later one that writes is noted, since a restart must write nothing.
 */
async function restartOnce(
  input: AgentPhasesInput,
  name: string,
  counts: boolean,
): Promise<number | undefined> {
  const { stack, settings: o, result, note, say } = input;
  let second: RunningAgent | undefined;
  let seconds: number | undefined;
  try {
    stack.kubeApi.clearRequests();
    await stack.controlPlane.resetStats();
    second = await input.startAgent(name);
    const restarted = second;
    const settled = await waitForCounters(
      restarted.opsUrl,
      allReconciled(o.deployments),
      o.timeoutMs,
      250,
      () => !restarted.agent.running,
    );
    if (settled) seconds = round((performance.now() - restarted.agent.startedAt) / 1000);
    else if (alive(input, restarted, 'while settling after the restart'))
      note(`${name}: the restarted agent did not report every deployment reconciled in time`);
    const restart = countKube(stack.kubeApi);
    if (restart.writes > 0) {
      note(`${name} writes: ${JSON.stringify(restart.writesByTarget)}`);
      if (!counts) result.restart_kube_writes = Math.max(result.restart_kube_writes ?? 0, restart.writes);
    }
    say(`${name}: ${restart.writes} writes, ${restart.reads} reads, settled in ${seconds ?? '-'} s`);
    if (!counts) return seconds;
    result.restart_kube_writes = restart.writes;
    result.restart_kube_reads = restart.reads;
    result.restart_kube_reads_by_verb = restart.readsByVerb;
    result.restart_kube_reads_by_target = restart.readsByTarget;
    result.restart_kube_manners = (await scrapeManners(restarted.opsUrl)) ?? null;
    result.restart_controlplane_requests = (await stack.controlPlane.stats()).requests;
    if (settled && o.restartIdleCycles > 0) await idleAfterRestart(input, restarted);
  } catch (err) {
    note(`${name} phase: ${message(err)}`);
  } finally {
    if (second) {
      second.agent.sample();
      if (counts) result.restart_peak_rss_mib = roundOrNull(second.agent.peakRssMib, 1);
      await second.agent.stop();
      recordLimit(input, second.agent, false);
    }
  }
  return seconds;
}

/**
 * An agent that did not converge under its memory limit, restarted under the same limit and run
 * as long again or until it exits: the objects then there (`degraded_restart_objects`) show
 * whether its progress was kept and carried on, or lost to a crash loop.
 */
async function degradedRestart(input: AgentPhasesInput): Promise<void> {
  const { stack, settings: o, result, say, note } = input;
  const running = await input.startAgent('agent-restart');
  let present = 0;
  try {
    await waitForObjects(
      stack.kubeApi,
      stack.rendered.map((d) => d.objects.map(refOf)),
      {
        timeoutMs: o.timeoutMs,
        giveUp: () => !running.agent.running,
        onProgress: (missing) => {
          present = stack.objects - missing;
        },
      },
    );
    const lasted = round((performance.now() - running.agent.startedAt) / 1000);
    const up = alive(input, running, 'after its restart under the memory limit');
    result.degraded_restart_objects = present;
    say(
      `restarted under the limit: ${present}/${stack.objects} objects, ${up ? 'up' : 'exited'} after ${lasted} s`,
    );
  } catch (err) {
    note(`degraded restart: ${message(err)}`);
  } finally {
    await running.agent.stop();
    recordLimit(input, running.agent, false);
  }
}

/**
 * A further round of cold convergence alone (`--rounds`): a fresh agent against a fresh stack,
 * stopped once every object is there. Fills the convergence figures of `input.result`.
 */
export async function runConvergenceOnly(input: AgentPhasesInput): Promise<void> {
  const running = await input.startAgent('agent');
  try {
    await coldConvergence(input, running);
  } finally {
    const code = await running.agent.stop();
    if (code !== 0) input.note(`the agent of a further round exited with ${code} on SIGTERM`);
    recordLimit(input, running.agent, false);
  }
}

/** False, with a note, when the agent is gone (a crash or an OOM kill): later phases would only time out. */
function alive({ note }: AgentPhasesInput, running: RunningAgent, when: string): boolean {
  if (running.agent.running) return true;
  const code = running.agent.child.exitCode;
  const signal = running.agent.child.signalCode;
  note(`the agent exited ${when} (${signal ?? `code ${code}`}; see its log): later phases skipped`);
  return false;
}

/**
 * The memory figures of a stopped agent: its V8 heap exhaustions, the kernel's OOM kills, and for
 * the first agent (phases 1 to 3, like peak RSS) its cgroup's peak.
 */
function recordLimit({ result, note }: AgentPhasesInput, agent: AgentProcess, first: boolean): void {
  const exhausted = agent.heapExhaustions();
  result.agent_heap_exhaustions = (result.agent_heap_exhaustions ?? 0) + exhausted;
  if (exhausted > 0) note(`the agent ran out of V8 heap ${exhausted} time(s) (see its log)`);
  const cgroup = agent.cgroup;
  if (!cgroup) return;
  result.memory_limit_mib = cgroup.limitMib;
  const peak = cgroup.peakMib();
  if (first && peak !== undefined) result.cgroup_peak_mib = round(peak, 1);
  const kills = cgroup.oomKills();
  result.agent_oom_kills = (result.agent_oom_kills ?? 0) + kills;
  if (kills > 0)
    note(`the kernel killed the agent ${kills} time(s) for exceeding its ${cgroup.limitMib} MiB limit`);
}

async function coldConvergence(input: AgentPhasesInput, running: RunningAgent): Promise<boolean> {
  const { stack, settings: o, result, say, note } = input;
  const { agent } = running;
  const cpuBefore = process.cpuUsage();
  const sandboxWaitSince = threadRunQueueWaitFromNow();
  let lastReport = 0;
  let present = 0;
  // The sandbox's event loop (this thread) from the first object on: how busy the agent kept it.
  let eluFromFirst: EventLoopUtilization | undefined;
  const done = await waitForObjects(
    stack.kubeApi,
    stack.rendered.map((d) => d.objects.map(refOf)),
    {
      timeoutMs: o.timeoutMs,
      giveUp: () => !agent.running,
      onProgress: (missing) => {
        present = stack.objects - missing;
        if (eluFromFirst === undefined && missing < stack.objects)
          eluFromFirst = performance.eventLoopUtilization();
        if (performance.now() - lastReport > 5_000) {
          lastReport = performance.now();
          say(`converging: ${stack.objects - missing}/${stack.objects} objects`);
        }
      },
    },
  );
  const cpu = process.cpuUsage(cpuBefore);
  const sandboxWait = sandboxWaitSince();
  const agentWait = agent.child.pid === undefined ? undefined : processRunQueueWait(agent.child.pid);
  if (done === null) {
    const why = agent.running ? `did not converge within ${o.timeoutMs / 1000} s` : 'exited';
    note(`the agent ${why} (see ${path.join(input.runDir, 'agent.log')})`);
    if (agent.running) result.degraded_objects = present;
    return false;
  }
  result.convergence_s = round((done - agent.startedAt) / 1000);
  result.convergence_agent_cpu_s = roundOrNull(agent.cpuSeconds());
  result.convergence_harness_cpu_s = round((cpu.user + cpu.system) / 1e6);
  if (sandboxWait !== undefined) result.convergence_sandbox_wait_s = round(sandboxWait);
  if (agentWait !== undefined) result.convergence_agent_wait_s = round(agentWait);
  if (eluFromFirst !== undefined)
    result.convergence_sandbox_busy = round(performance.eventLoopUtilization(eluFromFirst).utilization);
  const firstApply = firstApplyMs(stack.kubeApi);
  if (firstApply !== undefined)
    result.convergence_first_apply_s = round(
      (firstApply - (performance.timeOrigin + agent.startedAt)) / 1000,
    );
  const kube = countKube(stack.kubeApi);
  result.convergence_kube_reads = kube.reads;
  result.convergence_kube_writes = kube.writes;
  result.convergence_object_writes = kube.objectWrites;
  result.convergence_kube_writes_by_target = kube.writesByTarget;
  result.convergence_kube_reads_by_target = kube.readsByTarget;
  result.convergence_controlplane_requests = (await stack.controlPlane.stats()).requests;
  say(`converged in ${result.convergence_s} s`);
  return true;
}

async function idleCycles(input: AgentPhasesInput, running: RunningAgent, maxWaitMs: number): Promise<void> {
  const { stack, settings: o, result, say, note } = input;
  const maxWindowMs = Math.max(maxWaitMs, o.idleCycles * o.pollIntervalS * 3_000);
  const idle = await measureIdle(
    stack.kubeApi,
    stack.controlPlane,
    running.opsUrl,
    o.idleCycles,
    o.pollIntervalS,
    maxWindowMs,
    () => running.agent.cpuSeconds() ?? 0,
  );
  if (idle.boundaries === 'time')
    note('idle cycles bounded by time: the agent exports no mooring_polls_total');
  if (idle.cycles < o.idleCycles) {
    note(
      `only ${idle.cycles} of ${o.idleCycles} polls completed in ${idle.windowS} s: per-cycle figures are per completed poll`,
    );
  }
  const { per, perEach, cpuS } = perCycle(idle);
  result.idle_cycles = idle.cycles;
  result.idle_resyncs = idle.resyncs;
  result.idle_kube_writes = idle.kube.writes;
  result.idle_object_writes = idle.kube.objectWrites;
  if (idle.kube.writes > 0) note(`idle writes: ${JSON.stringify(idle.kube.writesByTarget)}`);
  result.idle_kube_reads_per_cycle = per(idle.kube.reads);
  result.idle_kube_reads_by_verb_per_cycle = perEach(idle.kube.readsByVerb);
  result.idle_kube_reads_by_target_per_cycle = perEach(idle.kube.readsByTarget);
  result.idle_controlplane_requests_per_cycle = per(idle.controlPlaneRequests);
  result.idle_agent_cpu_s_per_cycle = cpuS;
  result.idle_controlplane_list_requests_per_cycle = per(idle.byRoute['GET /v2/deployments'] ?? 0);
  result.idle_controlplane_by_route_per_cycle = perEach(idle.byRoute);
  say(
    `idle (${idle.cycles} polls, ${idle.resyncs ?? '?'} full resyncs, in ${idle.windowS} s): control plane ${JSON.stringify(result.idle_controlplane_by_route_per_cycle)}, kube reads ${JSON.stringify(result.idle_kube_reads_by_verb_per_cycle)}`,
  );
}

/** An idle window's counts per poll it completed, and the agent's CPU seconds per poll. */
function perCycle(idle: IdleResult) {
  const per = (v: number) => round(v / idle.cycles);
  const perEach = (counts: Record<string, number>) =>
    Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, per(v)]));
  return { per, perEach, cpuS: round(idle.agentCpuS / idle.cycles, 3) };
}

/** Polls skipped after a restart settles: its watches start from the second listing after it. */
const RESTART_IDLE_SKIP = 3;

/** Idle cycles of the restarted agent once its watches can have started (`--restart-idle-cycles`). */
async function idleAfterRestart(input: AgentPhasesInput, running: RunningAgent): Promise<void> {
  const { stack, settings: o, result, say } = input;
  const start = await scrapeCounters(running.opsUrl);
  const skipMs = RESTART_IDLE_SKIP * o.pollIntervalS * 3_000;
  if (start)
    await waitForCounters(running.opsUrl, (c) => c.pollsOk >= start.pollsOk + RESTART_IDLE_SKIP, skipMs, 250);
  const idle = await measureIdle(
    stack.kubeApi,
    stack.controlPlane,
    running.opsUrl,
    o.restartIdleCycles,
    o.pollIntervalS,
    o.restartIdleCycles * o.pollIntervalS * 3_000,
    () => running.agent.cpuSeconds() ?? 0,
  );
  const { per, perEach, cpuS } = perCycle(idle);
  result.restart_idle = {
    cycles: idle.cycles,
    kube_writes: idle.kube.writes,
    kube_reads_per_cycle: per(idle.kube.reads),
    kube_reads_by_verb_per_cycle: perEach(idle.kube.readsByVerb),
    agent_cpu_s_per_cycle: cpuS,
  };
  say(`after the restart, idle (${idle.cycles} polls): ${JSON.stringify(result.restart_idle)}`);
}

async function propagation(input: AgentPhasesInput): Promise<void> {
  const { stack, settings: o, result, say, note } = input;
  if (o.changes === 0) return;
  const images = new Map(stack.deployments.map((d) => [d.id, d.source_revision_config.image_uri ?? '']));
  const p = await measurePropagation({
    api: stack.kubeApi,
    cp: stack.controlPlane,
    apiKey: stack.apiKey,
    rendered: stack.rendered,
    images,
    changes: o.changes,
    spreadS: o.pollIntervalS * 5,
    timeoutMs: (o.pollIntervalS * 3 + 60) * 1000,
    seed: o.seed,
  });
  result.propagation_changes = p.latenciesMs.length;
  result.propagation_p50_ms = p.p50;
  result.propagation_p99_ms = p.p99;
  result.propagation_max_ms = p.max;
  if (p.timedOut > 0) {
    note(
      `${p.timedOut} of ${o.changes} image changes did not reach the cluster within ${o.pollIntervalS * 3 + 60} s; ` +
        'they count as that long, so the propagation percentiles are lower bounds',
    );
  }
  say(`propagation p50 ${p.p50} ms, p99 ${p.p99} ms`);
}
