/**
 * The measured phases against a running agent: idle cycles and propagation. Each returns plain
 * numbers; `run.ts` puts them in the result.
 */
import type { KubeApi } from '../../src/sandbox/server.ts';
import type { ControlPlaneThread } from './control-plane-thread.ts';
import { type AgentCounters, parseCounters, scrapeCounters, waitForCounters } from './agent-metrics.ts';
import { type RenderedDeployment, refOf, waitForImage } from './convergence.ts';
import { percentile, round } from './figures.ts';
import { seededRandom } from '../../test/support/prng.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface KubeCounts {
  reads: number;
  writes: number;
  /** Writes per `verb resource`, to say what was written when a write was not expected. */
  writesByTarget: Record<string, number>;
  /** Reads per verb (`list`, `get`, `watch`). */
  readsByVerb: Record<string, number>;
  /** Reads per `verb resource`. */
  readsByTarget: Record<string, number>;
  /** Writes of managed objects: all but those of `REPORTED_APART`. */
  objectWrites: number;
}

/**
 * What the agent writes besides the objects it manages, reported apart: Events, the leader Lease,
 * the restart memo's ConfigMap (the agent renders no ConfigMap).
 */
export const REPORTED_APART: ReadonlySet<string> = new Set(['events', 'leases', 'configmaps']);

export function countKube(api: Pick<KubeApi, 'requests'>): KubeCounts {
  const records = api.requests();
  const writesByTarget: Record<string, number> = {};
  const readsByVerb: Record<string, number> = {};
  const readsByTarget: Record<string, number> = {};
  let writes = 0;
  let objectWrites = 0;
  for (const r of records) {
    const key = `${r.verb} ${r.resource}`;
    if (!r.write) {
      readsByVerb[r.verb] = (readsByVerb[r.verb] ?? 0) + 1;
      // A list call of one object by name (an identity lookup) apart from a listing's pages.
      const read = r.fieldSelector?.startsWith('metadata.name=') ? `${key} by name` : key;
      readsByTarget[read] = (readsByTarget[read] ?? 0) + 1;
      continue;
    }
    writes++;
    if (!REPORTED_APART.has(r.resource)) objectWrites++;
    writesByTarget[key] = (writesByTarget[key] ?? 0) + 1;
  }
  return { reads: records.length - writes, writes, writesByTarget, readsByVerb, readsByTarget, objectWrites };
}

/** Epoch milliseconds of the first write of a managed object (an apply or a create) in the sandbox's request log, if any. */
export function firstApplyMs(api: Pick<KubeApi, 'requests'>): number | undefined {
  const first = api
    .requests({ write: true })
    .find((r) => (r.verb === 'apply' || r.verb === 'create') && !REPORTED_APART.has(r.resource));
  return first ? Date.parse(first.time) : undefined;
}

/**
 * Waits until the agent's queue is empty and nothing is in flight. Resolves with undefined when it
 * got there, else with the last counters seen (an agent whose per-cycle work outlasts the poll
 * interval never gets there: that is a finding, not a reason to wait forever).
 */
export async function waitQuiet(opsUrl: string, timeoutMs: number): Promise<AgentCounters | undefined> {
  const done = (c: AgentCounters) => c.queueDepth === 0 && c.inFlight === 0;
  if (await waitForCounters(opsUrl, done, timeoutMs)) return undefined;
  // Nothing scraped: every counter unknown (NaN), as parsing no metrics gives.
  return (await scrapeCounters(opsUrl)) ?? parseCounters('');
}

export interface IdleResult {
  /** Polls completed in the window. */
  cycles: number;
  windowS: number;
  kube: KubeCounts;
  controlPlaneRequests: number;
  byRoute: Record<string, number>;
  /** The agent's CPU seconds over the window (its `agentCpuSeconds` at the two ends). */
  agentCpuS: number;
  /** How the cycle boundaries were found. */
  boundaries: 'agent polls_total' | 'time';
  /** Full resyncs that drained in the window; null without the agent's metric. */
  resyncs: number | null;
}

/**
 * How often the idle window's ends are looked for on `/metrics`: each scrape costs the agent about
 * 0.4 ms of its main thread's CPU, so every 20 ms (as until 2026-11-25) added 2% of a core to the
 * idle CPU measured; a window's ends are still found within a fiftieth of a 5 s cycle.
 */
const IDLE_SCRAPE_MS = 100;

/**
 * Counts requests over `cycles` poll cycles. Boundaries are the agent's completed polls
 * (`mooring_polls_total{result="success"}`), so the window holds whole polls; without that metric
 * the window is `cycles` poll intervals long. An agent whose polls fall behind gets a window of at
 * most `maxWindowMs`, and the figures are per poll it actually completed in it.
 */
export async function measureIdle(
  api: KubeApi,
  cp: Pick<ControlPlaneThread, 'stats' | 'resetStats'>,
  opsUrl: string,
  cycles: number,
  pollIntervalS: number,
  maxWindowMs: number,
  agentCpuSeconds: () => number,
): Promise<IdleResult> {
  const perCycleMs = pollIntervalS * 1.1 * 1000 + 10_000;
  const start = await scrapeCounters(opsUrl);
  const byMetric = start !== undefined && Number.isFinite(start.pollsOk);
  let measured = cycles;
  let windowMs = 0;
  let cpuAtOpen = 0;
  let resyncs: number | null = null;
  if (byMetric) {
    // Start right after a poll completes.
    const first = await waitForCounters(
      opsUrl,
      (c) => c.pollsOk > start.pollsOk,
      Math.max(perCycleMs, maxWindowMs / 2),
      IDLE_SCRAPE_MS,
    );
    if (!first) throw new Error('the agent completed no poll in the idle phase');
    api.clearRequests();
    await cp.resetStats();
    const opened = performance.now();
    cpuAtOpen = agentCpuSeconds();
    const end = await waitForCounters(
      opsUrl,
      (c) => c.pollsOk >= first.pollsOk + cycles,
      maxWindowMs,
      IDLE_SCRAPE_MS,
    );
    windowMs = performance.now() - opened;
    const last = end ?? (await scrapeCounters(opsUrl));
    measured = (last?.pollsOk ?? first.pollsOk) - first.pollsOk;
    const drained = (last?.resyncs ?? Number.NaN) - first.resyncs;
    if (Number.isFinite(drained)) resyncs = drained;
    if (measured < 1) throw new Error(`the agent completed no poll in ${Math.round(maxWindowMs / 1000)} s`);
  } else {
    api.clearRequests();
    await cp.resetStats();
    cpuAtOpen = agentCpuSeconds();
    windowMs = cycles * pollIntervalS * 1000;
    await sleep(windowMs);
  }
  const agentCpuS = agentCpuSeconds() - cpuAtOpen;
  const stats = await cp.stats();
  return {
    cycles: measured,
    windowS: round(windowMs / 1000, 1),
    kube: countKube(api),
    controlPlaneRequests: stats.requests,
    byRoute: stats.byRoute,
    agentCpuS,
    boundaries: byMetric ? 'agent polls_total' : 'time',
    resyncs,
  };
}

export interface PropagationResult {
  latenciesMs: number[];
  timedOut: number;
  p50: number | null;
  p99: number | null;
  max: number | null;
}

/** A new tag for an image reference (`repo:1.2.0` becomes `repo:bench-<n>`). */
export function retag(image: string, n: number): string {
  const colon = image.lastIndexOf(':');
  const slash = image.lastIndexOf('/');
  const repo = colon > slash ? image.slice(0, colon) : image;
  return `${repo}:bench-${n}`;
}

/**
 * `changes` image changes, each to a different deployment, PATCHed through the control plane's
 * HTTP API at random moments spread over `spreadS` seconds (so they fall at every phase of the
 * agent's poll cycle); each is timed from just before its PATCH until the sandbox's API-server
 * Deployment carries the new image (checked every 20 ms).
 */
export async function measurePropagation(options: {
  api: KubeApi;
  cp: Pick<ControlPlaneThread, 'url'>;
  apiKey: string;
  rendered: readonly RenderedDeployment[];
  images: ReadonlyMap<string, string>;
  changes: number;
  spreadS: number;
  timeoutMs: number;
  seed: number;
}): Promise<PropagationResult> {
  const random = seededRandom(options.seed + 7);
  const pool = [...options.rendered];
  const chosen: RenderedDeployment[] = [];
  while (chosen.length < Math.min(options.changes, pool.length)) {
    chosen.push(pool.splice(Math.floor(random() * pool.length), 1)[0] as RenderedDeployment);
  }
  const offsetsMs = chosen.map(() => random() * options.spreadS * 1000).sort((a, b) => a - b);
  const origin = performance.now();
  const latencies: number[] = [];
  let timedOut = 0;
  await Promise.all(
    chosen.map(async (d, i) => {
      await sleep(Math.max(0, origin + (offsetsMs[i] as number) - performance.now()));
      const apiServer = d.objects.find(
        (o) => o.kind === 'Deployment' && o.metadata.labels['app.kubernetes.io/component'] === 'api-server',
      );
      if (!apiServer) throw new Error(`deployment ${d.id}: no API-server Deployment rendered`);
      const image = retag(options.images.get(d.id) ?? '', i + 1);
      const sent = performance.now();
      const res = await fetch(`${options.cp.url}/v2/deployments/${d.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'x-api-key': options.apiKey },
        body: JSON.stringify({ source_revision_config: { image_uri: image } }),
      });
      if (res.status !== 200)
        throw new Error(`PATCH deployment ${d.id}: HTTP ${res.status} ${await res.text()}`);
      const seen = await waitForImage(options.api, refOf(apiServer), image, { timeoutMs: options.timeoutMs });
      // A change that never arrived counts as the timeout: the percentiles are then lower bounds.
      if (seen === null) timedOut++;
      latencies.push(seen === null ? options.timeoutMs : seen - sent);
    }),
  );
  return {
    latenciesMs: latencies,
    timedOut,
    p50: nullableRound(percentile(latencies, 50)),
    p99: nullableRound(percentile(latencies, 99)),
    max: nullableRound(percentile(latencies, 100)),
  };
}

function nullableRound(v: number | null): number | null {
  return v === null ? null : round(v, 0);
}
