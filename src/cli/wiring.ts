/**
 * The real dependencies of an agent, built from its settings: the control-plane client (with
 * request metrics), the Kubernetes clients (with request metrics), the resource manager, events,
 * the reconcile function and the orphan pass. `mooring run`, `mooring diff` and the sandbox use
 * this; tests of the loop mechanics use fakes instead. It builds and hands over, and decides
 * nothing: the only conditions in it are a flag's presence (test/cli/wiring-decisions.test.ts).
 */
import { Agent, type AgentDeps } from '../agent/agent.ts';
import { AgentLink } from '../agent/agent-link.ts';
import { ColdPasses } from '../agent/cold-passes.ts';
import { coldListingJudge } from '../agent/cold-start.ts';
import { DesiredResolver } from '../reconcile/desired-resolver.ts';
import { StartUpRenderSettings } from '../reconcile/exposure-check.ts';
import { MemoryBudget } from '../agent/memory-budget.ts';
import { concurrencyAt, pageShareAt } from '../agent/memory-levels.ts';
import { CENSUS_BYTES_PER_OBJECT, ORPHAN_LISTING_BYTES_PER_OBJECT } from '../agent/memory-estimate.ts';
import { LIST_CONCURRENCY } from '../kube/list.ts';
import { NO_SHARD_MEMOS, ShardMemos, type ShardMemosUse } from '../agent/shard-memos.ts';
import { controlPlaneTls, describeRoutes, logRoutes } from '../agent/routes.ts';
import { safeErr } from '../agent/safe-error.ts';
import type { AgentConfig } from '../config.ts';
import { ControlPlaneClient } from '../control-plane/client.ts';
import { errorCode } from '../errors.ts';
import type { Census } from '../kube/census.ts';
import { createKubeClient } from '../kube/clients.ts';
import { servesKind } from '../kube/exposure-discovery.ts';
import { ForeignObjects } from '../kube/foreign-objects.ts';
import { kubeLeaseClient } from '../kube/lease.ts';
import { kubeNamespaceReader } from '../kube/namespaces.ts';
import { ObjectClient } from '../kube/object-client.ts';
import { ObservedState, type PageJudge } from '../kube/observed-state.ts';
import { ResourceManager } from '../kube/resource-manager.ts';
import { kubeRestartMemoStore } from '../kube/restart-memo-store.ts';
import { debugDetailLogger, type Logger } from '../log.ts';
import { type AgentMetrics, countControlPlaneRequest, createMetrics } from '../ops/metrics.ts';
import { proxyPasswords } from '../proxy/from-environment.ts';
import { EventRecorder } from '../reconcile/events.ts';
import { collectOrphans } from '../reconcile/orphan-pass.ts';
import { OrphanCollector } from '../reconcile/orphans.ts';
import { reconcileHook } from '../reconcile/reconcile-hook.ts';
import { recordRefusalEvent } from '../reconcile/record-refusal-event.ts';
import type { Redactor } from '../redact.ts';
import { renderDeployment } from '../render/index.ts';
import { abortable } from './abortable.ts';
import {
  kubeconfigSource,
  kubeRateLimitOf,
  reconcileSettingsOf,
  renderSettingsOf,
} from './agent-settings.ts';
import { watchedObjects } from './watched-objects.ts';
import { ShardKeeps } from '../agent/shard-keeps.ts';

/** How long shutdown waits for queued Events to be written. */
const EVENTS_FLUSH_MS = 2_000;

export interface WiredAgent {
  agent: Agent;
  metrics: AgentMetrics;
  resources: ResourceManager;
  /** Closes clients and stops instrumentation. */
  close(): Promise<void>;
}

export interface WireOptions {
  config: AgentConfig;
  env: Readonly<Record<string, string | undefined>>;
  version: string;
  /** Writes through `redactor` (createLogger's `scrubber`). */
  logger: Logger;
  /** From `agentRedactor(config)`: fed the deployments' secret values, scrubs /status and Events. */
  redactor: Redactor;
  /** Kubeconfig YAML or path; overrides the config's (the sandbox passes its own). */
  kubeconfig?: string;
  onReconciled?: AgentDeps['onReconciled'];
}

/** Builds an agent with real clients. Throws MOORING_E_CONFIG_INVALID for an unusable kubeconfig. */
export function wireAgent(o: WireOptions): WiredAgent {
  const { config, logger, redactor } = o;
  // The parts made before the agent read it through this link (agent-link.ts).
  const link = new AgentLink();
  // The converged passes a start's cold listings find or the restart memo carries: a cold start's
  // listing comes whole and is compared page by page, no object read again (ADR 0008, 0010).
  const coldPasses = new ColdPasses();
  // The heap's budget (memory-budget.ts): the agent degrades instead of dying when it runs short.
  const memory = new MemoryBudget({ logger, restoring: () => coldPasses.restoring });
  const metrics = createMetrics(link.metricsSources(o.version, memory));
  redactor.set('proxy-credentials', proxyPasswords(o.env));
  // The User-Agent names the replica, so the API server's audit log tells replicas apart.
  const kube = createKubeClient(kubeconfigSource(config, o.env, o.kubeconfig), {
    env: o.env,
    userAgent: `mooring/${o.version} (${config.identity})`,
    onResult: (verb, result) => {
      metrics.kubeRequests.inc({ verb, result });
      link.observeKubeResult(result);
    },
    rateLimit: kubeRateLimitOf(config),
    onWait: (reason, seconds) => metrics.kubeWaitSeconds.inc({ reason }, seconds),
    // The client's own secrets (a kubeconfig proxy-url's password, tokens) are scrubbed by value too.
    onCredentials: (values) => redactor.set('kube-credentials', values),
  });
  const controlPlane = new ControlPlaneClient({
    baseUrl: config.controlPlaneUrl,
    apiKey: config.apiKey,
    ...(config.tenantId ? { tenantId: config.tenantId } : {}),
    env: o.env,
    tls: controlPlaneTls(config),
    maxResponseBytes: config.controlPlaneMaxResponseBytes,
    logger,
    onRequest: (e) => countControlPlaneRequest(metrics, e),
  });
  const routes = describeRoutes(config, o.env, controlPlane.route.proxy, kube.route.proxy);
  logRoutes(logger, routes);
  // What the agent knows of the cluster (observed-state.ts), kept current by watches (ADR 0014). A
  // cold listing's judge is made per listing (cold-start.ts); not in dry run, which keeps no memo.
  // A sharded replica keeps entries of its held shards' objects only (kube/shard-entries.ts).
  const shardKeeps = new ShardKeeps(config.shards);
  const watched = shardKeeps.watching(watchedObjects(config, kube, logger, shardKeeps.now));
  const observed = new ObservedState({
    namespaces: config.namespaces,
    listenerId: config.listenerId,
    watched,
    keeps: () => shardKeeps.fixed(),
    memoryShort: () => memory.isShort(),
    entriesFit: (listed) => memory.coldListingEntriesFit(listed),
    onColdListed: (judgeOnly, complete) => coldPasses.listed(judgeOnly, complete),
    onCounted: (objects) => memory.listed(objects),
    censusFits: () => memory.listingFits(CENSUS_BYTES_PER_OBJECT),
    ...(config.dryRun
      ? {}
      : { coldJudge: (): PageJudge => coldJudge(), census: (): Census => resources.census() }),
  });
  const resources = new ResourceManager({
    kube,
    fieldManager: 'mooring',
    dryRun: config.dryRun,
    logger,
    memo: observed.memo,
  });
  // One recorder for all reconciles (it rate-limits identical events); a standby records none
  // (Agent.recordsEvents). Events once queued are written even if leadership ends meanwhile: they
  // tell what this replica did.
  const events = new EventRecorder({
    sink: { create: (obj) => resources.create(obj) },
    recording: () => link.recordsEvents(),
    logger,
    instance: config.listenerId,
    scrubber: redactor,
  });
  const rendering = new StartUpRenderSettings(renderSettingsOf(config));
  const collector = new OrphanCollector({ deleteVolumes: config.deleteVolumes, logger });
  // What the leader verified, kept across restarts (ADR 0010): read by each cold listing.
  const restartMemo: ShardMemosUse =
    config.restartMemo === undefined || config.dryRun
      ? NO_SHARD_MEMOS
      : new ShardMemos(config.shards, config.restartMemo, {
          storeOf: (name) => kubeRestartMemoStore(kube, config.leaseNamespace, name),
          secret: config.apiKey,
          settings: () => ({
            settings: rendering.current,
            listener: config.listenerId,
            namespaces: config.namespaces,
          }),
          memo: observed.memo,
          logger,
          revisionsOf: (id) => resolver.knownOf(id),
        });
  const memoHooks = restartMemo.agentHooks();
  // One resolver for the process, seeded with the revisions the restart memo knew (ADR 0010).
  const resolver = new DesiredResolver(controlPlane, () => restartMemo.revisions());
  const coldJudge = (): PageJudge =>
    coldListingJudge({
      passes: coldPasses,
      desiredOf: (id) => link.desiredOf(id),
      loadRevision: (deploymentId, revisionId) => resolver.load(deploymentId, revisionId),
      render: (deployment, revision) =>
        renderDeployment({ deployment, revision, settings: rendering.current }).objects,
      verify: (live, desired, key) => resources.verifyListed(live, desired, key),
      listedVerified: (live, key) => resources.isListedVerified(live, key),
      // What the memo holds exists: the budget's count until a listing has counted them (a memo
      // of another build, after an upgrade, only counts them).
      beforeFirstPage: (passes) =>
        restartMemo.load(passes).then((another) => memory.listed(Math.max(observed.memo.size, another))),
    });
  // Listed per namespace at most once a cycle, and only for a rendered deployment that needs them.
  const foreign = new ForeignObjects(new ObjectClient(kube), config.listenerId);
  const cachedResources = observed.wrap(resources);
  const deps: AgentDeps = {
    ...(o.onReconciled ? { onReconciled: o.onReconciled } : {}),
    config,
    version: o.version,
    logger,
    redactor,
    metrics,
    controlPlane,
    routes,
    readNamespace: kubeNamespaceReader(kube),
    resolver,
    loadRevision: (deploymentId, revisionId) => resolver.load(deploymentId, revisionId),
    exposesUrls: () => rendering.exposesUrls(),
    checkCluster: () => rendering.check({ serves: (info) => servesKind(kube, info), resources, logger }),
    ...(config.leaderElection
      ? { leaseClientFor: (name: string) => kubeLeaseClient(kube, config.leaseNamespace, name) }
      : {}),
    reconcile: reconcileHook({
      resources: { cached: cachedResources, direct: observed.wrap(resources, { listDirectly: true }) },
      guard: abortable,
      deps: {
        events,
        logger: debugDetailLogger(logger, config.logLevel),
        settings: reconcileSettingsOf(config),
        verified: (obj, key) => resources.isVerified(obj, key),
        coldPass: (id, key, namespace) => coldPasses.take(id, key, namespace),
        // Asked once the cycle's listing has ended (a cold one's judge has given its verdicts).
        listedPass: (id, key, namespace) =>
          observed.latest().then(() => coldPasses.takeListed(id, key, namespace)),
        finder: () => observed.finder(),
        foreignSelectors: (namespace) => foreign.selectors(namespace),
        foreignClaims: (namespace) => foreign.claims(namespace),
      },
      renderSettings: () => rendering.current,
    }),
    ownsObjects: (id) => observed.ownsObjects(id),
    quiet: (id) => observed.quiet(id),
    memory,
    restored: (id) => coldPasses.restored(id),
    onListed: (ids) => coldPasses.keepListed(ids),
    beforeListing: () => restartMemo.vouch(coldPasses),
    ...memoHooks,
    onShards: shardKeeps.alongside(memoHooks.onShards),
    // A record the agent cannot use refuses its deployment alone: said in an Event there too.
    onRefused: (d) => recordRefusalEvent(events, config.namespaces, d),
    beginCycle: () => {
      foreign.reset();
      void observed.refresh(
        // Fewer and smaller pages in flight while the heap is tight, judged again as the listing goes
        // (a restart's cold listing under a small limit).
        (opts) =>
          resources.listOwned({
            ...opts,
            concurrency: () => concurrencyAt(memory.level, LIST_CONCURRENCY),
            pageShare: () => pageShareAt(memory.level),
          }),
        (err) =>
          logger.warn(
            { err: safeErr(err), code: errorCode(err) },
            "cycle inventory listing failed; this cycle's reconciles list for themselves",
          ),
      );
    },
    // Deletes go through the cache, so a deployment they touch lists afresh this cycle.
    collectOrphans: (snapshot, signal, holds) =>
      collectOrphans(
        {
          resources: cachedResources,
          collector,
          logger,
          events,
          latest: () => observed.latest(),
          listOwned: (opts) => resources.listOwned(opts),
          listingFits: () => memory.listingFits(ORPHAN_LISTING_BYTES_PER_OBJECT),
          namespaces: config.namespaces,
          listenerId: config.listenerId,
          deleteVolumes: config.deleteVolumes,
          dryRun: config.dryRun,
        },
        snapshot,
        signal,
        holds,
      ),
  };
  const agent = link.attach(new Agent(deps));
  return {
    agent,
    metrics,
    resources,
    close: async () => {
      // Events still queued get a moment to be written before the connections close.
      await events.flushAtShutdown(EVENTS_FLUSH_MS);
      observed.stopWatching();
      await controlPlane.close();
      await kube.close();
    },
  };
}
