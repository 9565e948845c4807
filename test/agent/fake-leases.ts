import { type LeaseClient, LeaseConflict, type LeaseRecord } from '../../src/agent/leader-election.ts';

/**
 * Many Leases by name with resourceVersion semantics, in memory. Each replica gets clients that
 * its `cut` cuts off (a partition), and every write is logged as `<replica> <lease> <holder>`.
 */
export class FakeLeases {
  readonly records = new Map<string, LeaseRecord>();
  readonly writes: string[] = [];
  /** Leases whose every request fails, for every replica (one shard's Lease unreachable). */
  readonly failing = new Set<string>();
  #rv = 0;

  /** `clientFor` of one replica. */
  clientsOf(replica: string, cut: { off: boolean }): (name: string) => LeaseClient {
    return (name) => {
      const guard = () => {
        if (cut.off) throw new Error(`${replica}: network down`);
        if (this.failing.has(name)) throw new Error(`${name}: unavailable`);
      };
      return {
        get: async () => {
          guard();
          const r = this.records.get(name);
          return r && { ...r };
        },
        create: async (r) => {
          guard();
          if (this.records.has(name)) throw new LeaseConflict();
          return this.#write(replica, name, r);
        },
        update: async (r) => {
          guard();
          if (r.resourceVersion !== this.records.get(name)?.resourceVersion) throw new LeaseConflict();
          return this.#write(replica, name, r);
        },
      };
    };
  }

  /** The holder of each Lease whose name starts with `prefix`. */
  holders(prefix: string): Map<string, string | undefined> {
    return new Map(
      [...this.records].filter(([n]) => n.startsWith(prefix)).map(([n, r]) => [n, r.holderIdentity]),
    );
  }

  #write(replica: string, name: string, r: LeaseRecord): LeaseRecord {
    const record = { ...r, resourceVersion: String(++this.#rv) };
    this.records.set(name, record);
    this.writes.push(`${replica} ${name} ${r.holderIdentity ?? '(none)'}`);
    return { ...record };
  }
}
