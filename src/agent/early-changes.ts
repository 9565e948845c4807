/**
 * Changed deployments handed on before their poll's listing is complete (ADR 0016): a change
 * then waits for its own page, not for the 100 pages of a listener of 10,000 deployments. Only a
 * deployment the last complete listing took (held, not refused, in scope) whose names,
 * namespace, tenant, URL and age are unchanged, and that is not being deleted: what a collision
 * or URL claim judges of it is then what the last complete listing judged. New deployments,
 * deletions and the orphan pass wait for the complete listing, as before.
 */
import type { DeploymentRecord, ParsedPage } from '../contract/index.ts';
import type { DesiredResolver } from '../reconcile/desired-resolver.ts';
import type { DesiredDeployment, PollCycleWriter } from './poll-cycle.ts';

/**
 * Changed deployments handed on early per poll at most: each may read a revision at once, so a
 * control plane that changes every record still gets a bounded number of reads in flight; the
 * rest wait for the complete listing, as every change did before.
 */
export const EARLY_CHANGES_PER_POLL = 64;

/** A deployment handed on before its listing was complete. */
interface EarlyChange {
  record: DeploymentRecord;
  /** Why its page flagged it unsupported, if it did. */
  unsupported: string | undefined;
  desired: Promise<DesiredDeployment>;
}

export interface EarlyChangesOptions {
  /** The records the last complete listing took, by id. */
  held: ReadonlyMap<string, DeploymentRecord>;
  listenerId: string;
  /** The deployments this replica works on; undefined: all. */
  inScope: ((id: string) => boolean) | undefined;
  resolver: Pick<DesiredResolver, 'resolve'>;
  /** The poll's cycle, opened (and handed to its consumer) at its first use. */
  open: () => PollCycleWriter;
}

/** One poll's changed deployments, handed on as their pages arrive. */
export class EarlyChanges {
  readonly #o: EarlyChangesOptions;
  readonly #changes = new Map<string, EarlyChange>();

  constructor(options: EarlyChangesOptions) {
    this.#o = options;
  }

  /** A page arrived: each changed deployment on it is resolved and handed on as soon as it is. */
  page(page: ParsedPage<DeploymentRecord>): void {
    const { held, listenerId, inScope } = this.#o;
    for (const record of page.items) {
      if (this.#changes.size >= EARLY_CHANGES_PER_POLL) return;
      const before = held.get(record.id);
      // Unchanged (the held record itself), new or another shard's (not held), or handed on.
      if (before === undefined || before === record || this.#changes.has(record.id)) continue;
      if (record.source_config.listener_id !== listenerId || (inScope && !inScope(record.id))) continue;
      if (!sameClaims(before, record)) continue;
      const cycle = this.#o.open();
      const unsupported = page.unsupported.find((u) => u.id === record.id)?.reason;
      const desired = this.#o.resolver.resolve(record, unsupported, undefined).then((d) => {
        cycle.ready(d);
        return d;
      });
      // Awaited by the complete listing's pass; a listing that fails first leaves it unread.
      desired.catch(() => undefined);
      this.#changes.set(record.id, { record, unsupported, desired });
    }
  }

  /**
   * The desired state handed on early for `deployment`, when the complete listing says the same
   * of it (the same record, flags, and no collision); undefined to resolve and hand it on again.
   */
  handed(
    deployment: DeploymentRecord,
    unsupported: string | undefined,
    collision: unknown,
  ): Promise<DesiredDeployment> | undefined {
    const change = this.#changes.get(deployment.id);
    if (!change || change.record !== deployment || change.unsupported !== unsupported || collision) {
      return undefined;
    }
    return change.desired;
  }
}

/**
 * Whether `next` claims what `held` claimed: the same names, namespace, tenant, custom URL and
 * age (what collisions and URL claims judge), neither being deleted.
 */
function sameClaims(held: DeploymentRecord, next: DeploymentRecord): boolean {
  if (held.status === 'AWAITING_DELETE' || next.status === 'AWAITING_DELETE') return false;
  const claims = (d: DeploymentRecord) => [
    d.name,
    d.created_at,
    d.tenant_id,
    d.source_config?.listener_config?.k8s_namespace,
    d.source_config?.custom_url,
  ];
  const a = claims(held);
  const b = claims(next);
  return a.every((v, i) => v === b[i]);
}
