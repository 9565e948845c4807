import type { Connection, Repository, Token } from '../../contract/index.ts';
import { notFound } from './errors.ts';
import type { Database } from './store.ts';

/** Which listing route an integration answers on (interface 4.3 and 4.4). */
export type IntegrationKind = 'vcshost' | 'forge';

/** A repository as seeded: `host_integration_id` comes from its integration. */
export type RepoInput = Omit<Repository, 'host_integration_id'>;

/**
 * Read-mostly data the interface only lists: OAuth tokens, agent connections and the repositories
 * of hosted-git integrations. Nothing on the wire creates them; the seed file does.
 */
export class DirectoryStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Adds a token unless one with its id exists; true when it was added. */
  addToken(token: Token): boolean {
    const { changes } = this.#db.sqlite
      .prepare('INSERT OR IGNORE INTO tokens (id, provider_id, doc) VALUES (?, ?, ?)')
      .run(token.id, token.provider_id ?? null, JSON.stringify(token));
    return Number(changes) > 0;
  }

  addConnection(connection: Connection): boolean {
    const { changes } = this.#db.sqlite
      .prepare('INSERT OR IGNORE INTO connections (id, agent_id, doc) VALUES (?, ?, ?)')
      .run(connection.id, connection.agent_id ?? null, JSON.stringify(connection));
    return Number(changes) > 0;
  }

  /** Adds an integration and its repositories (existing ones are kept); true when the integration is new. */
  addIntegration(id: string, kind: IntegrationKind, repos: readonly RepoInput[]): boolean {
    return this.#db.transaction(() => {
      const { changes } = this.#db.sqlite
        .prepare('INSERT OR IGNORE INTO integrations (id, kind) VALUES (?, ?)')
        .run(id, kind);
      for (const repo of repos) {
        const doc: Repository = { host_integration_id: id, ...repo };
        this.#db.sqlite
          .prepare('INSERT OR IGNORE INTO repos (integration_id, repo_id, doc) VALUES (?, ?, ?)')
          .run(id, repo.id, JSON.stringify(doc));
      }
      return Number(changes) > 0;
    });
  }

  /** The calling user's tokens, optionally for one provider. */
  tokens(providerId: string | undefined): Token[] {
    return providerId === undefined
      ? this.#db.docs<Token>('SELECT doc FROM tokens ORDER BY seq')
      : this.#db.docs<Token>('SELECT doc FROM tokens WHERE provider_id = ? ORDER BY seq', providerId);
  }

  /** An agent's connections; an agent with none has an empty list (agents are not registered here). */
  connections(agentId: string): Connection[] {
    return this.#db.docs<Connection>('SELECT doc FROM connections WHERE agent_id = ? ORDER BY seq', agentId);
  }

  /** The repositories of an integration of the given kind; 404 when there is no such integration. */
  repos(integrationId: string, kind: IntegrationKind): Repository[] {
    const found = this.#db.sqlite
      .prepare('SELECT 1 FROM integrations WHERE id = ? AND kind = ?')
      .get(integrationId, kind);
    if (!found) throw notFound('integration');
    return this.#db.docs<Repository>(
      'SELECT doc FROM repos WHERE integration_id = ? ORDER BY seq',
      integrationId,
    );
  }
}
