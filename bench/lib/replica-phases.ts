/**
 * The phases of a run with several replicas (`--replicas N`, leader election, and usually
 * `--agent-arg=--shards=K`): cold convergence of the whole fleet, then idle cycles, with each
 * replica measured apart: its peak RSS, its CPU, the shards it holds, the deployments it reconciled
 * and how long its own full resync (a cycle over its shards) takes. On one machine the replicas
 * share the cores, so total throughput cannot grow: the point is the per-replica work shrinking.
 * Propagation, restarts and the kubectl baseline are single-agent phases and are skipped.
 */
import { parseCounters, sumSamples } from './agent-metrics.ts';
import type { AgentPhasesInput, RunningAgent } from './agent-phases.ts';
import { refOf, waitForObjects } from './convergence.ts';
import { type ReplicaFigures, round, roundOrNull } from './figures.ts';
import { waitQuiet } from './phases.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function metricsOf(r: RunningAgent): Promise<string> {
  try {
    const res = await fetch(`${r.opsUrl}/metrics`, { signal: AbortSignal.timeout(5_000) });
    return res.ok ? await res.text() : '';
  } catch {
    return '';
  }
}

/** A metric's value (summed over its labels); null when the agent does not export it. */
function sample(text: string, name: string): number | null {
  const v = sumSamples(text, name);
  return Number.isNaN(v) ? null : v;
}

/** Kubernetes requests of the given verbs an agent sent (`mooring_kube_requests_total`). */
export function requestsOf(text: string, verbs: readonly string[]): number | null {
  const counts = verbs.map((verb) => sumSamples(text, 'mooring_kube_requests_total', { verb }));
  return counts.every(Number.isNaN) ? null : counts.reduce((a, n) => a + (Number.isNaN(n) ? 0 : n), 0);
}

/** Mean of a histogram's observations between two scrapes (null when none fell between). */
export function meanBetween(before: string, after: string, name: string): number | null {
  const count = sumSamples(after, `${name}_count`) - (sumSamples(before, `${name}_count`) || 0);
  const sum = sumSamples(after, `${name}_sum`) - (sumSamples(before, `${name}_sum`) || 0);
  return count > 0 && Number.isFinite(sum) ? round(sum / count, 3) : null;
}

/** Runs `replicas` agents to convergence and through the idle cycles, filling `input.result`. */
export async function runReplicaPhases(input: AgentPhasesInput, replicas: number): Promise<void> {
  const { stack, settings: o, result, note, say } = input;
  const running: RunningAgent[] = [];
  const names = Array.from({ length: replicas }, (_, i) => `agent-${i}`);
  const idle = new Map<string, { before: string; after: string; cpuBefore: number; cpuAfter: number }>();
  try {
    for (const name of names) running.push(await input.startAgent(name));
    const startedAt = running[0]?.agent.startedAt ?? performance.now();
    const done = await waitForObjects(
      stack.kubeApi,
      stack.rendered.map((d) => d.objects.map(refOf)),
      { timeoutMs: o.timeoutMs, giveUp: () => running.some((r) => !r.agent.running) },
    );
    if (done === null) {
      note(`the ${replicas} replicas did not converge within ${o.timeoutMs / 1000} s, or one exited`);
      return;
    }
    result.convergence_s = round((done - startedAt) / 1000);
    say(`${replicas} replicas converged in ${result.convergence_s} s`);
    const quietMs = Math.min(o.timeoutMs, Math.max(60_000, o.pollIntervalS * 12_000));
    for (const r of running) await waitQuiet(r.opsUrl, quietMs);

    // Idle: every replica's own polls, counted from its own counters, until each did enough.
    for (const [i, r] of running.entries())
      idle.set(names[i] as string, {
        before: await metricsOf(r),
        after: '',
        cpuBefore: r.agent.cpuSeconds() ?? 0,
        cpuAfter: 0,
      });
    const deadline = performance.now() + Math.max(quietMs, o.idleCycles * o.pollIntervalS * 3_000);
    for (;;) {
      const texts = await Promise.all(running.map(metricsOf));
      const enough = texts.every((t, i) => {
        const before = parseCounters(idle.get(names[i] as string)?.before ?? '').pollsOk;
        return parseCounters(t).pollsOk - before >= o.idleCycles;
      });
      if (enough || performance.now() > deadline) {
        if (!enough) note(`not every replica completed ${o.idleCycles} polls in the idle window`);
        for (const [i, r] of running.entries()) {
          const entry = idle.get(names[i] as string);
          if (entry) Object.assign(entry, { after: texts[i] ?? '', cpuAfter: r.agent.cpuSeconds() ?? 0 });
        }
        break;
      }
      await sleep(250);
    }
  } finally {
    const figures: ReplicaFigures[] = [];
    // Every replica read before any stops: one stopping gives its shards to the others.
    const finals = await Promise.all(running.map(metricsOf));
    for (const [i, r] of running.entries()) {
      const name = names[i] as string;
      const text = finals[i] ?? '';
      r.agent.sample();
      const w = idle.get(name);
      const polls = w ? parseCounters(w.after).pollsOk - parseCounters(w.before).pollsOk : 0;
      figures.push({
        name,
        peak_rss_mib: roundOrNull(r.agent.peakRssMib, 1),
        cpu_s: roundOrNull(r.agent.cpuSeconds()),
        shards_held: sample(text, 'mooring_shards_held'),
        deployments: sample(text, 'mooring_deployments'),
        reconciles: sample(text, 'mooring_reconciles_total'),
        kube_writes: requestsOf(text, ['create', 'update', 'patch', 'apply', 'delete']),
        kube_reads: requestsOf(text, ['get', 'list']),
        cold_resync_s: w ? meanBetween('', w.before, 'mooring_resync_duration_seconds') : null,
        idle_resync_s: w ? meanBetween(w.before, w.after, 'mooring_resync_duration_seconds') : null,
        idle_poll_s: w ? meanBetween(w.before, w.after, 'mooring_poll_duration_seconds') : null,
        idle_cpu_s_per_cycle: w && polls > 0 ? round((w.cpuAfter - w.cpuBefore) / polls, 3) : null,
      });
      const code = await r.agent.stop();
      if (code !== 0) note(`${name} exited with ${code} on SIGTERM`);
    }
    result.replica_figures = figures;
    for (const f of figures) say(`replica ${JSON.stringify(f)}`);
  }
}
