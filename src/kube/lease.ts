/**
 * Leader election's Lease storage over the Kubernetes API (coordination.k8s.io/v1 Leases). A 409
 * on create or update (another candidate wrote first) is a `LeaseConflict`.
 */
import { LABELS, MANAGED_BY } from '../labels.ts';
import { type LeaseClient, LeaseConflict, type LeaseRecord } from '../objects/lease.ts';
import { httpStatusOf } from './errors.ts';
import type { KubeHttp } from './http.ts';
import { resourcePath } from './object-client.ts';

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
    async get(signal) {
      try {
        return fromLease(
          (await kube.request<Lease>({ method: 'GET', path: one, signal, priority: true })).body,
        );
      } catch (err) {
        if (httpStatusOf(err) === 404) return undefined;
        throw err;
      }
    },
    async create(record, signal) {
      try {
        return fromLease(
          (
            await kube.request<Lease>({
              method: 'POST',
              path: collection,
              body: toBody(record),
              signal,
              priority: true,
            })
          ).body,
        );
      } catch (err) {
        throw httpStatusOf(err) === 409 ? new LeaseConflict() : err;
      }
    },
    async update(record, signal) {
      try {
        return fromLease(
          (
            await kube.request<Lease>({
              method: 'PUT',
              path: one,
              body: toBody(record),
              signal,
              priority: true,
            })
          ).body,
        );
      } catch (err) {
        throw httpStatusOf(err) === 409 ? new LeaseConflict() : err;
      }
    },
  };
}
