import type {
  Deployment,
  DeploymentCreate,
  DeploymentListQuery,
  DeploymentPatch,
  DeploymentStatus,
  Revision,
  RevisionListQuery,
  RevisionStatus,
  SourceConfig,
  SourceRevisionConfig,
} from '../../contract/index.ts';
import { conflict, notFound } from './errors.ts';
import { checkReferences } from './references.ts';
import { applyPatch, imageVersion, initialRevisionStatus } from './revisions.ts';
import { deploymentFilters, revisionFilters } from './list-filters.ts';
import type { CountedPage, Database, StoredJson } from './store.ts';

/** Extra inputs only seeds and tests give: the wire never sets them. */
export interface CreateExtras {
  tenantId: string;
  id?: string;
  status?: DeploymentStatus;
  tagValueIds?: readonly string[];
}

/**
 * Newest first, by the insertion sequence: a monotonic number that neither equal timestamps nor a
 * clock stepping back can reorder. New records go to the front, so a walk that runs while records
 * are added sees one again at a page boundary but never misses one (docs/control-plane.md, "Order
 * and paging").
 */
const ORDER = 'seq DESC';

/** Deployments and their revisions: validation against stored state, revision rules, filters. */
export class DeploymentStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  create(input: DeploymentCreate, extras: CreateExtras): Deployment {
    return this.#db.transaction(() => {
      const sourceConfig: SourceConfig = input.source_config ?? {};
      checkReferences(this.#db, input.source, sourceConfig, input.secrets, input.secret_references);
      const taken = this.#db.sqlite
        .prepare("SELECT 1 FROM deployments WHERE tenant_id = ? AND name = ? AND status != 'AWAITING_DELETE'")
        .get(extras.tenantId, input.name);
      if (taken) throw conflict(`a deployment named "${input.name}" already exists`);

      const now = this.#db.timestamp();
      const id = extras.id ?? this.#db.newId();
      if (this.#db.sqlite.prepare('SELECT 1 FROM deployments WHERE id = ?').get(id)) {
        throw conflict(`deployment ${id} already exists`);
      }
      const revisionConfig: SourceRevisionConfig = {
        ...(input.source_revision_config ?? {}),
        repo_commit_sha: null,
      };
      const deployment: Deployment = {
        name: input.name,
        source: input.source,
        source_config: sourceConfig,
        source_revision_config: revisionConfig,
        secrets: input.secrets ?? [],
        id,
        tenant_id: extras.tenantId,
        created_at: now,
        updated_at: now,
        status: extras.status ?? 'READY',
        latest_revision_id: null,
        active_revision_id: null,
        secret_references: input.secret_references ?? null,
        image_version: imageVersion(revisionConfig.image_uri),
      };
      this.#db.sqlite
        .prepare(
          `INSERT INTO deployments (id, tenant_id, name, status, listener_id, remote_reconciled,
             deployment_type, image_version, created_at, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '{}')`,
        )
        .run(
          id,
          extras.tenantId,
          deployment.name,
          deployment.status,
          sourceConfig.listener_id ?? null,
          sourceConfig.listener_id ? 1 : 0,
          sourceConfig.deployment_type ?? null,
          deployment.image_version ?? null,
          now,
        );
      for (const tag of new Set(extras.tagValueIds ?? [])) {
        this.#db.sqlite
          .prepare('INSERT INTO deployment_tags (deployment_id, tag_value_id) VALUES (?, ?)')
          .run(id, tag);
      }
      this.#addRevision(deployment, input.source, now);
      return deployment;
    });
  }

  patch(id: string, patch: DeploymentPatch, tenantId: string | undefined): Deployment {
    return this.#db.transaction(() => {
      const current = this.get(id, tenantId);
      if (current.status === 'AWAITING_DELETE') throw conflict(`deployment ${id} is being deleted`);
      const latest = current.latest_revision_id
        ? this.getRevision(id, current.latest_revision_id)
        : undefined;
      const outcome = applyPatch(current, latest, patch);
      checkReferences(this.#db, current.source, outcome.sourceConfig, patch.secrets, patch.secret_references);
      const now = this.#db.timestamp();
      const next: Deployment = {
        ...current,
        source_config: outcome.sourceConfig,
        source_revision_config: outcome.sourceRevisionConfig,
        secrets: outcome.secrets,
        secret_references: outcome.secretReferences,
        image_version: imageVersion(outcome.sourceRevisionConfig.image_uri),
        updated_at: now,
      };
      if (outcome.newRevisionSource) this.#addRevision(next, outcome.newRevisionSource, now);
      else this.#write(next);
      return next;
    });
  }

  /**
   * DELETE: marks the deployment AWAITING_DELETE (the agent removes its objects) and notes when,
   * for the purge after the retention. Idempotent: a second DELETE keeps the first time.
   */
  markForDeletion(id: string, tenantId: string | undefined): void {
    this.#db.transaction(() => {
      const current = this.get(id, tenantId);
      if (current.status !== 'AWAITING_DELETE') this.setStatus(id, 'AWAITING_DELETE');
      this.#db.sqlite
        .prepare('UPDATE deployments SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL')
        .run(this.#db.timestamp(), id);
    });
  }

  /**
   * Redeploys a revision: a new revision with that revision's source and configuration becomes
   * the latest, as a PATCH back to those values would make (the public API's redeploy).
   */
  redeploy(id: string, revisionId: string, tenantId: string | undefined): Deployment {
    return this.#db.transaction(() => {
      const current = this.get(id, tenantId);
      if (current.status === 'AWAITING_DELETE') throw conflict(`deployment ${id} is being deleted`);
      const revision = this.getRevision(id, revisionId);
      const sourceRevisionConfig = { ...revision.source_revision_config, repo_commit_sha: null };
      const next: Deployment = {
        ...current,
        source_revision_config: sourceRevisionConfig,
        image_version: imageVersion(sourceRevisionConfig.image_uri),
        updated_at: this.#db.timestamp(),
      };
      this.#addRevision(next, revision.source, next.updated_at);
      return next;
    });
  }

  /** For tests and operators: statuses are read-only on the wire. */
  setStatus(id: string, status: DeploymentStatus): Deployment {
    return this.#db.transaction(() => {
      const next = { ...this.get(id, undefined), status, updated_at: this.#db.timestamp() };
      this.#write(next);
      return next;
    });
  }

  get(id: string, tenantId: string | undefined): Deployment {
    const found = this.#db.doc<Deployment>('SELECT doc FROM deployments WHERE id = ?', id);
    if (!found || (tenantId !== undefined && found.tenant_id !== tenantId)) throw notFound('deployment');
    return found;
  }

  /** The deployment as stored, for an answer that sends it unchanged (`get` for the record). */
  getJson(id: string, tenantId: string | undefined): StoredJson {
    const found =
      tenantId === undefined
        ? this.#db.json('deployments', ['id = ?'], id)
        : this.#db.json('deployments', ['id = ?', 'tenant_id = ?'], id, tenantId);
    if (!found) throw notFound('deployment');
    return found;
  }

  /** A page of the deployments matching `q`, as stored. */
  list(q: DeploymentListQuery, tenantId: string | undefined): CountedPage<StoredJson> {
    const { where, params } = deploymentFilters(q, tenantId);
    return this.#db.page('deployments', where, params, ORDER, q.limit, q.offset);
  }

  getRevision(deploymentId: string, revisionId: string, tenantId?: string): Revision {
    this.#mustExist(deploymentId, tenantId);
    const found = this.#db.doc<Revision>(
      'SELECT doc FROM revisions WHERE id = ? AND deployment_id = ?',
      revisionId,
      deploymentId,
    );
    if (!found) throw notFound('revision');
    return found;
  }

  /** The revision as stored, for an answer that sends it unchanged (`getRevision` for the record). */
  getRevisionJson(deploymentId: string, revisionId: string, tenantId: string | undefined): StoredJson {
    this.#mustExist(deploymentId, tenantId);
    const found = this.#db.json('revisions', ['id = ?', 'deployment_id = ?'], revisionId, deploymentId);
    if (!found) throw notFound('revision');
    return found;
  }

  /** A page of a deployment's revisions matching `q`, as stored. */
  listRevisions(
    deploymentId: string,
    q: RevisionListQuery,
    tenantId: string | undefined,
  ): CountedPage<StoredJson> {
    this.#mustExist(deploymentId, tenantId);
    const { where, params } = revisionFilters(deploymentId, q);
    return this.#db.page('revisions', where, params, ORDER, q.limit, q.offset);
  }

  /**
   * 404 unless the deployment exists and is the tenant's: read from its columns (the tenant never
   * changes), so a read of its revisions does not parse the deployment's document.
   */
  #mustExist(id: string, tenantId: string | undefined): void {
    const row = this.#db.prepared('SELECT tenant_id FROM deployments WHERE id = ?').get(id) as
      | { tenant_id: string }
      | undefined;
    if (!row || (tenantId !== undefined && row.tenant_id !== tenantId)) throw notFound('deployment');
  }

  /** For tests: a build service would move revisions on; nothing on the wire can. */
  setRevisionStatus(deploymentId: string, revisionId: string, status: RevisionStatus): Revision {
    return this.#db.transaction(() => {
      const next = {
        ...this.getRevision(deploymentId, revisionId),
        status,
        updated_at: this.#db.timestamp(),
      };
      this.#db.sqlite
        .prepare('UPDATE revisions SET status = ?, doc = ? WHERE id = ?')
        .run(status, JSON.stringify(next), revisionId);
      // What a deploy service would do: the revision that reached DEPLOYED is the active one.
      if (status === 'DEPLOYED') {
        this.#write({ ...this.get(deploymentId, undefined), active_revision_id: revisionId });
      }
      return next;
    });
  }

  /** Creates a revision from the deployment's current values, moves latest (and active when deployed), writes both. */
  #addRevision(deployment: Deployment, source: Deployment['source'], now: string): void {
    const status = initialRevisionStatus(source);
    const revision: Revision = {
      id: this.#db.newId(),
      created_at: now,
      updated_at: now,
      status,
      source,
      source_revision_config: deployment.source_revision_config,
    };
    // A revision is remote reconciled when its deployment was at the time it was made.
    const remote = deployment.source_config.listener_id ? 1 : 0;
    this.#db.sqlite
      .prepare(
        'INSERT INTO revisions (id, deployment_id, status, remote_reconciled, created_at, doc) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(revision.id, deployment.id, status, remote, now, JSON.stringify(revision));
    deployment.latest_revision_id = revision.id;
    if (status === 'DEPLOYED') deployment.active_revision_id = revision.id;
    this.#write(deployment);
  }

  #write(d: Deployment): void {
    this.#db.sqlite
      .prepare(
        `UPDATE deployments SET status = ?, listener_id = ?, remote_reconciled = ?, deployment_type = ?,
           image_version = ?, doc = ? WHERE id = ?`,
      )
      .run(
        d.status,
        d.source_config.listener_id ?? null,
        d.source_config.listener_id ? 1 : 0,
        d.source_config.deployment_type ?? null,
        d.image_version ?? null,
        JSON.stringify(d),
        d.id,
      );
  }
}
