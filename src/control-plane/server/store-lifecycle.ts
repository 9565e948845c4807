import type { Revision } from '../../contract/index.ts';
import type { DeploymentStore } from './store-deployments.ts';
import { type Database, placeholders } from './store.ts';

/** What a bulk DELETE did: the ids marked, and the ids refused with why. */
export interface BulkDeleteOutcome {
  deleted: string[];
  failed: { deployment_id: string; detail: string }[];
}

/**
 * The ends of a deployment's life and what moves it along without a request of its own: bulk
 * DELETE, the purge after the retention (deleted-retention.ts), the in-flight revisions the build
 * simulator moves on (build-simulator.ts), and the deployments that keep a listener in use.
 */
export class LifecycleStore {
  readonly #db: Database;
  readonly #deployments: DeploymentStore;

  constructor(db: Database, deployments: DeploymentStore) {
    this.#db = db;
    this.#deployments = deployments;
  }

  /** Bulk DELETE: marks each deployment found; the ones not found (or not the tenant's) are reported. */
  markManyForDeletion(ids: readonly string[], tenantId: string | undefined): BulkDeleteOutcome {
    return this.#db.transaction(() => {
      const outcome: BulkDeleteOutcome = { deleted: [], failed: [] };
      for (const id of new Set(ids)) {
        if (!this.#exists(id, tenantId)) {
          outcome.failed.push({ deployment_id: id, detail: 'deployment not found' });
          continue;
        }
        this.#deployments.markForDeletion(id, tenantId);
        outcome.deleted.push(id);
      }
      return outcome;
    });
  }

  /**
   * Removes, with their revisions and tags, the deployments deleted at or before `cutoff` (an ISO
   * time). Returns how many went.
   */
  purgeDeletedBefore(cutoff: string): { purged: number } {
    return this.#db.transaction(() => {
      const due = this.#db.sqlite
        .prepare('SELECT id FROM deployments WHERE deleted_at IS NOT NULL AND deleted_at <= ?')
        .all(cutoff) as { id: string }[];
      for (const { id } of due) {
        this.#db.sqlite.prepare('DELETE FROM deployment_tags WHERE deployment_id = ?').run(id);
        this.#db.sqlite.prepare('DELETE FROM revisions WHERE deployment_id = ?').run(id);
        this.#db.sqlite.prepare('DELETE FROM deployments WHERE id = ?').run(id);
      }
      return { purged: due.length };
    });
  }

  /** The earliest `deleted_at` still waiting for its purge, if any. */
  earliestDeletedAt(): string | undefined {
    const row = this.#db
      .prepared('SELECT MIN(deleted_at) AS at FROM deployments WHERE deleted_at IS NOT NULL')
      .get() as { at: string | null };
    return row.at ?? undefined;
  }

  /** Revisions in one of `statuses`, oldest first, with their deployment's id. */
  revisionsInStatus(statuses: readonly string[]): { deploymentId: string; revision: Revision }[] {
    const rows = this.#db.sqlite
      .prepare(
        `SELECT deployment_id, doc FROM revisions WHERE status IN (${placeholders(statuses.length)}) ORDER BY seq`,
      )
      .all(...statuses) as { deployment_id: string; doc: string }[];
    return rows.map((r) => ({ deploymentId: r.deployment_id, revision: JSON.parse(r.doc) as Revision }));
  }

  /** How many deployments name this listener (any status: a deployment being deleted still does). */
  countOnListener(listenerId: string): number {
    const row = this.#db.sqlite
      .prepare('SELECT COUNT(*) AS n FROM deployments WHERE listener_id = ?')
      .get(listenerId) as { n: number };
    return row.n;
  }

  #exists(id: string, tenantId: string | undefined): boolean {
    const row = this.#db.sqlite.prepare('SELECT tenant_id FROM deployments WHERE id = ?').get(id) as
      | { tenant_id: string }
      | undefined;
    return row !== undefined && (tenantId === undefined || row.tenant_id === tenantId);
  }
}
