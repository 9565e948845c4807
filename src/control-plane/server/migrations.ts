import type { DatabaseSync } from 'node:sqlite';

/**
 * The schema, as an append-only list: entry `i` takes `PRAGMA user_version` from `i` to `i + 1`.
 * Never edit a released entry; add one. Documents are JSON in TEXT columns; the other columns
 * exist only so that filters and ordering use indexes.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE listeners (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    compute_id TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    doc TEXT NOT NULL
  );
  CREATE TABLE deployments (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    tenant_id TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    listener_id TEXT,
    remote_reconciled INTEGER NOT NULL,
    deployment_type TEXT,
    image_version TEXT,
    created_at TEXT NOT NULL,
    doc TEXT NOT NULL
  );
  CREATE INDEX deployments_order ON deployments (created_at, seq);
  CREATE INDEX deployments_name ON deployments (tenant_id, name);
  CREATE INDEX deployments_status ON deployments (status);
  CREATE INDEX deployments_listener ON deployments (listener_id, remote_reconciled);
  CREATE INDEX deployments_type ON deployments (deployment_type);
  CREATE INDEX deployments_image_version ON deployments (image_version);
  CREATE TABLE deployment_tags (
    deployment_id TEXT NOT NULL REFERENCES deployments (id),
    tag_value_id TEXT NOT NULL,
    PRIMARY KEY (deployment_id, tag_value_id)
  );
  CREATE INDEX deployment_tags_value ON deployment_tags (tag_value_id);
  CREATE TABLE revisions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    deployment_id TEXT NOT NULL REFERENCES deployments (id),
    status TEXT NOT NULL,
    remote_reconciled INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    doc TEXT NOT NULL
  );
  CREATE INDEX revisions_order ON revisions (deployment_id, created_at, seq);
  CREATE TABLE tokens (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    provider_id TEXT,
    doc TEXT NOT NULL
  );
  CREATE TABLE connections (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    agent_id TEXT,
    doc TEXT NOT NULL
  );
  CREATE INDEX connections_agent ON connections (agent_id);
  CREATE TABLE integrations (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('vcshost', 'forge'))
  );
  CREATE TABLE repos (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    integration_id TEXT NOT NULL REFERENCES integrations (id),
    repo_id INTEGER NOT NULL,
    doc TEXT NOT NULL,
    UNIQUE (integration_id, repo_id)
  );
  `,
  // When DELETE marked a deployment, so that it is purged after the retention; and the index the
  // build simulator reads in-flight revisions through.
  `
  ALTER TABLE deployments ADD COLUMN deleted_at TEXT;
  CREATE INDEX deployments_deleted ON deployments (deleted_at) WHERE deleted_at IS NOT NULL;
  CREATE INDEX revisions_status ON revisions (status);
  CREATE INDEX revisions_newest ON revisions (deployment_id, seq);
  `,
  // A tenant's listing (X-Tenant-Id) had only the index of names to find the tenant's rows, so
  // every page sorted all of them: a listing cost the square of the tenant's deployments.
  `
  CREATE INDEX deployments_tenant_listing ON deployments (tenant_id, remote_reconciled, seq);
  `,
  // The agent's listing (remote_reconciled, no tenant) walked the table itself: each page read
  // every row before its offset to test the filter, so a whole listing read rows in the square
  // of its size. In this index the rows before the offset are skipped without reading them.
  `
  CREATE INDEX deployments_reconciled_listing ON deployments (remote_reconciled, seq);
  `,
];

/** Brings the database to the latest schema version; refuses a database newer than this code. */
export function migrate(db: DatabaseSync): number {
  const row = db.prepare('PRAGMA user_version').get() as { user_version: number };
  const current = row.user_version;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `database schema version ${current} is newer than this mooring supports (${MIGRATIONS.length})`,
    );
  }
  for (let v = current; v < MIGRATIONS.length; v++) {
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(MIGRATIONS[v]!);
      // PRAGMA takes no bound parameters; v is an integer we control.
      db.exec(`PRAGMA user_version = ${v + 1}`);
      db.exec('COMMIT');
    } catch (err) {
      db.exec('ROLLBACK');
      throw err;
    }
  }
  return MIGRATIONS.length;
}
