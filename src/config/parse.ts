/**
 * Parsing the agent's settings from flags and environment (flags win), checking each against its
 * kind and the settings together. Every problem is one line naming the flag and its env twin;
 * secret values (the API key) are never echoed.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import type { PodSecurityLevel } from '../render/pod-security-lists.ts';
import { mergeRenderSettings } from '../render/settings.ts';
import { readSettingsFile } from '../settings-file.ts';
import type { AgentConfig } from './agent-config.ts';
import type { Setting } from './setting.ts';
import { SETTINGS } from './settings-table.ts';
import { joinNegativeValues } from './negative-values.ts';
import { KIND_SCHEMAS } from './value-schemas.ts';

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

/** The flags that take a value (every setting but the booleans). */
const VALUE_FLAGS: ReadonlySet<string> = new Set(
  SETTINGS.filter((s) => s.kind !== 'bool').map((s) => s.flag),
);

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
      args: joinNegativeValues(argv, VALUE_FLAGS),
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
    restartMemo: values.restartMemo as string | undefined,
    identity: (values.identity as string | undefined) ?? (sources.hostname ?? hostname)(),
    shutdownGracePeriodMs: seconds('shutdownGracePeriod'),
    dryRun: values.dryRun as boolean,
    deleteVolumes: values.deleteVolumes as boolean,
    watch: values.watch as boolean,
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
