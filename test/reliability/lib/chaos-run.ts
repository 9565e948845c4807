/**
 * The chaos run: deployments in the control plane, an agent process reconciling them into the
 * sandbox API while the API injects errors, latency, dropped connections and watch resets, the
 * control plane goes down, the agent is SIGKILLed and restarted, and deployments change. Then the
 * faults stop and the run waits for the cluster to equal the render of the final deployments.
 * Timings and choices come from one seed, so a failing run can be repeated.
 */
import { writeFileSync } from 'node:fs';
import type { DeploymentRecord } from '../../../src/contract/index.ts';
import type { FaultRule, RequestRecord } from '../../../src/sandbox/server.ts';
import { changeOf, type ChangeKind, generateDeployments } from './deployments.ts';
import {
  type ClusterReport,
  checkCluster,
  converged,
  describeReport,
  finalDeployments,
  OWNED_KINDS,
  USER_AGENT,
} from './cluster-check.ts';
import { ChaosReplicas, type Sharding } from './chaos-replicas.ts';
import { startStack } from './stack.ts';
import { AgentLogs } from '../../support/agent-logs.ts';
import { LeaseTerms } from '../../support/lease-terms.ts';
import { renderedOwners, shardFencing, type ShardFencing } from './chaos-fencing.ts';
import { DeploymentOfObject } from '../../support/shard-fencing.ts';
import { seededRandom } from '../../support/prng.ts';
import { sleep } from '../../support/wait.ts';

export interface ChaosOptions {
  seed: number;
  deployments: number;
  namespaces: string[];
  /** Length of the chaos phase (faults on), ms. */
  chaosMs: number;
  outages: number;
  outageMs: number;
  kills: number;
  /** Share of the deployments changed during the chaos phase (0..1). */
  changeFraction: number;
  pollIntervalSeconds: number;
  /** How long convergence may take once the faults stop. */
  convergeTimeoutMs: number;
  /** Progress lines (a soak run is long). */
  log?: (line: string) => void;
  /** When set, the agents' stdout and stderr are written to this file at the end (for diagnosis). */
  agentLogFile?: string;
  /** Several replicas sharding the listener (each kill then hits one of them); default one agent. */
  sharding?: Sharding;
}

/** The sandbox's faults during the chaos phase: about 10% of requests fail. */
export const CHAOS_FAULTS: FaultRule[] = [
  { status: 500, probability: 0.035 },
  { status: 429, retryAfterSeconds: 1, probability: 0.03 },
  // Applies are a small share of the requests (reads dominate), few enough in a short run that
  // 10% of them can give no 409 at all: the first apply's 409 makes one certain, and the 10% keep
  // the error rate well under 1%.
  { verb: 'apply', status: 409, count: 1 },
  { verb: 'apply', status: 409, probability: 0.1 },
  { dropConnection: true, probability: 0.015 },
  { latencyMs: 250, probability: 0.05 },
  { verb: 'watch', watchResetAfterMs: 1500 },
];

export interface ChaosOutcome {
  seed: number;
  deployments: number;
  changes: number;
  kills: number;
  /** Agent exits we did not cause (crashes): must be none. */
  unexpectedExits: string[];
  outages: { startedAt: string; endedAt: string }[];
  /** Requests the sandbox answered with an injected (or real) error status during the chaos phase. */
  faultStatuses: Record<string, number>;
  kubeRequests: number;
  /** Every DELETE the agent sent, over the whole run. */
  deletes: RequestRecord[];
  /** DELETEs of an object the final desired state contains (a live deployment's object). */
  deletesOfDesired: RequestRecord[];
  /** DELETEs sent while the control plane was down. */
  deletesDuringOutages: RequestRecord[];
  /** Postgres credentials Secrets watched (created once, never rewritten) and how many of them
   * ever changed password or were recreated: must be none. */
  credentials: { watched: number; seen: number; changed: string[] };
  /** Secret values (deployment secrets with random parts, the API key) found in the agent's
   * output; must be none. */
  leakedSecrets: string[];
  secretValuesSearched: number;
  /** Time from the end of the faults to a converged cluster, ms (null: did not converge). */
  convergeMs: number | null;
  report: ClusterReport;
  reportText: string;
  logs: AgentLogs;
  /** With sharding: every write checked against the Lease terms of its shard. */
  fencing?: ShardFencing;
}

interface Event {
  atMs: number;
  kind: 'kill' | 'outage-start' | 'outage-end' | 'change';
  index: number;
}

/** Spreads `n` times over [lo, hi) with at least `gapMs` between neighbours (seeded). */
function spread(random: () => number, n: number, lo: number, hi: number, gapMs: number): number[] {
  const slot = (hi - lo) / Math.max(1, n);
  return Array.from({ length: n }, (_, i) =>
    Math.round(lo + i * slot + random() * Math.max(0, slot - gapMs)),
  );
}

export async function runChaos(o: ChaosOptions): Promise<ChaosOutcome> {
  const log = o.log ?? (() => {});
  const random = seededRandom(o.seed);
  const stack = await startStack({
    namespaces: o.namespaces,
    rolloutDelayMs: 200,
    agentEnv: { MOORING_POLL_INTERVAL: String(o.pollIntervalSeconds), MOORING_LOG_LEVEL: 'info' },
  });
  const logs = new AgentLogs();
  const replicas = new ChaosReplicas(stack.agentEnv, logs, log, o.sharding);
  // Followed from the start: every Lease term, every object's deployment (from its labels).
  const leaseNamespace = o.namespaces[0] as string;
  const terms = o.sharding ? new LeaseTerms(stack.kube, leaseNamespace) : undefined;
  const owners = o.sharding ? new DeploymentOfObject(stack.kube) : undefined;
  const deletes = new Map<string, RequestRecord>();
  const outages: { startedAt: string; endedAt: string }[] = [];
  // The create-only Postgres credentials: once a password exists it must never change (a new one
  // would lock the application out of its own database), whatever was killed in the middle.
  const passwords = new Map<string, string>();
  const changedCredentials = new Set<string>();
  let credentialRefs: { namespace: string; name: string }[] = [];
  const checkCredentials = () => {
    for (const ref of credentialRefs) {
      const o = stack.kube.getObject('v1', 'Secret', ref.namespace, ref.name) as
        | { metadata: { uid?: string }; data?: Record<string, string> }
        | undefined;
      const password = o?.data?.POSTGRES_PASSWORD;
      if (!o || !password) continue;
      const key = `${ref.namespace}/${ref.name}`;
      const value = `${o.metadata.uid ?? ''} ${password}`;
      const before = passwords.get(key);
      if (before === undefined) passwords.set(key, value);
      else if (before !== value) changedCredentials.add(key);
    }
  };
  const collectDeletes = () => {
    checkCredentials();
    for (const r of stack.kube.requests({ verb: 'delete' })) {
      if (r.userAgent === USER_AGENT) continue;
      deletes.set(`${r.time} ${r.path} ${r.status}`, r);
    }
  };
  try {
    // 1. The deployments, through the API (as a user would create them).
    const bodies = generateDeployments({
      count: o.deployments,
      namespaces: o.namespaces,
      listenerId: stack.listenerId,
      random,
      prefix: `chaos${o.seed}`,
    });
    credentialRefs = bodies
      .filter((b) => !(b.secrets ?? []).some((x) => x.name === 'POSTGRES_URI_CUSTOM'))
      .map((b) => ({
        namespace: b.source_config?.listener_config?.k8s_namespace as string,
        name: `${b.name}-postgres-credentials`,
      }));
    const records: DeploymentRecord[] = [];
    for (const b of bodies) records.push(await stack.client.createDeployment(b));
    // Every version of every record, for the fencing check's owners of objects never stored.
    const versions = [...records];
    log(`${records.length} deployments created`);

    // 2. The schedule: kills, outages, changes, all inside the chaos phase.
    const events: Event[] = [];
    spread(random, o.kills, 2000, o.chaosMs - 1000, 1500).forEach((atMs, index) => {
      events.push({ atMs, kind: 'kill', index });
    });
    spread(random, o.outages, 1000, o.chaosMs - o.outageMs, o.outageMs).forEach((atMs, index) => {
      events.push({ atMs, kind: 'outage-start', index });
      events.push({ atMs: atMs + o.outageMs, kind: 'outage-end', index });
    });
    const changeCount = Math.round(o.deployments * o.changeFraction);
    const order = records.map((_, i) => i).sort(() => random() - 0.5);
    spread(random, changeCount, 500, o.chaosMs - 500, 0).forEach((atMs, index) => {
      events.push({ atMs, kind: 'change', index: order[index] as number });
    });
    events.sort((a, b) => a.atMs - b.atMs);

    // 3. Chaos.
    stack.kube.clearRequests();
    stack.kube.setFaults(CHAOS_FAULTS);
    replicas.startAll();
    const began = Date.now();
    let cpDown = false;
    let changes = 0;
    let kills = 0;
    const deferred: number[] = [];
    const change = async (i: number) => {
      const kinds: ChangeKind[] = ['image', 'secrets', 'scale', 'labels'];
      const kind = kinds[changes % kinds.length] as ChangeKind;
      const current = records[i] as DeploymentRecord;
      records[i] = await stack.client.patchDeployment(current.id, changeOf(current, kind, changes));
      versions.push(records[i] as DeploymentRecord);
      changes += 1;
    };
    const timer = setInterval(collectDeletes, 1000);
    try {
      for (const e of events) {
        const wait = began + e.atMs - Date.now();
        if (wait > 0) await sleep(wait);
        if (e.kind === 'kill') {
          // One replica: no draw, so a seed's schedule is what it was before sharding.
          const victim = replicas.count > 1 ? Math.floor(random() * replicas.count) : 0;
          kills += 1;
          log(`replica ${victim} killed (${kills}/${o.kills}) at ${Date.now() - began} ms`);
          await replicas.killAndRestart(victim, Math.floor(random() * 1000));
        } else if (e.kind === 'outage-start') {
          await stack.cp.stop();
          cpDown = true;
          outages.push({ startedAt: new Date().toISOString(), endedAt: '' });
          log(`control plane down at ${Date.now() - began} ms`);
        } else if (e.kind === 'outage-end') {
          await stack.cp.start();
          cpDown = false;
          (outages[outages.length - 1] as { endedAt: string }).endedAt = new Date().toISOString();
          log(`control plane up at ${Date.now() - began} ms`);
          for (const i of deferred.splice(0)) await change(i);
        } else if (cpDown) {
          deferred.push(e.index);
        } else {
          await change(e.index);
        }
      }
      const rest = began + o.chaosMs - Date.now();
      if (rest > 0) await sleep(rest);
    } finally {
      clearInterval(timer);
    }
    collectDeletes();
    const faultStatuses: Record<string, number> = {};
    const chaosRequests = stack.kube.requests();
    for (const r of chaosRequests) {
      if (r.status >= 400) faultStatuses[r.status] = (faultStatuses[r.status] ?? 0) + 1;
    }

    // 4. Faults off; wait for the cluster to equal the final desired state.
    stack.kube.clearFaults();
    const calm = Date.now();
    log(`chaos over: ${kills} kills, ${outages.length} outages, ${changes} changes; waiting for convergence`);
    const settings = stack.renderSettings();
    const desired = await finalDeployments(stack.client, stack.listenerId);
    let report = await checkCluster(stack.kube, o.namespaces, settings, desired);
    let convergeMs: number | null = null;
    while (Date.now() - calm < o.convergeTimeoutMs) {
      if (converged(report)) {
        convergeMs = Date.now() - calm;
        break;
      }
      await sleep(1000);
      report = await checkCluster(stack.kube, o.namespaces, settings, desired);
    }
    if (convergeMs === null && converged(report)) convergeMs = Date.now() - calm;
    log(
      `convergence: ${convergeMs === null ? 'NOT reached' : `${convergeMs} ms`}; ${describeReport(report)}`,
    );
    collectDeletes();

    // Every secret value the deployments ever had (initial and rotated), and the API key.
    const secretValues = new Set<string>([stack.apiKey]);
    for (const b of bodies)
      for (const x of b.secrets ?? []) if (x.name !== 'FEATURE_FLAGS') secretValues.add(x.value);
    for (const r of records)
      for (const x of r.secrets ?? []) if (x.name !== 'FEATURE_FLAGS' && x.value) secretValues.add(x.value);
    const output = logs.all();
    const leakedSecrets = [...secretValues].filter(
      (v) => output.includes(v) || output.includes(Buffer.from(v).toString('base64')),
    );
    const all = [...deletes.values()];
    const kindOf = new Map<string, string>(OWNED_KINDS.map((k) => [k.plural, k.kind]));
    const idOfRequest = (r: RequestRecord) =>
      `${kindOf.get(r.resource) ?? r.resource}/${r.namespace ?? ''}/${r.name ?? ''}`;
    const windows = outages.map((w) => [Date.parse(w.startedAt), Date.parse(w.endedAt)] as const);
    return {
      seed: o.seed,
      deployments: o.deployments,
      changes,
      kills,
      unexpectedExits: replicas.unexpectedExits,
      outages,
      faultStatuses,
      kubeRequests: chaosRequests.length,
      deletes: all,
      leakedSecrets,
      secretValuesSearched: secretValues.size,
      credentials: { watched: credentialRefs.length, seen: passwords.size, changed: [...changedCredentials] },
      deletesOfDesired: all.filter((r) => report.expectedIds.has(idOfRequest(r))),
      deletesDuringOutages: all.filter((r) => {
        const t = Date.parse(r.time);
        return windows.some(([a, b]) => t >= a && t <= b);
      }),
      convergeMs,
      report,
      reportText: describeReport(report),
      logs,
      ...(terms && owners && o.sharding
        ? {
            fencing: shardFencing(
              stack.kube.requests(),
              owners,
              await renderedOwners(stack.client, settings, versions),
              terms,
              o.sharding.shards,
            ),
          }
        : {}),
    };
  } finally {
    terms?.stop();
    owners?.stop();
    await replicas.stopAll(3000);
    if (o.agentLogFile) writeFileSync(o.agentLogFile, `${logs.stdout}\n--- stderr ---\n${logs.stderr}`);
    await stack.close();
  }
}
