/**
 * The agent's settings as `mooring run` takes them: the flags and environment (config/, which
 * knows nothing of the renderer), then the `--settings` file and the render settings made once
 * from the file and the flags. Every problem is reported at once, one line each.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { type ConfigSources, flagLabel, parseAgentFlags } from './config/parse.ts';
import type { PodSecurityLevel } from './pod-security-lists.ts';
import { mergeRenderSettings, type RenderSettings } from './render/settings.ts';
import { readSettingsFile } from './settings-file.ts';

/** The parsed settings. Durations are converted to milliseconds. */
export interface AgentConfig {
  controlPlaneUrl: string;
  /** The API key (from --api-key or the file). Never log it. */
  apiKey: string;
  tenantId: string | undefined;
  /** PEM file of the control plane's CA (`--control-plane-ca-file`); undefined: the default roots. */
  controlPlaneCaFile?: string | undefined;
  /** Client certificate and key files for mTLS with the control plane: both or neither. */
  controlPlaneClientCertFile?: string | undefined;
  controlPlaneClientKeyFile?: string | undefined;
  listenerId: string;
  namespaces: string[];
  /** Kubeconfig file; undefined = in-cluster, then $KUBECONFIG. */
  kubeconfig: string | undefined;
  pollIntervalMs: number;
  /** Time between full resyncs; 0 (unset): every poll is a resync. */
  resyncIntervalMs: number;
  heartbeatIntervalMs: number;
  concurrency: number;
  /** Client-side rate limit of Kubernetes requests (0 = none). */
  /** `auto` (see AUTO_KUBE_QPS) or requests a second (0 = no limit). */
  kubeQps: number | 'auto';
  kubeBurst: number;
  /** The largest control-plane answer read, in bytes. */
  controlPlaneMaxResponseBytes: number;
  reconcileTimeoutMs: number;
  opsHost: string;
  opsPort: number;
  leaderElection: boolean;
  leaseName: string;
  leaseNamespace: string;
  /** How long a Lease holds without renewal; renew deadline 2/3 and retry period 2/15 of it. */
  leaseDurationMs: number;
  /** Shards the listener's deployments are split into (1: one Lease, `leaseName`). */
  shards: number;
  /** The restart memo's ConfigMap in `leaseNamespace` (ADR 0010); undefined: none kept. */
  restartMemo: string | undefined;
  identity: string;
  shutdownGracePeriodMs: number;
  dryRun: boolean;
  deleteVolumes: boolean;
  /** Keep the owned objects current with watches (ADR 0014); false: list at every resync. */
  watch: boolean;
  recreateStatefulSets: boolean;
  redisImage: string;
  postgresImage: string;
  storageClass: string | undefined;
  clusterDomain: string;
  podSecurity: PodSecurityLevel;
  allowHostPath: boolean;
  allowPrivileged: boolean;
  /** Volume types allowed besides the default list; [] when unset. */
  allowedVolumeTypes: string[];
  logLevel: string;
  /**
   * The renderer's settings, made once from the `--settings` file, the defaults and the flags
   * (the render members above are read off them, for the checks and messages that name flags).
   */
  render: RenderSettings;
  /** What deployments may refer to (mapped onto the render settings' `references`). */
  references: {
    /** The agent's own ServiceAccount (`--service-account`). */
    serviceAccount: string | undefined;
    /** The namespace the agent runs in (`MOORING_POD_NAMESPACE`), where that account lives. */
    podNamespace: string | undefined;
    /** The ServiceAccounts deployments may run as; undefined: any but the agent's. */
    deploymentServiceAccounts: string[] | undefined;
    allowServiceAccountTokens: boolean;
    /** Namespace → tenant id (lower case). */
    namespaceTenants: Record<string, string>;
  };
}

export type ConfigResult =
  | { ok: true; config: AgentConfig; help: false }
  | { ok: false; problems: string[]; help: false }
  | { ok: true; help: true };

/**
 * Parses the agent settings from flags, environment and the settings file. Returns every problem
 * at once (one line each) rather than stopping at the first, so an operator fixes a manifest in
 * one go.
 */
export function parseAgentConfig(sources: ConfigSources): ConfigResult {
  const flags = parseAgentFlags(sources);
  if (flags.help) return { ok: true, help: true };
  const { values, apiKey, problems } = flags;
  if (!flags.checked) return { ok: false, problems, help: false };
  const tenants = values.namespaceTenants as Record<string, string> | undefined;
  const namespaceList = values.namespaces as string[] | undefined;
  const settingsFile = readSettingsFile(
    values.settings as string | undefined,
    flagLabel('settings'),
    sources.readFile ?? ((p) => readFileSync(p, 'utf8')),
    problems,
  );
  // The file's bindings are checked as the flag's are, unless the flag replaces them.
  for (const ns of Object.keys(tenants ? {} : (settingsFile.references?.namespaceTenants ?? {}))) {
    if (namespaceList && !namespaceList.includes(ns))
      problems.push(
        `${flagLabel('settings')}: "${values.settings}": references.namespaceTenants: namespace "${ns}" is not one of --namespaces`,
      );
  }

  if (problems.length > 0) return { ok: false, problems, help: false };

  // The renderer's settings, made once: the file merged over the one table of defaults, then the
  // flags and variables set. The members below that a flag sets are read off them.
  const render = mergeRenderSettings(values.listenerId as string, settingsFile, {
    redisImage: values.redisImage as string | undefined,
    postgresImage: values.postgresImage as string | undefined,
    storageClassName: values.storageClass as string | undefined,
    clusterDomain: values.clusterDomain as string | undefined,
    policy: {
      podSecurity: values.podSecurity as PodSecurityLevel | undefined,
      allowHostPath: values.allowHostPath as boolean | undefined,
      allowPrivileged: values.allowPrivileged as boolean | undefined,
      allowedVolumeTypes: values.allowedVolumeTypes as string[] | undefined,
    },
    references: {
      agentServiceAccount: values.serviceAccount as string | undefined,
      agentNamespace: sources.env.MOORING_POD_NAMESPACE?.trim() || undefined,
      serviceAccounts: values.deploymentServiceAccounts as string[] | undefined,
      allowServiceAccountTokens: values.allowServiceAccountTokens as boolean | undefined,
      namespaceTenants: tenants,
    },
  });
  const refs = render.references;
  const namespaces = values.namespaces as string[];
  const seconds = (key: string) => Math.round((values[key] as number) * 1000);
  const config: AgentConfig = {
    controlPlaneUrl: (values.controlPlaneUrl as string).replace(/\/+$/, ''),
    apiKey: apiKey!,
    tenantId: values.tenantId as string | undefined,
    controlPlaneCaFile: values.controlPlaneCaFile as string | undefined,
    controlPlaneClientCertFile: values.controlPlaneClientCertFile as string | undefined,
    controlPlaneClientKeyFile: values.controlPlaneClientKeyFile as string | undefined,
    listenerId: values.listenerId as string,
    namespaces,
    kubeconfig: values.kubeconfig as string | undefined,
    pollIntervalMs: seconds('pollInterval'),
    resyncIntervalMs: values.resyncInterval === undefined ? 0 : seconds('resyncInterval'),
    heartbeatIntervalMs: seconds('heartbeatInterval'),
    concurrency: values.concurrency as number,
    kubeQps: values.kubeQps as number | 'auto',
    kubeBurst: values.kubeBurst as number,
    controlPlaneMaxResponseBytes: (values.controlPlaneMaxResponse as number) * 1024 * 1024,
    reconcileTimeoutMs: seconds('reconcileTimeout'),
    // The pod's own address (the chart passes status.podIP), never every interface by default.
    opsHost:
      (values.opsHost as string | undefined) ??
      (sources.env.MOORING_POD_IP?.trim() || undefined) ??
      '127.0.0.1',
    opsPort: values.opsPort as number,
    leaderElection: values.leaderElection as boolean,
    leaseName: values.leaseName as string,
    leaseNamespace:
      (values.leaseNamespace as string | undefined) ??
      (sources.env.MOORING_POD_NAMESPACE || undefined) ??
      namespaces[0]!,
    leaseDurationMs: seconds('leaseDuration'),
    shards: values.shards as number,
    restartMemo: values.restartMemo as string | undefined,
    identity: (values.identity as string | undefined) ?? (sources.hostname ?? hostname)(),
    shutdownGracePeriodMs: seconds('shutdownGracePeriod'),
    dryRun: values.dryRun as boolean,
    deleteVolumes: values.deleteVolumes as boolean,
    watch: values.watch as boolean,
    recreateStatefulSets: values.recreateStatefulSets as boolean,
    redisImage: render.redisImage,
    postgresImage: render.postgresImage,
    storageClass: render.storageClassName,
    clusterDomain: render.clusterDomain,
    podSecurity: render.policy.podSecurity,
    allowHostPath: render.policy.allowHostPath,
    allowPrivileged: render.policy.allowPrivileged,
    allowedVolumeTypes: [...render.policy.allowedVolumeTypes],
    logLevel: values.logLevel as string,
    render,
    references: {
      serviceAccount: refs.agentServiceAccount,
      podNamespace: refs.agentNamespace,
      deploymentServiceAccounts: refs.serviceAccounts ? [...refs.serviceAccounts] : undefined,
      allowServiceAccountTokens: refs.allowServiceAccountTokens,
      namespaceTenants: { ...refs.namespaceTenants },
    },
  };
  return { ok: true, config, help: false };
}
