/**
 * The terms of the Leases in a namespace, as the sandbox stored them: a term is one holder's
 * tenure, from the write that made it the holder (a new holderIdentity, acquireTime or
 * leaseTransitions) to the write that made someone else (or no one) the holder. Followed through
 * the sandbox's change feed, so no term is missed between two polls.
 */
import type { KubeApi, ObjectChange } from '../../src/sandbox/server.ts';

/** One holder's tenure of one Lease. */
export interface LeaseTerm {
  lease: string;
  holder: string;
  leaseTransitions: number;
  acquireTime: string;
  /** When the sandbox stored the write that began it (ms since the epoch). */
  start: number;
  /** When it stored the write that ended it; Infinity while it lasts. */
  end: number;
  /** The holder's last renewTime seen in this term. */
  renewTime: string;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseTransitions?: number;
  acquireTime?: string;
  renewTime?: string;
}

/** Records every Lease term in `namespace` from now until `stop()`. */
export class LeaseTerms {
  readonly #terms: LeaseTerm[] = [];
  readonly #open = new Map<string, LeaseTerm>();
  readonly #stop: () => void;

  constructor(kube: KubeApi, namespace: string) {
    this.#stop = kube.onChange('coordination.k8s.io/v1', 'Lease', (change) => {
      if (change.object.metadata.namespace === namespace) this.#see(change);
    });
  }

  #see(change: ObjectChange): void {
    const lease = change.object.metadata.name as string;
    const spec = (change.object.spec ?? {}) as LeaseSpec;
    const holder = change.type === 'DELETED' ? '' : (spec.holderIdentity ?? '');
    const open = this.#open.get(lease);
    const same =
      open !== undefined &&
      open.holder === holder &&
      open.leaseTransitions === (spec.leaseTransitions ?? 0) &&
      open.acquireTime === (spec.acquireTime ?? '');
    if (same) {
      open.renewTime = spec.renewTime ?? open.renewTime;
      return;
    }
    if (open) {
      open.end = change.at;
      this.#open.delete(lease);
    }
    if (holder === '') return;
    const term: LeaseTerm = {
      lease,
      holder,
      leaseTransitions: spec.leaseTransitions ?? 0,
      acquireTime: spec.acquireTime ?? '',
      start: change.at,
      end: Number.POSITIVE_INFINITY,
      renewTime: spec.renewTime ?? '',
    };
    this.#terms.push(term);
    this.#open.set(lease, term);
  }

  /** Every term so far, of one Lease or all, in the order they began. */
  terms(lease?: string): LeaseTerm[] {
    return this.#terms.filter((t) => lease === undefined || t.lease === lease);
  }

  /**
   * The terms of `lease` that include time `at`, the bounds included (the sandbox's clock counts
   * whole milliseconds, so a write and the term change before it can share one).
   */
  termsAt(lease: string, at: number): LeaseTerm[] {
    return this.#terms.filter((t) => t.lease === lease && t.start <= at && at <= t.end);
  }

  /** The current holder of `lease` ('' when none). */
  holder(lease: string): string {
    return this.#open.get(lease)?.holder ?? '';
  }

  stop(): void {
    this.#stop();
  }
}
