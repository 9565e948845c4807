import type { Listener, ListenerCreate, ListenerPatch } from '../../contract/index.ts';
import { conflict, notFound } from './errors.ts';
import type { CountedPage, Database, StoredJson } from './store.ts';

/** Listeners: compute_id is unique; compute_type and compute_id never change after creation. */
export class ListenerStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  create(input: ListenerCreate, id?: string): Listener {
    return this.#db.transaction(() => {
      if (this.#db.sqlite.prepare('SELECT 1 FROM listeners WHERE compute_id = ?').get(input.compute_id)) {
        throw conflict(`a listener with compute_id "${input.compute_id}" already exists`);
      }
      const listenerId = id ?? this.#db.newId();
      if (this.#db.sqlite.prepare('SELECT 1 FROM listeners WHERE id = ?').get(listenerId)) {
        throw conflict(`listener ${listenerId} already exists`);
      }
      const now = this.#db.timestamp();
      const listener: Listener = {
        id: listenerId,
        compute_type: input.compute_type,
        compute_id: input.compute_id,
        compute_config: input.compute_config ?? null,
        created_at: now,
        updated_at: now,
        version: input.version ?? null,
      };
      this.#db.sqlite
        .prepare('INSERT INTO listeners (id, compute_id, created_at, doc) VALUES (?, ?, ?, ?)')
        .run(listener.id, listener.compute_id, now, JSON.stringify(listener));
      return listener;
    });
  }

  /** Members absent or null are left unchanged; `compute_config` given replaces the old one. */
  patch(id: string, patch: ListenerPatch): Listener {
    return this.#db.transaction(() => {
      const current = this.get(id);
      const next: Listener = {
        ...current,
        compute_config: patch.compute_config ?? current.compute_config ?? null,
        version: patch.version ?? current.version ?? null,
        updated_at: this.#db.timestamp(),
      };
      this.#db.sqlite.prepare('UPDATE listeners SET doc = ? WHERE id = ?').run(JSON.stringify(next), id);
      return next;
    });
  }

  get(id: string): Listener {
    const found = this.#db.doc<Listener>('SELECT doc FROM listeners WHERE id = ?', id);
    if (!found) throw notFound('listener');
    return found;
  }

  has(id: string): boolean {
    return this.#db.sqlite.prepare('SELECT 1 FROM listeners WHERE id = ?').get(id) !== undefined;
  }

  /** Newest first, by insertion sequence, as every list of the reference (docs/control-plane.md). */
  list(limit: number, offset: number): CountedPage<StoredJson> {
    return this.#db.page('listeners', [], [], 'seq DESC', limit, offset);
  }

  /**
   * Deletes a listener that no deployment names any more: `attached` counts the deployments that
   * still do (a deployment being deleted counts until it is purged, since the agent on that
   * listener still has to remove its objects).
   */
  delete(id: string, attached: (listenerId: string) => number): void {
    this.#db.transaction(() => {
      this.get(id);
      const n = attached(id);
      if (n > 0) throw conflict(`listener ${id} still has ${n} deployment(s) attached; delete them first`);
      this.#db.sqlite.prepare('DELETE FROM listeners WHERE id = ?').run(id);
    });
  }
}
