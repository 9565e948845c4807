import type { DeploymentStatus, RevisionStatus } from '../../contract/index.ts';
import { Database, type DatabaseOptions } from './store.ts';
import { DeploymentStore } from './store-deployments.ts';
import { DirectoryStore } from './store-directory.ts';
import { LifecycleStore } from './store-lifecycle.ts';
import { ListenerStore } from './store-listeners.ts';

/** The tenant new deployments belong to when a request names none (a fixed, valid UUID). */
export const DEFAULT_TENANT_ID = '00000000-0000-4000-8000-000000000001';

export interface ControlStoreOptions extends DatabaseOptions {
  defaultTenantId?: string;
}

/** Everything the reference control plane persists, over one SQLite database. */
export class ControlStore {
  readonly db: Database;
  readonly deployments: DeploymentStore;
  readonly listeners: ListenerStore;
  readonly directory: DirectoryStore;
  readonly lifecycle: LifecycleStore;
  readonly defaultTenantId: string;

  constructor(options: ControlStoreOptions = {}) {
    this.db = new Database(options);
    this.deployments = new DeploymentStore(this.db);
    this.listeners = new ListenerStore(this.db);
    this.directory = new DirectoryStore(this.db);
    this.lifecycle = new LifecycleStore(this.db, this.deployments);
    this.defaultTenantId = options.defaultTenantId ?? DEFAULT_TENANT_ID;
  }

  /** Statuses are read-only on the wire; tests and demos move them here. */
  setDeploymentStatus(id: string, status: DeploymentStatus) {
    return this.deployments.setStatus(id, status);
  }

  setRevisionStatus(deploymentId: string, revisionId: string, status: RevisionStatus) {
    return this.deployments.setRevisionStatus(deploymentId, revisionId, status);
  }

  /** Every row of every table (see `Database.dump`). */
  dump(): Record<string, unknown[]> {
    return this.db.dump();
  }

  close(): void {
    this.db.close();
  }
}
