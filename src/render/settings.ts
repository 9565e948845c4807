import {
  defaultReferenceSettings,
  mergeReferenceSettings,
  type ReferenceSettings,
} from './reference-settings.ts';
import {
  defaultExposureSettings,
  type ExposureSettings,
  mergeExposureSettings,
} from './exposure-settings.ts';
import type { PodSecurityLevel } from '../pod-security-lists.ts';
import { RENDER_SCALAR_DEFAULTS } from '../render-defaults.ts';
import {
  DEFAULT_POD_METADATA_POLICY,
  mergePodMetadataPolicy,
  type PodMetadataPolicy,
} from './pod-metadata-policy.ts';
import type { RenderSettingsFile } from './settings-file.ts';
import { mergeWorkloadSettings, PROBE_DEFAULTS, type WorkloadSettings } from './settings-workloads.ts';

export { APP_COMPONENTS, type AppComponent, COMPONENTS, type Component } from './components.ts';
import type { Component } from './components.ts';

/** What the operator decides about rendering (agent settings, or `mooring render --settings`). */
export interface RenderSettings extends WorkloadSettings {
  /** This agent's listener id: the value of the `mooring.dev/listener-id` label. */
  listenerId: string;
  /** Image of the bundled Redis (when the deployment brings no `REDIS_URI_CUSTOM`). */
  redisImage: string;
  /** Image of the bundled Postgres (when the deployment brings no `POSTGRES_URI_CUSTOM`). */
  postgresImage: string;
  /** StorageClass of the Postgres volume; absent: the cluster's default class. */
  storageClassName?: string | undefined;
  /** The cluster's DNS domain, used in service addresses (`svc.<clusterDomain>`). */
  clusterDomain: string;
  /** What the policy lets a ResourceSpec ask for (docs/configuration.md, "Policy"). */
  policy: RenderPolicy;
  /** Per-component command override (the container's `command`); absent: the image's entrypoint. */
  commands?: Partial<Record<Component, string[]>> | undefined;
  /** What a deployment may refer to: service accounts, tokens, its namespace's tenant (reference-settings.ts). */
  references: ReferenceSettings;
  /** How a deployment with a `custom_url` is exposed (exposure-settings.ts); default none. */
  exposure: ExposureSettings;
}

/**
 * The security policy. Every rendered pod must satisfy the Pod Security Standard `podSecurity`;
 * the other members are exemptions of named controls (see `PodSecurityExemptions`).
 */
export interface RenderPolicy {
  /** `baseline` (default) or `restricted`. */
  podSecurity: PodSecurityLevel;
  /** Exempts "HostPath Volumes" (and hostPath under restricted "Volume Types"). Default false. */
  allowHostPath: boolean;
  /**
   * Exempts "Privileged Containers", "Privilege Escalation" and "Capabilities" (and lets a mount
   * use Bidirectional propagation, which needs a privileged container). Default false.
   */
  allowPrivileged: boolean;
  /**
   * Volume types allowed besides the default list (`RESTRICTED_VOLUME_TYPES`), e.g. nfs; under
   * restricted they are exempt from "Volume Types". Never hostPath, gitRepo or flexVolume.
   */
  allowedVolumeTypes: readonly string[];
  /** CSI drivers an inline `csi` volume may name. Default none. */
  allowedCsiDrivers: readonly string[];
  /** Whether a projected volume may have a `podCertificate` source. Default false. */
  allowPodCertificates: boolean;
  /** Which label and annotation keys a record may put on pods (pod-metadata-policy.ts). */
  podMetadata: PodMetadataPolicy;
}

/**
 * Defaults of the render settings, the one table `mooring render` and `mooring run` both start
 * from (documented in docs/configuration.md, "Rendering defaults").
 */
export const RENDER_SETTINGS_DEFAULTS = {
  redisImage: RENDER_SCALAR_DEFAULTS.redisImage,
  postgresImage: RENDER_SCALAR_DEFAULTS.postgresImage,
  clusterDomain: RENDER_SCALAR_DEFAULTS.clusterDomain,
  policy: {
    podSecurity: RENDER_SCALAR_DEFAULTS.podSecurity,
    allowHostPath: false,
    allowPrivileged: false,
    allowedVolumeTypes: [],
    allowedCsiDrivers: [],
    allowPodCertificates: false,
    podMetadata: DEFAULT_POD_METADATA_POLICY,
  },
} as const satisfies { policy: RenderPolicy } & Record<string, unknown>;

/** The default settings for a listener. */
export function defaultRenderSettings(listenerId: string): RenderSettings {
  return {
    listenerId,
    redisImage: RENDER_SETTINGS_DEFAULTS.redisImage,
    postgresImage: RENDER_SETTINGS_DEFAULTS.postgresImage,
    clusterDomain: RENDER_SETTINGS_DEFAULTS.clusterDomain,
    policy: {
      ...RENDER_SETTINGS_DEFAULTS.policy,
      allowedVolumeTypes: [],
      allowedCsiDrivers: [],
      podMetadata: mergePodMetadataPolicy(undefined),
    },
    references: defaultReferenceSettings(),
    exposure: defaultExposureSettings(),
    probes: structuredClone(PROBE_DEFAULTS),
  };
}

/**
 * What the agent's flags (and their environment twins) set over a settings file: each member
 * given replaces the file's, and one left undefined keeps it.
 */
export interface RenderSettingsFlags {
  redisImage?: string | undefined;
  postgresImage?: string | undefined;
  storageClassName?: string | undefined;
  clusterDomain?: string | undefined;
  policy?: Partial<
    Pick<RenderPolicy, 'podSecurity' | 'allowHostPath' | 'allowPrivileged' | 'allowedVolumeTypes'>
  >;
  references?: Partial<ReferenceSettings>;
}

/**
 * The render settings: a parsed settings file merged over the defaults, then the flags that are
 * set (`mooring run`: the one place the agent's render settings are made).
 */
export function mergeRenderSettings(
  listenerId: string,
  file: RenderSettingsFile,
  flags: RenderSettingsFlags = {},
): RenderSettings {
  const merged = mergeFile(listenerId, file);
  return {
    ...merged,
    ...stripUndefined({
      redisImage: flags.redisImage,
      postgresImage: flags.postgresImage,
      storageClassName: flags.storageClassName,
      clusterDomain: flags.clusterDomain,
    }),
    policy: { ...merged.policy, ...stripUndefined(flags.policy ?? {}) },
    references: { ...merged.references, ...stripUndefined(flags.references ?? {}) },
  };
}

/** A parsed settings file merged over the defaults. */
function mergeFile(listenerId: string, file: RenderSettingsFile): RenderSettings {
  const base = defaultRenderSettings(listenerId);
  return {
    ...base,
    ...(file.redisImage ? { redisImage: file.redisImage } : {}),
    ...(file.postgresImage ? { postgresImage: file.postgresImage } : {}),
    ...(file.storageClassName ? { storageClassName: file.storageClassName } : {}),
    ...(file.clusterDomain ? { clusterDomain: file.clusterDomain } : {}),
    policy: {
      ...base.policy,
      ...stripUndefined({ ...file.policy, podMetadata: undefined }),
      podMetadata: mergePodMetadataPolicy(file.policy?.podMetadata),
    },
    ...(file.commands ? { commands: file.commands } : {}),
    references: mergeReferenceSettings(file.references),
    exposure: mergeExposureSettings(file.exposure),
    ...mergeWorkloadSettings(file),
  };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
