/** The parsed agent settings, as `parseAgentConfig` returns them. */
import type { PodSecurityLevel } from '../render/pod-security-lists.ts';
import type { RenderSettingsFile } from '../render/settings-file.ts';

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
  /** The parsed `--settings` file ({} without one); the members above are already merged from it. */
  settingsFile: RenderSettingsFile;
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
