/**
 * Lease storage as leader election sees it: the record it reads and writes, and the client it
 * writes through. Shared by the election (agent/) and its Kubernetes storage (kube/lease.ts), so
 * neither imports the other. Writes carry the resourceVersion they read, so a concurrent write by
 * another candidate fails with `LeaseConflict` instead of winning twice.
 */

/** The part of a Lease that election reads and writes. */
export interface LeaseRecord {
  holderIdentity: string | undefined;
  leaseDurationSeconds: number | undefined;
  acquireTimeMs: number | undefined;
  renewTimeMs: number | undefined;
  leaseTransitions: number | undefined;
  resourceVersion: string | undefined;
}

/**
 * Lease storage: the Kubernetes API in production, an in-memory fake in unit tests. Each call
 * takes a signal that cuts its request once election has given up on it.
 */
export interface LeaseClient {
  /** The lease, or undefined when it does not exist. */
  get(signal?: AbortSignal): Promise<LeaseRecord | undefined>;
  /** Creates it; rejects with `LeaseConflict` when it exists. */
  create(record: LeaseRecord, signal?: AbortSignal): Promise<LeaseRecord>;
  /** Replaces it if `record.resourceVersion` is current; rejects with `LeaseConflict` otherwise. */
  update(record: LeaseRecord, signal?: AbortSignal): Promise<LeaseRecord>;
}

/** Another candidate wrote first (HTTP 409). */
export class LeaseConflict extends Error {
  constructor() {
    super('lease changed concurrently');
    this.name = 'LeaseConflict';
  }
}
