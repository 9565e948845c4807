/**
 * The render settings about what the workloads run with (settings file members `probes`, `args`,
 * `placement`, `datastoreImagePullSecrets`, `resources`, `service`): schema, resolved types and
 * defaults. Documented in docs/configuration.md, "Render settings".
 */
import { z } from 'zod';
import { COMPONENTS, type Component } from './components.ts';

const seconds = (min: number) => z.number().int().min(min).max(3600);

/** Timings of one probe, as Kubernetes names them. */
export const ProbeTimingFile = z.strictObject({
  initialDelaySeconds: seconds(0).optional(),
  periodSeconds: seconds(1).optional(),
  timeoutSeconds: seconds(1).optional(),
  failureThreshold: seconds(1).optional(),
});
export type ProbeTiming = Required<z.infer<typeof ProbeTimingFile>>;

/** `probes`: HTTP GET on `path` at the app port, or without a path a TCP probe of that port. */
export const ProbesFile = z.strictObject({
  enabled: z.boolean().optional(),
  path: z
    .string()
    .regex(/^\/\S*$/, 'must be an absolute path such as /healthz')
    .optional(),
  readiness: ProbeTimingFile.optional(),
  liveness: ProbeTimingFile.optional(),
  startup: ProbeTimingFile.optional(),
});

/** The API server's probes, resolved. */
export interface ProbeSettings {
  enabled: boolean;
  path?: string | undefined;
  readiness: ProbeTiming;
  liveness: ProbeTiming;
  startup: ProbeTiming;
}

/**
 * Default probe timings: ready within 10 s of answering, restarted after a minute of silence, and
 * up to five minutes to start (the startup probe holds the others off until then).
 */
export const PROBE_DEFAULTS: ProbeSettings = {
  enabled: true,
  readiness: { initialDelaySeconds: 0, periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 3 },
  liveness: { initialDelaySeconds: 0, periodSeconds: 20, timeoutSeconds: 3, failureThreshold: 3 },
  startup: { initialDelaySeconds: 0, periodSeconds: 5, timeoutSeconds: 3, failureThreshold: 60 },
};

const object = z.record(z.string(), z.unknown());

/** Where pods go: copied as is into the pod spec (Kubernetes validates the content). */
export const PlacementFile = z.strictObject({
  nodeSelector: z.record(z.string(), z.string()).optional(),
  tolerations: z.array(object).optional(),
  affinity: object.optional(),
  topologySpreadConstraints: z.array(object).optional(),
  priorityClassName: z.string().min(1).optional(),
});
export type Placement = z.infer<typeof PlacementFile>;

/** Resource requests of a component when its ResourceSpec says nothing (limits: twice these). */
export const ResourceDefaultsFile = z.strictObject({
  cpu: z.number().positive().max(100_000).optional(),
  memoryMb: z.number().int().positive().max(1_073_741_824).optional(),
});

/** The API server Service. */
export const ServiceFile = z.strictObject({
  type: z.enum(['ClusterIP', 'NodePort', 'LoadBalancer']).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
});

/** The workload members of the settings file. */
export const WorkloadSettingsFile = {
  probes: ProbesFile.optional(),
  args: z.partialRecord(z.enum(COMPONENTS), z.array(z.string())).optional(),
  placement: z
    .strictObject({ app: PlacementFile.optional(), datastores: PlacementFile.optional() })
    .optional(),
  datastoreImagePullSecrets: z.array(z.string().min(1)).optional(),
  resources: z.partialRecord(z.enum(COMPONENTS), ResourceDefaultsFile).optional(),
  service: ServiceFile.optional(),
};

/** The resolved workload settings (members of `RenderSettings`). */
export interface WorkloadSettings {
  probes: ProbeSettings;
  /** Per-component container `args`; absent: the image's CMD. */
  args?: Partial<Record<Component, string[]>> | undefined;
  placement?: { app?: Placement | undefined; datastores?: Placement | undefined } | undefined;
  /** imagePullSecrets of the bundled Redis and Postgres pods (before the ResourceSpec's). */
  datastoreImagePullSecrets?: readonly string[] | undefined;
  /** Per-component resource defaults over `DEFAULT_RESOURCES`. */
  resources?:
    | Partial<Record<Component, { cpu?: number | undefined; memoryMb?: number | undefined }>>
    | undefined;
  service?: z.infer<typeof ServiceFile> | undefined;
}

type File = { [K in keyof typeof WorkloadSettingsFile]?: z.infer<(typeof WorkloadSettingsFile)[K]> };

/** The workload members of a settings file merged over their defaults. */
export function mergeWorkloadSettings(file: File): WorkloadSettings {
  const p = file.probes ?? {};
  const probes: ProbeSettings = {
    enabled: p.enabled ?? PROBE_DEFAULTS.enabled,
    ...(p.path ? { path: p.path } : {}),
    readiness: { ...PROBE_DEFAULTS.readiness, ...p.readiness },
    liveness: { ...PROBE_DEFAULTS.liveness, ...p.liveness },
    startup: { ...PROBE_DEFAULTS.startup, ...p.startup },
  };
  return {
    probes,
    ...(file.args ? { args: file.args } : {}),
    ...(file.placement ? { placement: file.placement } : {}),
    ...(file.datastoreImagePullSecrets ? { datastoreImagePullSecrets: file.datastoreImagePullSecrets } : {}),
    ...(file.resources ? { resources: file.resources } : {}),
    ...(file.service ? { service: file.service } : {}),
  };
}
