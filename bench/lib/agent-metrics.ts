/**
 * Reads the agent's own counters from its ops port (`/metrics`, Prometheus text): poll cycles
 * mark idle-cycle boundaries, reconcile counters and queue gauges tell when a restarted agent has
 * checked every deployment (none left `Pending`, the state of one listed and not yet reconciled
 * by this process). The harness never trusts these for the figures themselves (requests are
 * counted by the servers); they only tell it when to look. `/metrics` stays a few kilobytes
 * whatever the number of deployments, where `/status` lists every one: read every 250 ms at
 * 10,000 deployments, `/status` took a tenth of the restarted agent's CPU.
 */

/** Sums the samples of `name` whose labels include every pair in `labels`. */
export function sumSamples(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  let seen = false;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== '{' && rest[0] !== ' ') continue;
    const close = rest[0] === '{' ? rest.indexOf('}') : -1;
    const labelText = close > 0 ? rest.slice(1, close) : '';
    const value = Number(
      rest
        .slice(close + 1)
        .trim()
        .split(' ')[0],
    );
    const matches = Object.entries(labels).every(([k, v]) => labelText.includes(`${k}="${v}"`));
    if (matches && Number.isFinite(value)) {
      total += value;
      seen = true;
    }
  }
  return seen ? total : Number.NaN;
}

/** The figures the harness waits on; NaN when the agent does not export one. */
export interface AgentCounters {
  pollsOk: number;
  reconciles: number;
  queueDepth: number;
  inFlight: number;
  /** Deployments the agent knows, in any state. */
  deployments: number;
  /** Of them, listed and not yet reconciled by this process. */
  pending: number;
  /** Full resyncs that drained (`mooring_resync_duration_seconds`' count; the cold start is one). */
  resyncs: number;
}

export function parseCounters(text: string): AgentCounters {
  return {
    pollsOk: sumSamples(text, 'mooring_polls_total', { result: 'success' }),
    reconciles: sumSamples(text, 'mooring_reconciles_total'),
    queueDepth: sumSamples(text, 'mooring_queue_depth'),
    inFlight: sumSamples(text, 'mooring_reconciles_in_flight'),
    deployments: sumSamples(text, 'mooring_deployments'),
    pending: sumSamples(text, 'mooring_deployments', { state: 'Pending' }),
    resyncs: sumSamples(text, 'mooring_resync_duration_seconds_count'),
  };
}

/** Scrapes `/metrics`; undefined while the ops server does not answer. */
export async function scrapeCounters(opsUrl: string): Promise<AgentCounters | undefined> {
  try {
    const res = await fetch(`${opsUrl}/metrics`, { signal: AbortSignal.timeout(5_000) });
    if (!res.ok) return undefined;
    return parseCounters(await res.text());
  } catch {
    return undefined;
  }
}

/** How the agent paced its Kubernetes requests (src/kube/rate-limit.ts), from its own counters. */
export interface KubeManners {
  /** Seconds requests waited for the client-side rate limit (`--kube-qps`, `--kube-burst`). */
  rate_limiter_wait_s: number;
  /** Seconds requests waited out a server's Retry-After (after a 429, or a 503 with one). */
  retry_after_wait_s: number;
  /** Answers 429 (Too Many Requests) the agent was given. */
  status_429: number;
}

/** Reads `KubeManners` from `/metrics` text; a counter the agent has not exported yet counts 0. */
export function parseManners(text: string): KubeManners {
  const or0 = (n: number) => (Number.isFinite(n) ? Math.round(n * 1000) / 1000 : 0);
  return {
    rate_limiter_wait_s: or0(sumSamples(text, 'mooring_kube_wait_seconds_total', { reason: 'rate_limiter' })),
    retry_after_wait_s: or0(sumSamples(text, 'mooring_kube_wait_seconds_total', { reason: 'retry_after' })),
    status_429: or0(sumSamples(text, 'mooring_kube_requests_total', { result: '429' })),
  };
}

/** Scrapes `KubeManners`; undefined while the ops server does not answer. */
export async function scrapeManners(opsUrl: string): Promise<KubeManners | undefined> {
  try {
    const res = await fetch(`${opsUrl}/metrics`, { signal: AbortSignal.timeout(5_000) });
    return res.ok ? parseManners(await res.text()) : undefined;
  } catch {
    return undefined;
  }
}

/** What the agent's memory budget says (agent/memory-budget.ts), in MiB; null when not exported. */
export interface AgentMemory {
  heap_live_mib: number | null;
  heap_limit_mib: number | null;
  needed_limit_mib: number | null;
  waiting_for_memory: number | null;
}

export function parseMemory(text: string): AgentMemory {
  const mib = (name: string) => {
    const v = sumSamples(text, name);
    return Number.isNaN(v) ? null : Math.round((v / (1024 * 1024)) * 10) / 10;
  };
  const waiting = sumSamples(text, 'mooring_deployments_waiting_for_memory');
  return {
    heap_live_mib: mib('mooring_heap_live_bytes'),
    heap_limit_mib: mib('mooring_heap_limit_bytes'),
    needed_limit_mib: mib('mooring_memory_needed_bytes'),
    waiting_for_memory: Number.isNaN(waiting) ? null : waiting,
  };
}

/** The memory budget's figures now; undefined when `/metrics` cannot be read. */
export async function scrapeMemory(opsUrl: string): Promise<AgentMemory | undefined> {
  try {
    const res = await fetch(`${opsUrl}/metrics`, { signal: AbortSignal.timeout(5_000) });
    return res.ok ? parseMemory(await res.text()) : undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls the counters until `done` holds; resolves with them, or undefined on timeout or as soon
 * as `giveUp` says so (the agent is gone).
 */
export async function waitForCounters(
  opsUrl: string,
  done: (c: AgentCounters) => boolean,
  timeoutMs: number,
  intervalMs = 100,
  giveUp: () => boolean = () => false,
): Promise<AgentCounters | undefined> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline && !giveUp()) {
    const c = await scrapeCounters(opsUrl);
    if (c && done(c)) return c;
    await sleep(intervalMs);
  }
  return undefined;
}

/** Every one of `count` deployments listed and reconciled at least once by this process. */
export function allReconciled(count: number): (c: AgentCounters) => boolean {
  return (c) => c.deployments >= count && c.pending === 0;
}
