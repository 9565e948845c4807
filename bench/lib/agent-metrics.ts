/**
 * Reads the agent's own counters from its ops port (`/metrics`, Prometheus text): poll cycles
 * mark idle-cycle boundaries, reconcile counters and queue gauges tell when a restarted agent has
 * checked every deployment. The harness never trusts these for the figures themselves (requests
 * are counted by the servers); they only tell it when to look.
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
}

export function parseCounters(text: string): AgentCounters {
  return {
    pollsOk: sumSamples(text, 'mooring_polls_total', { result: 'success' }),
    reconciles: sumSamples(text, 'mooring_reconciles_total'),
    queueDepth: sumSamples(text, 'mooring_queue_depth'),
    inFlight: sumSamples(text, 'mooring_reconciles_in_flight'),
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls the counters until `done` holds; resolves with them, or undefined on timeout. */
export async function waitForCounters(
  opsUrl: string,
  done: (c: AgentCounters) => boolean,
  timeoutMs: number,
  intervalMs = 100,
): Promise<AgentCounters | undefined> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const c = await scrapeCounters(opsUrl);
    if (c && done(c)) return c;
    await sleep(intervalMs);
  }
  return undefined;
}

/** What the harness reads from the agent's `/status`: per deployment, when it was last reconciled. */
export interface StatusSummary {
  deployments: number;
  /** Deployments with a reconcile recorded (`lastReconcileAt` set). */
  reconciled: number;
}

export function summarizeStatus(doc: unknown): StatusSummary | undefined {
  const list = (doc as { deployments?: unknown })?.deployments;
  if (!Array.isArray(list)) return undefined;
  const reconciled = list.filter(
    (d) => typeof (d as { lastReconcileAt?: unknown })?.lastReconcileAt === 'string',
  );
  return { deployments: list.length, reconciled: reconciled.length };
}

/**
 * Resolves once `/status` lists at least `count` deployments, each reconciled at least once by
 * this process (a restarted agent starts with an empty status); undefined on timeout, or as soon
 * as `giveUp` says so (the agent is gone).
 */
export async function waitForAllReconciled(
  opsUrl: string,
  count: number,
  timeoutMs: number,
  { intervalMs = 250, giveUp = () => false }: { intervalMs?: number; giveUp?: () => boolean } = {},
): Promise<StatusSummary | undefined> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline && !giveUp()) {
    try {
      const res = await fetch(`${opsUrl}/status`, { signal: AbortSignal.timeout(10_000) });
      const s = res.ok ? summarizeStatus(await res.json()) : undefined;
      if (s && s.deployments >= count && s.reconciled >= count) return s;
    } catch {
      // not listening yet
    }
    await sleep(intervalMs);
  }
  return undefined;
}
