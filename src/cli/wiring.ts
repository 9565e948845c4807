/**
 * The real dependencies of an agent, built from its settings: the control-plane client (with
 * request metrics), the Kubernetes clients (with request metrics), the resource manager, events,
 * the reconcile function and the orphan pass. `mooring run`, `mooring diff` and the sandbox use
 * this; tests of the loop mechanics use fakes instead.
 */
import { DesiredResolver } from '../agent/desired-resolver.ts';
import { AUTO_KUBE_QPS, type AgentConfig } from '../config.ts';
import { ControlPlaneClient } from '../control-plane/client.ts';
import { createKubeClient } from '../kube/clients.ts';
import { servesKind } from '../kube/exposure-discovery.ts';
import { kubeLeaseClient } from '../kube/lease.ts';
import { ForeignObjects } from '../kube/foreign-objects.ts';
import { kubeNamespaceReader } from '../kube/namespaces.ts';
import { ObjectClient } from '../kube/object-client.ts';
import type { Census } from '../kube/census.ts';
import { ObservedState, type PageJudge } from '../kube/observed-state.ts';
import { ResourceManager } from '../kube/resource-manager.ts';
import { kubeRestartMemoStore } from '../kube/restart-memo-store.ts';
import type { Logger } from '../log.ts';
import { createMetrics, type AgentMetrics } from '../ops/metrics.ts';
import { EventRecorder } from '../reconcile/events.ts';
import { errorCode } from '../errors.ts';
import { safeErr } from '../agent/safe-error.ts';
import { orphanListing, runOrphanPass } from '../reconcile/orphan-pass.ts';
import { OrphanCollector } from '../reconcile/orphans.ts';
import { reconcileDeployment } from '../reconcile/reconcile.ts';
import { recordRefusalEvent } from '../reconcile/record-refusal-event.ts';
import type { Redactor } from '../redact.ts';
import { renderDeployment } from '../render/index.ts';
import { Agent, type AgentDeps } from '../agent/agent.ts';
import { ColdPasses, coldStartJudge } from '../agent/cold-start.ts';
import { MemoryBudget } from '../agent/memory-budget.ts';
import { RestartMemoKeeper } from '../agent/restart-memo-keeper.ts';
import { checkExposureKind } from '../agent/exposure-check.ts';
import { proxyPasswords } from '../proxy/from-environment.ts';
import { controlPlaneTls, describeRoutes, logRoutes } from '../agent/routes.ts';
import { abortable } from './abortable.ts';
import { watchedObjects } from './watched-objects.ts';
import { kubeconfigSource, reconcileSettingsOf, renderSettingsOf } from './agent-settings.ts';

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
  let agent: Agent | undefined;
  // The heap's budget (memory-budget.ts): the agent degrades instead of dying when it runs short.
  const memory = new MemoryBudget({ logger });
  const metrics = createMetrics({
    version: o.version,
    deploymentStates: () => agent?.status.counts() ?? {},
    pausedObjects: () => agent?.status.pausedObjects() ?? 0,
    queueDepth: () => agent?.queueDepth ?? 0,
    inFlight: () => agent?.inFlight ?? 0,
    memory: () => memory.verdict(),
  });
  const cpTls = controlPlaneTls(config);
  redactor.set('proxy-credentials', proxyPasswords(o.env));
  // The User-Agent names the replica, so the API server's audit log tells replicas apart.
  const kube = createKubeClient(o.kubeconfig ?? kubeconfigSource(config, o.env), {
    env: o.env,
    userAgent: `mooring/${o.version} (${config.identity})`,
    onResult: (verb, result) => {
      metrics.kubeRequests.inc({ verb, result });
      agent?.observeKubeResult(result);
    },
    rateLimit:
      config.kubeQps === 'auto'
        ? { qps: AUTO_KUBE_QPS, burst: config.kubeBurst, untilServerFlowControl: true }
        : { qps: config.kubeQps, burst: config.kubeBurst },
    onWait: (reason, seconds) => metrics.kubeWaitSeconds.inc({ reason }, seconds),
    // The client's own secrets (a kubeconfig proxy-url's password, tokens) are scrubbed by value too.
    onCredentials: (values) => redactor.set('kube-credentials', values),
  });
  const controlPlane = new ControlPlaneClient({
    baseUrl: config.controlPlaneUrl,
    apiKey: config.apiKey,
    ...(config.tenantId ? { tenantId: config.tenantId } : {}),
    env: o.env,
    tls: cpTls,
    maxResponseBytes: config.controlPlaneMaxResponseBytes,
    logger,
    onRequest: (e) =>
      metrics.controlPlaneRequests.inc({
        route: `${e.method} ${e.route}`,
        result: e.status ? String(e.status) : 'error',
      }),
  });
  const routes = describeRoutes(config, o.env, controlPlane.route.proxy, kube.route.proxy);
  logRoutes(logger, routes);
  // What the agent knows of the cluster (observed-state.ts), kept current by watches (ADR 0014).
  const observed = new ObservedState({
    namespaces: config.namespaces,
    listenerId: config.listenerId,
    watched: watchedObjects(config, kube, logger),
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
    recording: () => agent?.recordsEvents === true,
    logger,
    instance: config.listenerId,
    scrubber: redactor,
  });
  // Replaced once at start when the exposure kind turns out not to be served (exposure-check.ts).
  let settings = renderSettingsOf(config);
  // The agent logs one line per reconcile itself (at debug when nothing moved); the reconcile's own summary line is for debugging.
  const reconcileLogger = ['debug', 'trace'].includes(config.logLevel)
    ? logger
    : logger.child({}, { level: 'warn' });
  const collector = new OrphanCollector({ deleteVolumes: config.deleteVolumes, logger });
  const reconcileSettings = reconcileSettingsOf(config);
  // One inventory listing per poll cycle, shared by that cycle's reconciles and its orphan pass.
  // A cold start's listing comes whole and is compared page by page (ADR 0008): no object is read
  // again. Not in dry run, which keeps no memo.
  const coldPasses = new ColdPasses();
  // What the leader verified, kept across restarts (ADR 0010): read by each cold listing.
  const restartMemo: RestartMemoKeeper | undefined =
    config.restartMemo === undefined || config.dryRun
      ? undefined
      : new RestartMemoKeeper({
          store: kubeRestartMemoStore(kube, config.leaseNamespace, config.restartMemo),
          secret: config.apiKey,
          settings: () => ({ settings, listener: config.listenerId, namespaces: config.namespaces }),
          memo: observed.memo,
          logger,
          revisionsOf: (id) => resolver.knownOf(id),
        });
  // One resolver for the process, seeded with the revisions the restart memo knew (ADR 0010).
  const resolver = new DesiredResolver(controlPlane, async () => restartMemo?.revisions());
  const coldJudge = (): PageJudge => {
    coldPasses.clear();
    const judge = coldStartJudge({
      desiredOf: (id) => agent?.desiredOf(id),
      // A revision the restart memo knew is read only when its deployment must be compared.
      render: async (d) => {
        const revision =
          d.revision ??
          (d.pendingRevision === undefined || !agent
            ? undefined
            : await resolver.load(d.deployment.id, d.pendingRevision));
        return renderDeployment({ deployment: d.deployment, revision, settings }).objects;
      },
      verify: (live, desired, key) => resources.verifyListed(live, desired, key),
      known: (id, live, key) => resources.isListedVerified(live, key) || coldPasses.holdsClaim(id, key, live),
      onConverged: (id, pass) => coldPasses.set(id, pass),
    });
    const loaded = restartMemo?.load(coldPasses);
    if (!loaded) return judge;
    // The memo is filled before the first page is judged.
    return async (items) => {
      await loaded;
      return judge(items);
    };
  };
  // Listed per namespace at most once a cycle, and only for a rendered deployment that needs them.
  const foreign = new ForeignObjects(new ObjectClient(kube), config.listenerId);
  const cachedResources = observed.wrap(resources);
  const directResources = observed.wrap(resources, { listDirectly: true });
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
    exposesUrls: () => settings.exposure.kind !== 'none',
    checkCluster: async () => {
      settings = await checkExposureKind(
        { serves: (info) => servesKind(kube, info), resources, logger },
        settings,
      );
    },
    ...(config.leaderElection
      ? { leaseClient: kubeLeaseClient(kube, config.leaseNamespace, config.leaseName) }
      : {}),
    // reconcileDeployment takes no signal: its resource calls are guarded instead, so a timed-out,
    // deposed or shut-down reconcile stops at its next step (apply, list, prune, event). The
    // runner keeps the deployment busy until it returns.
    reconcile: (input, signal) =>
      reconcileDeployment(
        {
          // A changed deployment does not wait for the cycle's listing (propagation latency).
          resources: abortable(input.changed ? directResources : cachedResources, signal),
          events,
          logger: reconcileLogger,
          settings: reconcileSettings,
          verified: (obj, key) => resources.isVerified(obj, key),
          coldPass: (id, key, namespace) => coldPasses.take(id, key, namespace),
          finder: () => observed.finder(),
          foreignSelectors: (namespace) => foreign.selectors(namespace),
          foreignClaims: (namespace) => foreign.claims(namespace),
        },
        {
          deployment: input.deployment,
          revision: input.revision,
          loadRevision: input.loadRevision,
          settings,
          ...(input.hash === undefined ? {} : { inputKey: input.hash }),
          converged: input.converged,
        },
      ),
    ownsObjects: (id) => observed.ownsObjects(id),
    quiet: (id) => observed.quiet(id),
    memory,
    ...(restartMemo ? { saveRestartMemo: (passes) => restartMemo.save(passes) } : {}),
    // A record the agent cannot use refuses its deployment alone: said in an Event there too.
    onRefused: (d) => recordRefusalEvent(events, config.namespaces, d),
    beginCycle: () => {
      foreign.reset();
      void observed.refresh(
        async (opts) => {
          const inventory = await resources.listOwned(opts);
          memory.listed(inventory.objects.length);
          return inventory;
        },
        (err) =>
          logger.warn(
            { err: safeErr(err), code: errorCode(err) },
            "cycle inventory listing failed; this cycle's reconciles list for themselves",
          ),
      );
    },
    collectOrphans: async (snapshot, signal) => {
      // The cycle's shared listing; only when it failed does the pass list for itself.
      const inventory =
        (await observed.latest()) ??
        (await resources.listOwned({ namespaces: config.namespaces, listenerId: config.listenerId }));
      // Deletes go through the cache, so a deployment they touch lists afresh this cycle. Leadership
      // may have ended during the listing: the signal makes a deposed leader delete nothing.
      const { plan, changeSet } = await runOrphanPass(
        { resources: cachedResources, collector, logger, events },
        {
          listing: orphanListing(snapshot.deployments, snapshot.rejected, config.listenerId),
          inventory,
          listenerId: config.listenerId,
          deleteVolumes: config.deleteVolumes,
          dryRun: config.dryRun,
          signal,
        },
      );
      if (plan.refused) return { refused: { code: plan.refused.code, message: plan.refused.message } };
      return changeSet.entries.length > 0 ? { changeSet } : {};
    },
  };
  agent = new Agent(deps);
  return {
    agent,
    metrics,
    resources,
    close: async () => {
      // Events still queued get a moment to be written before the connections close.
      const unwritten = await events.flush(EVENTS_FLUSH_MS);
      if (unwritten > 0) logger.warn({ unwritten }, `${unwritten} events not written before shutdown`);
      observed.stopWatching();
      await controlPlane.close();
      await kube.close();
    },
  };
}
