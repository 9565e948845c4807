/**
 * What the agent takes from the outside world (`AgentDeps`: Kubernetes and control-plane access,
 * the composition root gives the real ones) and the `/status` document it serves.
 */
import type { DesiredResolver } from '../reconcile/desired-resolver.ts';
import type { AgentConfig } from '../config.ts';
import type { RevisionRecord } from '../contract/index.ts';
import type { Logger } from '../log.ts';
import type { AgentMetrics } from '../ops/metrics.ts';
import type { MemoryBudget } from './memory-budget.ts';
import type { ReconcileRequest } from '../reconcile/reconcile-hook.ts';
import type { ReconcileResult } from '../reconcile/result.ts';
import type { Redactor } from '../redact.ts';
import type { Clock } from './clock.ts';
import type { ColdPass } from './cold-start.ts';
import type { LeaseClient } from './leader-election.ts';
import type { OrphanPassResult, PruneRefusal } from './orphan-pass.ts';
import type { DesiredDeployment, Snapshot } from './poll-cycle.ts';
import type { PollClient } from './poller.ts';
import type { ListenerClient, NamespaceReader } from './registration.ts';
import type { AgentRoutes } from './routes.ts';
import type { StatusStore } from './status.ts';

/** What the agent needs from the outside world. */
export interface AgentDeps {
  config: AgentConfig;
  version: string;
  logger: Logger;
  metrics: AgentMetrics;
  controlPlane: PollClient & ListenerClient;
  readNamespace: NamespaceReader;
  /** Whether deployments are exposed at their custom_url now (two may then not share one). */
  exposesUrls?: () => boolean;
  /** Start-up checks of the cluster beyond the namespaces (the exposure kind); may only warn. */
  checkCluster?: () => Promise<void>;
  /** Only with leader election (one shard; `leaseClientFor` wins when given). */
  leaseClient?: LeaseClient;
  /** With leader election: the client of a Lease by name (shard and membership Leases). */
  leaseClientFor?: (name: string) => LeaseClient;
  /**
   * Resolves each poll's deployments (default: a new one per term); the composition root gives
   * one seeded with the revisions a restart memo knew (ADR 0010), read only when rendered.
   */
  resolver?: DesiredResolver | undefined;
  /** Reads a revision a poll resolved without it (`DesiredDeployment.pendingRevision`). */
  loadRevision?: ((deploymentId: string, revisionId: string) => Promise<RevisionRecord>) | undefined;
  /** Reconciles one deployment (render, apply, prune, health; or the resync's shortcut); throws coded errors. */
  reconcile(input: ReconcileRequest, signal: AbortSignal): Promise<ReconcileResult>;
  /**
   * Feeds the orphan collector a complete listing and deletes what it decides. `holds` says which
   * deployments are in this replica's shards: objects of others are neither listed nor pruned.
   */
  collectOrphans(
    snapshot: Snapshot,
    signal: AbortSignal,
    holds?: (deploymentId: string) => boolean,
  ): Promise<OrphanPassResult>;
  /** Called when a complete snapshot arrives, before its deployments are queued. */
  beginCycle?: () => void;
  /** Whether a deployment still owns objects by the latest complete listing (the delete cap). */
  ownsObjects?: (deploymentId: string) => boolean | undefined;
  /** Whether a resync may leave a Ready deployment alone (deployments-deps.ts). */
  quiet?: (deploymentId: string) => boolean;
  /** Told once when the poller refuses a deployment (or its reason changes). */
  onRefused?: (d: DesiredDeployment) => void;
  /**
   * Called once the leader's last term ended by shutdown (not by losing the lease), with what its
   * reconciles left verified, before the lease is released: the restart memo (ADR 0010). With
   * shards, the held shards' memos, or those of `shards` (one given back). Never throws.
   */
  saveRestartMemo?: (passes: Iterable<[string, ColdPass]>, shards?: readonly number[]) => Promise<void>;
  /** Told each change of the shards held (the restart memo reads and saves those shards'). */
  onShards?: (held: number[]) => void;
  /**
   * The memory budget (memory-budget.ts): under heap pressure fewer reconciles run at once and
   * deployments never reconciled wait; `/readyz` and the metrics say so. None: no limits (tests).
   */
  memory?: MemoryBudget | undefined;
  /** Whether a restart memo vouched for the deployment as converged (deployments-deps.ts). */
  restored?: (deploymentId: string) => boolean;
  /** Told the ids of each complete listing once it is taken (deployments-deps.ts). */
  onListed?: (deploymentIds: ReadonlySet<string>) => void;
  /**
   * Awaited before each listing of the control plane: the restart memo tells which deployments
   * it vouches for before the first page is judged (MemoryBudget). Never throws.
   */
  beforeListing?: () => Promise<void>;
  /** Observes each successful reconcile's result (`mooring diff` prints the change sets). */
  onReconciled?: (deploymentId: string, result: ReconcileResult) => void;
  /**
   * Knows the secret values of the deployments at hand (fed here as records are taken) and scrubs
   * them from `/status`; the composition root also gives it to the logger and the Event recorder.
   * Default none (tests of the loop mechanics).
   */
  redactor?: Redactor;
  /** How the control plane and the API server are reached, for `/status` (src/agent/routes.ts). */
  routes?: AgentRoutes;
  clock?: Clock;
  random?: () => number;
}

/** The `/status` document. */
export interface AgentStatus {
  listenerId: string;
  identity: string;
  version: string;
  /** Whether this replica holds any shard (without leader election: always). */
  leader: boolean;
  /** The shards the listener is split into, and those this replica holds (ADR 0015). */
  shards?: { total: number; held: number[] };
  dryRun: boolean;
  lastPollAt: string | null;
  /** Set while the orphan pass is refused (too many deletions due, or an incomplete listing). */
  pruneRefused: PruneRefusal | null;
  /** Direct or through which proxy, and which CA bundle; never credentials. */
  routes?: AgentRoutes;
  deployments: ReturnType<StatusStore['list']>;
}

/** The `/status` document (see AgentStatus), every string in it scrubbed of known secret values. */
export function statusDocumentOf(
  d: Pick<AgentDeps, 'config' | 'version' | 'redactor' | 'routes'>,
  live: { leader: boolean; lastPollAtMs: number | undefined; shards?: AgentStatus['shards'] },
  pruneRefused: AgentStatus['pruneRefused'],
  deployments: AgentStatus['deployments'],
): AgentStatus {
  const { config, version, redactor } = d;
  const doc: AgentStatus = {
    listenerId: config.listenerId,
    identity: config.identity,
    version,
    leader: live.leader,
    ...(live.shards ? { shards: live.shards } : {}),
    dryRun: config.dryRun,
    lastPollAt: live.lastPollAtMs === undefined ? null : new Date(live.lastPollAtMs).toISOString(),
    pruneRefused,
    ...(d.routes ? { routes: d.routes } : {}),
    deployments,
  };
  return redactor ? redactor.scrubDeep(doc) : doc;
}
