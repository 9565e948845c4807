/**
 * Every default of the renderer, in one place (documented in docs/configuration.md, "Rendering
 * defaults"). CPU in cores, memory in MiB, storage in GiB.
 */

/** Resource defaults of one workload; limits default to `LIMIT_FACTOR` times the requests. */
export interface ResourceDefaults {
  cpu: number;
  memoryMb: number;
}

/** A limit absent from the ResourceSpec is this many times its request. */
export const LIMIT_FACTOR = 2;

export const DEFAULT_RESOURCES = {
  'api-server': { cpu: 1, memoryMb: 1024 },
  queue: { cpu: 1, memoryMb: 1024 },
  orchestrator: { cpu: 0.5, memoryMb: 512 },
  executor: { cpu: 1, memoryMb: 1024 },
  redis: { cpu: 0.25, memoryMb: 256 },
  postgres: { cpu: 0.5, memoryMb: 1024 },
} as const satisfies Record<string, ResourceDefaults>;

/** Replicas when neither min nor max is given (max defaults to min). */
export const DEFAULT_MIN_SCALE = 1;

/** Upper bounds that keep every number inside what Kubernetes accepts (int32 replicas, quantities). */
export const LIMITS = {
  maxReplicas: 10_000,
  maxCpuCores: 100_000,
  maxMemoryMb: 1_073_741_824, // 1 PiB
  maxStorageGi: 1_048_576, // 1 PiB
  maxConnections: 262_143, // Postgres' own maximum
} as const;

export const POSTGRES_DEFAULTS = {
  storageGi: 10,
  maxConnections: 100,
  user: 'postgres',
  database: 'postgres',
  port: 5432,
  /** The image's data directory; PGDATA is a subdirectory so that a volume's lost+found is harmless. */
  mountPath: '/var/lib/postgresql/data',
  pgdata: '/var/lib/postgresql/data/pgdata',
  /** The volume claim template: the StatefulSet's claims are `data-<base>-postgres-<ordinal>`. */
  claimTemplate: 'data',
} as const;

/**
 * Under `policy.podSecurity: restricted` the bundled datastores run as the users of the default
 * (alpine) images, set on the pod, since restricted refuses root: `postgres` (uid/gid 70) and
 * `redis` (uid 999, gid 1000). `fsGroup` makes the volume writable by them; `OnRootMismatch`
 * changes a volume's ownership only when its root does not match, not at every start.
 */
export const DATASTORE_USERS = {
  postgres: { runAsUser: 70, runAsGroup: 70, fsGroup: 70 },
  redis: { runAsUser: 999, runAsGroup: 1000, fsGroup: 1000 },
} as const;

export const REDIS_DEFAULTS = { port: 6379 } as const;

/** The port the app listens on (`PORT`), and the API server Service's port. */
export const APP_PORT = 8000;

/** HPA CPU utilization target, percent of the request. */
export const HPA_CPU_UTILIZATION = 80;

/** PDB minAvailable, rendered when a workload's min scale is at least `PDB_MIN_SCALE`. */
export const PDB_MIN_AVAILABLE = 1;
export const PDB_MIN_SCALE = 2;

/** Name of the app's own container in every app pod. */
export const APP_CONTAINER_NAME = 'app';

/** Secret keys that replace the bundled Redis / Postgres. */
export const REDIS_URI_CUSTOM = 'REDIS_URI_CUSTOM';
export const POSTGRES_URI_CUSTOM = 'POSTGRES_URI_CUSTOM';
