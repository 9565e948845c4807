/**
 * The agent's settings (`mooring run`, `mooring diff`): one table drives parsing of flags and
 * environment, validation, and the `--help` text, so the three can never disagree. Flags win over
 * the environment. Every problem is reported as one line naming the flag and its env twin; secret
 * values (the API key) are never echoed.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import {
  extraVolumeTypeProblem,
  POD_SECURITY_LEVELS,
  type PodSecurityLevel,
} from './render/pod-security-lists.ts';
import { mergeRenderSettings, RENDER_SETTINGS_DEFAULTS as RD } from './render/settings.ts';
import type { RenderSettingsFile } from './render/settings-file.ts';
import { readSettingsFile } from './settings-file.ts';

/** How a raw string becomes a value. */
type Kind =
  | 'string'
  | 'url'
  | 'uuid'
  | 'list'
  | 'seconds'
  | 'int'
  | 'rate'
  | 'port'
  | 'bool'
  | 'level'
  | 'names'
  | 'tenants'
  | 'podSecurity'
  | 'volumeTypes';

interface Setting {
  /** Key in `AgentConfig` (before unit conversion). */
  key: string;
  flag: string;
  env: string;
  kind: Kind;
  /** The default as text for `--help` (also parsed when `value` is absent). */
  defaultText: string;
  /** The default as a raw string, when there is a literal one. */
  value?: string;
  unit?: string;
  description: string;
  /** Never echo the value in problems. */
  secret?: boolean;
}

/** The agreed settings (docs/operator-guide.md mirrors this table). */
// biome-ignore format: one row per setting reads as the table it is
/**
 * `--kube-qps auto`: the client-side limit until the API server shows it runs API Priority and
 * Fairness (then none: the server is fair and says 429), as kubelet's and Argo CD's 50/100.
 */
export const AUTO_KUBE_QPS = 50;

export const SETTINGS: readonly Setting[] = [
  {
    key: 'controlPlaneUrl',
    flag: 'control-plane-url',
    env: 'MOORING_CONTROL_PLANE_URL',
    kind: 'url',
    defaultText: '(required)',
    description: 'base URL of the control plane',
  },
  {
    key: 'apiKey',
    flag: 'api-key',
    env: 'MOORING_API_KEY',
    kind: 'string',
    defaultText: '-',
    secret: true,
    description: 'API key (prefer --api-key-file)',
  },
  {
    key: 'apiKeyFile',
    flag: 'api-key-file',
    env: 'MOORING_API_KEY_FILE',
    kind: 'string',
    defaultText: '-',
    description: 'file holding the API key (a mounted Secret); one of the two is required',
  },
  // Reaching the control plane: a private CA and a client certificate (HTTPS_PROXY/NO_PROXY come from the environment).
  {
    key: 'controlPlaneCaFile',
    flag: 'control-plane-ca-file',
    env: 'MOORING_CONTROL_PLANE_CA_FILE',
    kind: 'string',
    defaultText: "Node's roots + $NODE_EXTRA_CA_CERTS",
    description:
      "PEM file of the CA(s) that sign the control plane's certificate (a private CA, a TLS-inspecting proxy's); replaces the default roots for the control plane",
  },
  {
    key: 'controlPlaneClientCertFile',
    flag: 'control-plane-client-cert-file',
    env: 'MOORING_CONTROL_PLANE_CLIENT_CERT_FILE',
    kind: 'string',
    defaultText: '-',
    description:
      'PEM client certificate for mutual TLS with the control plane (with --control-plane-client-key-file)',
  },
  {
    key: 'controlPlaneClientKeyFile',
    flag: 'control-plane-client-key-file',
    env: 'MOORING_CONTROL_PLANE_CLIENT_KEY_FILE',
    kind: 'string',
    defaultText: '-',
    description: 'PEM private key of that certificate',
  },
  {
    key: 'tenantId',
    flag: 'tenant-id',
    env: 'MOORING_TENANT_ID',
    kind: 'uuid',
    defaultText: '-',
    description: 'forwarded as X-Tenant-Id',
  },
  {
    key: 'listenerId',
    flag: 'listener-id',
    env: 'MOORING_LISTENER_ID',
    kind: 'uuid',
    defaultText: '(required)',
    description: "this agent's listener (uuid)",
  },
  {
    key: 'namespaces',
    flag: 'namespaces',
    env: 'MOORING_NAMESPACES',
    kind: 'list',
    defaultText: '(required)',
    description: 'comma list of namespaces the agent may write',
  },
  {
    key: 'kubeconfig',
    flag: 'kubeconfig',
    env: 'MOORING_KUBECONFIG',
    kind: 'string',
    defaultText: 'in-cluster, then $KUBECONFIG',
    description: 'kubeconfig file',
  },
  {
    key: 'pollInterval',
    flag: 'poll-interval',
    env: 'MOORING_POLL_INTERVAL',
    kind: 'seconds',
    value: '15',
    defaultText: '15',
    unit: 'seconds',
    description: 'time between the starts of two polls (jittered up to 10% sooner)',
  },
  {
    key: 'resyncInterval',
    flag: 'resync-interval',
    env: 'MOORING_RESYNC_INTERVAL',
    kind: 'seconds',
    defaultText: 'every poll',
    unit: 'seconds',
    description:
      'time between full resyncs (every owned object listed, drift repaired, orphans pruned); polls in between reconcile changed deployments only. A resync that takes longer than the poll interval is followed by a rest as long as it took',
  },
  {
    key: 'heartbeatInterval',
    flag: 'heartbeat-interval',
    env: 'MOORING_HEARTBEAT_INTERVAL',
    kind: 'seconds',
    value: '60',
    defaultText: '60',
    unit: 'seconds',
    description: 'time between listener PATCHes',
  },
  {
    key: 'concurrency',
    flag: 'concurrency',
    env: 'MOORING_CONCURRENCY',
    kind: 'int',
    value: '8',
    defaultText: '8',
    unit: 'reconciles',
    description: 'reconciles at once',
  },
  {
    key: 'kubeQps',
    flag: 'kube-qps',
    env: 'MOORING_KUBE_QPS',
    kind: 'rate',
    value: 'auto',
    defaultText: 'auto',
    unit: 'requests/s',
    description: `Kubernetes API requests a second on average, client side (0 = no limit; auto = ${AUTO_KUBE_QPS} until the API server shows it runs API Priority and Fairness, then none)`,
  },
  {
    key: 'kubeBurst',
    flag: 'kube-burst',
    env: 'MOORING_KUBE_BURST',
    kind: 'int',
    value: '100',
    defaultText: '100',
    unit: 'requests',
    description: 'Kubernetes API requests sent at once before --kube-qps applies',
  },
  {
    key: 'reconcileTimeout',
    flag: 'reconcile-timeout',
    env: 'MOORING_RECONCILE_TIMEOUT',
    kind: 'seconds',
    value: '120',
    defaultText: '120',
    unit: 'seconds',
    description: 'time one reconcile may take',
  },
  {
    key: 'opsHost',
    flag: 'ops-host',
    env: 'MOORING_OPS_HOST',
    kind: 'string',
    defaultText: '$MOORING_POD_IP, else 127.0.0.1',
    description:
      'address of /healthz /readyz /metrics /status; bound to another address than loopback, the agent also listens on 127.0.0.1 (same port). /status answers loopback clients only',
  },
  {
    key: 'opsPort',
    flag: 'ops-port',
    env: 'MOORING_OPS_PORT',
    kind: 'port',
    value: '8080',
    defaultText: '8080',
    unit: 'port',
    description: 'port of the same (0 = any free port)',
  },
  {
    key: 'leaderElection',
    flag: 'leader-election',
    env: 'MOORING_LEADER_ELECTION',
    kind: 'bool',
    value: 'false',
    defaultText: 'false',
    description: 'elect a leader on a Lease; only it writes',
  },
  {
    key: 'leaseName',
    flag: 'lease-name',
    env: 'MOORING_LEASE_NAME',
    kind: 'string',
    value: 'mooring-leader',
    defaultText: 'mooring-leader',
    description: 'Lease name',
  },
  {
    key: 'leaseNamespace',
    flag: 'lease-namespace',
    env: 'MOORING_LEASE_NAMESPACE',
    kind: 'string',
    defaultText: '$MOORING_POD_NAMESPACE, else first of --namespaces',
    description: 'Lease namespace',
  },
  {
    key: 'identity',
    flag: 'identity',
    env: 'MOORING_POD_NAME',
    kind: 'string',
    defaultText: 'hostname',
    description: "this replica's identity in the Lease",
  },
  {
    key: 'shutdownGracePeriod',
    flag: 'shutdown-grace-period',
    env: 'MOORING_SHUTDOWN_GRACE_PERIOD',
    kind: 'seconds',
    value: '20',
    defaultText: '20',
    unit: 'seconds',
    description: 'time in-flight reconciles get on SIGTERM',
  },
  {
    key: 'dryRun',
    flag: 'dry-run',
    env: 'MOORING_DRY_RUN',
    kind: 'bool',
    value: 'false',
    defaultText: 'false',
    description: 'observe and report, write nothing',
  },
  {
    key: 'deleteVolumes',
    flag: 'delete-volumes',
    env: 'MOORING_DELETE_VOLUMES',
    kind: 'bool',
    value: 'false',
    defaultText: 'false',
    description: 'also delete PVCs when a deployment is deleted',
  },
  {
    key: 'recreateStatefulSets',
    flag: 'recreate-statefulsets',
    env: 'MOORING_RECREATE_STATEFULSETS',
    kind: 'bool',
    value: 'false',
    defaultText: 'false',
    description: 'allow recreating a StatefulSet on an immutable change (volumes kept)',
  },
  // The render settings file; the flags below override its members (their defaults are its defaults).
  {
    key: 'settings',
    flag: 'settings',
    env: 'MOORING_SETTINGS',
    kind: 'string',
    defaultText: '(none)',
    description:
      'render settings file, YAML or JSON: the file `mooring render --settings` takes, merged over the same defaults',
  },
  {
    key: 'redisImage',
    flag: 'redis-image',
    env: 'MOORING_REDIS_IMAGE',
    kind: 'string',
    defaultText: `settings redisImage, else ${RD.redisImage}`,
    description: 'image of the Redis component',
  },
  {
    key: 'postgresImage',
    flag: 'postgres-image',
    env: 'MOORING_POSTGRES_IMAGE',
    kind: 'string',
    defaultText: `settings postgresImage, else ${RD.postgresImage}`,
    description: 'image of the Postgres component',
  },
  {
    key: 'storageClass',
    flag: 'storage-class',
    env: 'MOORING_STORAGE_CLASS',
    kind: 'string',
    defaultText: 'settings storageClassName, else the cluster default',
    description: 'storageClassName of Postgres volumes',
  },
  {
    key: 'clusterDomain',
    flag: 'cluster-domain',
    env: 'MOORING_CLUSTER_DOMAIN',
    kind: 'string',
    defaultText: `settings clusterDomain, else ${RD.clusterDomain}`,
    description: 'DNS suffix in service URIs',
  },
  // What deployments may refer to (render settings `references`).
  {
    key: 'serviceAccount',
    flag: 'service-account',
    env: 'MOORING_SERVICE_ACCOUNT',
    kind: 'string',
    defaultText: '-',
    description:
      "the agent's own ServiceAccount (the chart sets it): no deployment may run as it (in $MOORING_POD_NAMESPACE; in any namespace when that is unset)",
  },
  {
    key: 'deploymentServiceAccounts',
    flag: 'deployment-service-accounts',
    env: 'MOORING_DEPLOYMENT_SERVICE_ACCOUNTS',
    kind: 'names',
    defaultText: "any but the agent's",
    description: 'comma list of the ServiceAccounts a deployment may run as',
  },
  {
    key: 'allowServiceAccountTokens',
    flag: 'allow-service-account-tokens',
    env: 'MOORING_ALLOW_SERVICE_ACCOUNT_TOKENS',
    kind: 'bool',
    defaultText: 'settings references.allowServiceAccountTokens, else false',
    description: 'allow projected serviceAccountToken volume sources',
  },
  {
    key: 'namespaceTenants',
    flag: 'namespace-tenants',
    env: 'MOORING_NAMESPACE_TENANTS',
    kind: 'tenants',
    defaultText: 'none bound',
    description: "comma list of namespace=tenant-uuid: a namespace takes only its tenant's deployments",
  },
  {
    key: 'podSecurity',
    flag: 'pod-security',
    env: 'MOORING_POD_SECURITY',
    kind: 'podSecurity',
    defaultText: `settings policy.podSecurity, else ${RD.policy.podSecurity}`,
    description: 'policy: the Pod Security Standard every rendered pod must satisfy: baseline or restricted',
  },
  {
    key: 'allowHostPath',
    flag: 'allow-host-path',
    env: 'MOORING_ALLOW_HOST_PATH',
    kind: 'bool',
    defaultText: 'settings policy.allowHostPath, else false',
    description: 'policy: allow hostPath volumes (exempts the HostPath Volumes control)',
  },
  {
    key: 'allowPrivileged',
    flag: 'allow-privileged',
    env: 'MOORING_ALLOW_PRIVILEGED',
    kind: 'bool',
    defaultText: 'settings policy.allowPrivileged, else false',
    description:
      'policy: allow privileged containers, privilege escalation and any capabilities (exempts the Privileged Containers, Privilege Escalation and Capabilities controls)',
  },
  {
    key: 'allowedVolumeTypes',
    flag: 'allowed-volume-types',
    env: 'MOORING_ALLOWED_VOLUME_TYPES',
    kind: 'volumeTypes',
    defaultText: 'settings policy.allowedVolumeTypes, else none',
    description:
      'policy: comma list of volume types allowed besides configMap, csi, downwardAPI, emptyDir, ephemeral, image, persistentVolumeClaim, projected and secret (e.g. nfs,iscsi)',
  },
  {
    key: 'logLevel',
    flag: 'log-level',
    env: 'MOORING_LOG_LEVEL',
    kind: 'level',
    value: 'info',
    defaultText: 'info',
    description: 'log level: fatal, error, warn, info, debug, trace, silent',
  },
];

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
  reconcileTimeoutMs: number;
  opsHost: string;
  opsPort: number;
  leaderElection: boolean;
  leaseName: string;
  leaseNamespace: string;
  identity: string;
  shutdownGracePeriodMs: number;
  dryRun: boolean;
  deleteVolumes: boolean;
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

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Splits a comma list, trimming items and dropping empty ones. */
function commaList(s: string): string[] {
  return s
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

/** `ns=uuid,ns2=uuid` as a map; each namespace once. */
const tenantsSchema = z.string().transform((s, ctx) => {
  const out: Record<string, string> = {};
  for (const entry of commaList(s)) {
    const [ns = '', tenant = '', ...rest] = entry.split('=').map((p) => p.trim());
    if (rest.length > 0 || !DNS_LABEL.test(ns) || !z.uuid().safeParse(tenant).success) {
      ctx.addIssue({ code: 'custom', message: 'each entry must be namespace=tenant-uuid' });
      return z.NEVER;
    }
    if (Object.hasOwn(out, ns)) {
      ctx.addIssue({ code: 'custom', message: `namespace "${ns}" is bound twice` });
      return z.NEVER;
    }
    out[ns] = tenant.toLowerCase();
  }
  if (Object.keys(out).length === 0) {
    ctx.addIssue({ code: 'custom', message: 'must bind at least one namespace' });
    return z.NEVER;
  }
  return out;
});

/** One zod schema per kind: raw string in, value out. Messages say what is expected. */
const KIND_SCHEMAS: Record<Kind, z.ZodType> = {
  string: z.string().trim().min(1, 'must not be empty'),
  url: z
    .string()
    .trim()
    .refine((s) => /^https?:\/\//.test(s) && URL.canParse(s), 'must be an http(s) URL'),
  uuid: z.string().trim().pipe(z.uuid('must be a uuid')),
  list: z
    .string()
    .transform(commaList)
    .pipe(
      z
        .array(z.string().regex(DNS_LABEL, 'each namespace must be a DNS-1123 label'))
        .min(1, 'must name at least one namespace'),
    ),
  seconds: z
    .string()
    .trim()
    .regex(/^\d+(\.\d+)?$/, 'must be a positive number of seconds')
    .transform(Number)
    .pipe(z.number().positive('must be a positive number of seconds')),
  int: z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(1000, 'must be at most 1000')),
  rate: z
    .string()
    .trim()
    .regex(/^(auto|\d+(\.\d+)?)$/, 'must be auto or a number of requests a second (0 = no limit)')
    .transform((v) => (v === 'auto' ? ('auto' as const) : Number(v)))
    .pipe(z.union([z.literal('auto'), z.number().max(100_000, 'must be at most 100000')])),
  port: z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a port number')
    .transform(Number)
    .pipe(z.number().int().min(0).max(65535, 'must be a port number (0-65535)')),
  bool: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no'], 'must be true or false'))
    .transform((s) => s === 'true' || s === '1' || s === 'yes'),
  level: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(LEVELS, `must be one of ${LEVELS.join(', ')}`)),
  names: z
    .string()
    .transform(commaList)
    .pipe(
      z
        .array(z.string().regex(DNS_SUBDOMAIN, 'each name must be a DNS-1123 subdomain'))
        .min(1, 'must name at least one'),
    ),
  tenants: tenantsSchema,
  podSecurity: z
    .string()
    .trim()
    .pipe(z.enum(POD_SECURITY_LEVELS, `must be one of ${POD_SECURITY_LEVELS.join(', ')}`)),
  volumeTypes: z
    .string()
    .transform(commaList)
    .pipe(
      z.array(
        z.string().superRefine((t, ctx) => {
          const problem = extraVolumeTypeProblem(t, '--allow-host-path');
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
      ),
    ),
};

export interface ConfigSources {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** Reads the API key file; injectable for tests. */
  readFile?: (path: string) => string;
  /** The default identity; injectable for tests. */
  hostname?: () => string;
}

export type ConfigResult =
  | { ok: true; config: AgentConfig; help: false }
  | { ok: false; problems: string[]; help: false }
  | { ok: true; help: true };

function label(s: Setting): string {
  return `--${s.flag} (${s.env})`;
}

/** Collects the raw string of each setting: flags win over the environment. */
function collectRaw(
  argv: readonly string[],
  env: ConfigSources['env'],
): { raw: Map<string, string>; help: boolean; problems: string[] } {
  const options: Record<string, { type: 'string' | 'boolean' }> = { help: { type: 'boolean' } };
  for (const s of SETTINGS) options[s.flag] = { type: s.kind === 'bool' ? 'boolean' : 'string' };
  const raw = new Map<string, string>();
  const problems: string[] = [];
  let values: Record<string, string | boolean | undefined> = {};
  try {
    values = parseArgs({
      args: [...argv],
      options,
      strict: true,
      allowPositionals: false,
      allowNegative: true,
    }).values as Record<string, string | boolean | undefined>;
  } catch (err) {
    // parseArgs names the offending flag in its message; it never contains a flag's value.
    problems.push((err as Error).message.split('\n')[0] ?? String(err));
    return { raw, help: false, problems };
  }
  for (const s of SETTINGS) {
    const fromFlag = values[s.flag];
    const fromEnv = env[s.env];
    if (fromFlag !== undefined) raw.set(s.key, String(fromFlag));
    else if (fromEnv !== undefined && fromEnv !== '') raw.set(s.key, fromEnv);
    else if (s.value !== undefined) raw.set(s.key, s.value);
  }
  return { raw, help: values.help === true, problems };
}

/**
 * Parses the agent settings from flags and environment. Returns every problem at once (one line
 * each) rather than stopping at the first, so an operator fixes a manifest in one go.
 */
export function parseAgentConfig(sources: ConfigSources): ConfigResult {
  const { raw, help, problems } = collectRaw(sources.argv, sources.env);
  if (help) return { ok: true, help: true };
  if (problems.length > 0) return { ok: false, problems, help: false };

  const values: Record<string, unknown> = {};
  for (const s of SETTINGS) {
    const text = raw.get(s.key);
    if (text === undefined) continue;
    const parsed = KIND_SCHEMAS[s.kind].safeParse(text);
    if (parsed.success) values[s.key] = parsed.data;
    else {
      const why = parsed.error.issues[0]?.message ?? 'is invalid';
      problems.push(`${label(s)}: ${why}${s.secret ? '' : ` (got "${text}")`}`);
    }
  }
  const setting = (key: string) => SETTINGS.find((s) => s.key === key)!;
  for (const key of ['controlPlaneUrl', 'listenerId', 'namespaces']) {
    if (!raw.has(key)) problems.push(`${label(setting(key))}: is required`);
  }

  const tenants = values.namespaceTenants as Record<string, string> | undefined;
  const namespaceList = values.namespaces as string[] | undefined;
  for (const ns of Object.keys(tenants ?? {})) {
    // A binding for a namespace the agent does not write is a typo that would bind nothing.
    if (namespaceList && !namespaceList.includes(ns))
      problems.push(`${label(setting('namespaceTenants'))}: namespace "${ns}" is not one of --namespaces`);
  }

  let apiKey: string | undefined;
  if (raw.has('apiKey') && raw.has('apiKeyFile')) {
    problems.push('--api-key (MOORING_API_KEY) and --api-key-file (MOORING_API_KEY_FILE): set only one');
  } else if (typeof values.apiKey === 'string') {
    apiKey = values.apiKey;
  } else if (typeof values.apiKeyFile === 'string') {
    const file = values.apiKeyFile;
    try {
      apiKey = (sources.readFile ?? ((p) => readFileSync(p, 'utf8')))(file).trim();
      if (apiKey === '') problems.push(`${label(setting('apiKeyFile'))}: file "${file}" is empty`);
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'unreadable';
      problems.push(`${label(setting('apiKeyFile'))}: cannot read "${file}" (${code})`);
    }
  } else if (!raw.has('apiKey')) {
    problems.push('--api-key-file (MOORING_API_KEY_FILE) or --api-key (MOORING_API_KEY): one is required');
  }

  if (raw.has('controlPlaneClientCertFile') !== raw.has('controlPlaneClientKeyFile')) {
    problems.push(
      `${label(setting('controlPlaneClientCertFile'))} and ${label(setting('controlPlaneClientKeyFile'))}: set both or neither`,
    );
  }
  const settingsFile = readSettingsFile(
    values.settings as string | undefined,
    label(SETTINGS.find((s) => s.key === 'settings')!),
    sources.readFile ?? ((p) => readFileSync(p, 'utf8')),
    problems,
  );
  // The file's bindings are checked as the flag's are, unless the flag replaces them.
  for (const ns of Object.keys(tenants ? {} : (settingsFile.references?.namespaceTenants ?? {}))) {
    if (namespaceList && !namespaceList.includes(ns))
      problems.push(
        `${label(setting('settings'))}: "${values.settings}": references.namespaceTenants: namespace "${ns}" is not one of --namespaces`,
      );
  }

  if (problems.length > 0) return { ok: false, problems, help: false };

  // The file merged over the one table of defaults; a flag or variable set overrides its member.
  const file = mergeRenderSettings(values.listenerId as string, settingsFile);
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
    identity: (values.identity as string | undefined) ?? (sources.hostname ?? hostname)(),
    shutdownGracePeriodMs: seconds('shutdownGracePeriod'),
    dryRun: values.dryRun as boolean,
    deleteVolumes: values.deleteVolumes as boolean,
    recreateStatefulSets: values.recreateStatefulSets as boolean,
    redisImage: (values.redisImage as string | undefined) ?? file.redisImage,
    postgresImage: (values.postgresImage as string | undefined) ?? file.postgresImage,
    storageClass: (values.storageClass as string | undefined) ?? file.storageClassName,
    clusterDomain: (values.clusterDomain as string | undefined) ?? file.clusterDomain,
    podSecurity: (values.podSecurity as PodSecurityLevel | undefined) ?? file.policy.podSecurity,
    allowHostPath: (values.allowHostPath as boolean | undefined) ?? file.policy.allowHostPath,
    allowPrivileged: (values.allowPrivileged as boolean | undefined) ?? file.policy.allowPrivileged,
    allowedVolumeTypes: (values.allowedVolumeTypes as string[] | undefined) ?? [
      ...file.policy.allowedVolumeTypes,
    ],
    logLevel: values.logLevel as string,
    settingsFile,
    references: {
      serviceAccount: (values.serviceAccount as string | undefined) ?? file.references.agentServiceAccount,
      podNamespace: sources.env.MOORING_POD_NAMESPACE?.trim() || file.references.agentNamespace,
      deploymentServiceAccounts:
        (values.deploymentServiceAccounts as string[] | undefined) ??
        (file.references.serviceAccounts ? [...file.references.serviceAccounts] : undefined),
      allowServiceAccountTokens:
        (values.allowServiceAccountTokens as boolean | undefined) ??
        file.references.allowServiceAccountTokens,
      namespaceTenants: { ...(tenants ?? file.references.namespaceTenants) },
    },
  };
  return { ok: true, config, help: false };
}

/** The `--help` text of a command taking the agent settings, generated from `SETTINGS`. */
export function configHelp(command: string, summary: string): string {
  const rows = SETTINGS.map((s) => {
    const left = s.kind === 'bool' ? `--${s.flag}, --no-${s.flag}` : `--${s.flag} <${s.unit ?? 'value'}>`;
    return { left, s };
  });
  const width = Math.max(...rows.map((r) => r.left.length));
  const lines = rows.map(
    ({ left, s }) =>
      `  ${left.padEnd(width)}  ${s.description}\n  ${''.padEnd(width)}  env ${s.env}; default: ${s.defaultText}${s.unit ? ` (${s.unit})` : ''}`,
  );
  return [
    `Usage: mooring ${command} [flags]`,
    '',
    summary,
    '',
    'Every flag has an environment twin; a flag wins over its variable. Booleans accept',
    'true/false, 1/0, yes/no in the environment.',
    '',
    'Flags:',
    ...lines,
    `  ${'--help'.padEnd(width)}  print this text`,
    '',
  ].join('\n');
}
