/**
 * Lease storage for leader election: the record election reads and writes, and a client over the
 * Kubernetes API (coordination.k8s.io/v1). Writes carry the resourceVersion they read, so a
 * concurrent write by another candidate fails with 409 (`LeaseConflict`) instead of winning twice.
 */
import { httpStatusOf } from '../kube/errors.ts';
import type { KubeHttp } from '../kube/http.ts';
import { resourcePath } from '../kube/object-client.ts';
import { LABELS, MANAGED_BY } from '../labels.ts';

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

const toMs = (d: string | undefined): number | undefined =>
  d === undefined ? undefined : new Date(d).getTime();

/** RFC 3339 with microseconds, as a Lease's MicroTime fields are written. */
const microTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

interface Lease {
  metadata?: { resourceVersion?: string };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** A `LeaseClient` over the Kubernetes API (coordination.k8s.io/v1 Leases). */
export function kubeLeaseClient(kube: KubeHttp, namespace: string, name: string): LeaseClient {
  const collection = resourcePath('coordination.k8s.io/v1', 'Lease', namespace);
  const one = resourcePath('coordination.k8s.io/v1', 'Lease', namespace, name);
  const fromLease = (lease: Lease): LeaseRecord => ({
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
      labels: { [LABELS.managedBy]: MANAGED_BY },
    },
    spec: {
      holderIdentity: r.holderIdentity ?? '',
      leaseDurationSeconds: r.leaseDurationSeconds,
      acquireTime: r.acquireTimeMs === undefined ? undefined : microTime(r.acquireTimeMs),
      renewTime: r.renewTimeMs === undefined ? undefined : microTime(r.renewTimeMs),
      leaseTransitions: r.leaseTransitions,
    },
  });
  return {
    async get() {
      try {
        return fromLease((await kube.request<Lease>({ method: 'GET', path: one })).body);
      } catch (err) {
        if (httpStatusOf(err) === 404) return undefined;
        throw err;
      }
    },
    async create(record) {
      try {
        return fromLease(
          (await kube.request<Lease>({ method: 'POST', path: collection, body: toBody(record) })).body,
        );
      } catch (err) {
        throw httpStatusOf(err) === 409 ? new LeaseConflict() : err;
      }
    },
    async update(record) {
      try {
        return fromLease(
          (await kube.request<Lease>({ method: 'PUT', path: one, body: toBody(record) })).body,
        );
      } catch (err) {
        throw httpStatusOf(err) === 409 ? new LeaseConflict() : err;
      }
    },
  };
}
