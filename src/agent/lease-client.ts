/**
 * Lease storage for leader election: the record election reads and writes, and a client over the
 * Kubernetes API (coordination.k8s.io/v1). Writes carry the resourceVersion they read, so a
 * concurrent write by another candidate fails with 409 (`LeaseConflict`) instead of winning twice.
 */
import { type ApiException, CoordinationV1Api, type KubeConfig, V1MicroTime } from '@kubernetes/client-node';

/** The part of a Lease that election reads and writes. */
export interface LeaseRecord {
  holderIdentity: string | undefined;
  leaseDurationSeconds: number | undefined;
  acquireTimeMs: number | undefined;
  renewTimeMs: number | undefined;
  leaseTransitions: number | undefined;
  resourceVersion: string | undefined;
}

/** Lease storage: the Kubernetes API in production, an in-memory fake in unit tests. */
export interface LeaseClient {
  /** The lease, or undefined when it does not exist. */
  get(): Promise<LeaseRecord | undefined>;
  /** Creates it; rejects with `LeaseConflict` when it exists. */
  create(record: LeaseRecord): Promise<LeaseRecord>;
  /** Replaces it if `record.resourceVersion` is current; rejects with `LeaseConflict` otherwise. */
  update(record: LeaseRecord): Promise<LeaseRecord>;
}

/** Another candidate wrote first (HTTP 409). */
export class LeaseConflict extends Error {
  constructor() {
    super('lease changed concurrently');
    this.name = 'LeaseConflict';
  }
}

function isConflict(err: unknown): boolean {
  return (err as ApiException<unknown>)?.code === 409;
}

const toMs = (d: Date | string | undefined): number | undefined =>
  d === undefined ? undefined : new Date(d).getTime();

/** A `LeaseClient` over the Kubernetes API (client-node). */
export function kubeLeaseClient(kc: KubeConfig, namespace: string, name: string): LeaseClient {
  const api = kc.makeApiClient(CoordinationV1Api);
  const fromLease = (lease: {
    metadata?: { resourceVersion?: string };
    spec?: {
      holderIdentity?: string;
      leaseDurationSeconds?: number;
      acquireTime?: Date;
      renewTime?: Date;
      leaseTransitions?: number;
    };
  }): LeaseRecord => ({
    holderIdentity: lease.spec?.holderIdentity || undefined,
    leaseDurationSeconds: lease.spec?.leaseDurationSeconds,
    acquireTimeMs: toMs(lease.spec?.acquireTime),
    renewTimeMs: toMs(lease.spec?.renewTime),
    leaseTransitions: lease.spec?.leaseTransitions,
    resourceVersion: lease.metadata?.resourceVersion,
  });
  const toBody = (r: LeaseRecord) => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name,
      namespace,
      ...(r.resourceVersion ? { resourceVersion: r.resourceVersion } : {}),
      labels: { 'app.kubernetes.io/managed-by': 'mooring' },
    },
    spec: {
      holderIdentity: r.holderIdentity ?? '',
      leaseDurationSeconds: r.leaseDurationSeconds,
      acquireTime: r.acquireTimeMs === undefined ? undefined : new V1MicroTime(r.acquireTimeMs),
      renewTime: r.renewTimeMs === undefined ? undefined : new V1MicroTime(r.renewTimeMs),
      leaseTransitions: r.leaseTransitions,
    },
  });
  return {
    async get() {
      try {
        return fromLease(await api.readNamespacedLease({ name, namespace }));
      } catch (err) {
        if ((err as ApiException<unknown>)?.code === 404) return undefined;
        throw err;
      }
    },
    async create(record) {
      try {
        return fromLease(await api.createNamespacedLease({ namespace, body: toBody(record) }));
      } catch (err) {
        throw isConflict(err) ? new LeaseConflict() : err;
      }
    },
    async update(record) {
      try {
        return fromLease(await api.replaceNamespacedLease({ name, namespace, body: toBody(record) }));
      } catch (err) {
        throw isConflict(err) ? new LeaseConflict() : err;
      }
    },
  };
}
