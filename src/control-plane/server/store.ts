import { randomUUID } from 'node:crypto';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { migrate } from './migrations.ts';

/** One page of a listing: `offset` is where the next page starts (docs/control-plane.md). */
export interface Page<T> {
  resources: T[];
  offset: number;
}

/** A page and how many records match the query in all (sent as `X-Total-Count`, ADR 0003). */
export interface CountedPage<T> {
  page: Page<T>;
  total: number;
}

/**
 * A stored document as the UTF-8 bytes of its JSON text, exactly as the store wrote it. Every
 * document is written as `JSON.stringify` of the record, so these are the bytes that parsing it
 * and serialising it again would give: a read that answers a document unchanged sends them as
 * they are.
 */
export type StoredJson = Uint8Array;

export interface DatabaseOptions {
  /** `:memory:` (default) or a file path. Files use WAL so readers never block the writer. */
  db?: string;
  /** Clock for created_at/updated_at; injected so tests can fix time. */
  now?: () => Date;
  /** Id source; injected so tests can make ids predictable. */
  newId?: () => string;
}

/**
 * The SQLite connection and the primitives every table module uses: transactions, JSON
 * documents, paging. `node:sqlite` is synchronous, so a whole transaction runs without yielding
 * the event loop; `BEGIN IMMEDIATE` also serialises writers from other processes on a file.
 */
export class Database {
  readonly sqlite: DatabaseSync;
  readonly now: () => Date;
  readonly newId: () => string;
  #depth = 0;
  /** How a query selects a document's bytes: the stored text as a blob when it is UTF-8. */
  readonly #docBytes: string;
  readonly #prepared = new Map<string, StatementSync>();

  constructor(options: DatabaseOptions = {}) {
    const path = options.db ?? ':memory:';
    this.sqlite = new DatabaseSync(path);
    this.now = options.now ?? (() => new Date());
    this.newId = options.newId ?? randomUUID;
    this.sqlite.exec('PRAGMA foreign_keys = ON');
    this.sqlite.exec('PRAGMA busy_timeout = 5000');
    if (path !== ':memory:') {
      this.sqlite.exec('PRAGMA journal_mode = WAL');
      this.sqlite.exec('PRAGMA synchronous = NORMAL');
    }
    migrate(this.sqlite);
    // A blob of a text column holds the database's encoding; only UTF-8 is the answer's.
    const { encoding } = this.sqlite.prepare('PRAGMA encoding').get() as { encoding: string };
    this.#docBytes = encoding === 'UTF-8' ? 'CAST(doc AS BLOB)' : 'doc';
  }

  /**
   * The statement of `sql`, compiled once and kept: for the few statements every request runs
   * (compiling one costs several times running it). Only for SQL the code spells out, never built
   * from input, so the set stays small.
   */
  prepared(sql: string): StatementSync {
    let statement = this.#prepared.get(sql);
    if (!statement) {
      statement = this.sqlite.prepare(sql);
      this.#prepared.set(sql, statement);
    }
    return statement;
  }

  /** The current time as the interface writes it (ISO 8601, UTC, milliseconds). */
  timestamp(): string {
    return this.now().toISOString();
  }

  /** Runs `fn` in one write transaction; nested calls join the outer one. */
  transaction<T>(fn: () => T): T {
    if (this.#depth > 0) return fn();
    this.sqlite.exec('BEGIN IMMEDIATE');
    this.#depth++;
    try {
      const result = fn();
      this.sqlite.exec('COMMIT');
      return result;
    } catch (err) {
      this.sqlite.exec('ROLLBACK');
      throw err;
    } finally {
      this.#depth--;
    }
  }

  /** The parsed `doc` column of the first matching row, or undefined. */
  doc<T>(sql: string, ...params: SQLInputValue[]): T | undefined {
    const row = this.sqlite.prepare(sql).get(...params) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as T) : undefined;
  }

  docs<T>(sql: string, ...params: SQLInputValue[]): T[] {
    const rows = this.sqlite.prepare(sql).all(...params) as { doc: string }[];
    return rows.map((r) => JSON.parse(r.doc) as T);
  }

  /** The stored bytes of the first row of `table` meeting every SQL condition of `where`, or undefined. */
  json(table: string, where: string[], ...params: SQLInputValue[]): StoredJson | undefined {
    const row = this.prepared(
      `SELECT ${this.#docBytes} AS doc FROM ${table} WHERE ${where.join(' AND ')}`,
    ).get(...params) as { doc: StoredJson | string } | undefined;
    return row ? bytesOf(row.doc) : undefined;
  }

  /**
   * A page of stored documents and the number of rows matching in all: `where` is a list of SQL
   * conditions joined with AND. Both are read in one read transaction, so the total describes
   * the same state as the page even when another process writes the file in between (WAL gives
   * the transaction one snapshot); a client ends its walk on that total.
   */
  page(
    table: string,
    where: string[],
    params: SQLInputValue[],
    order: string,
    limit: number,
    offset: number,
  ): CountedPage<StoredJson> {
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    return this.#read(() => {
      const { total } = this.sqlite
        .prepare(`SELECT COUNT(*) AS total FROM ${table} ${clause}`)
        .get(...params) as { total: number };
      const rows = this.sqlite
        .prepare(`SELECT ${this.#docBytes} AS doc FROM ${table} ${clause} ORDER BY ${order} LIMIT ? OFFSET ?`)
        .all(...params, limit, offset) as { doc: StoredJson | string }[];
      const resources = rows.map((r) => bytesOf(r.doc));
      return { page: { resources, offset: offset + resources.length }, total };
    });
  }

  /** Runs `fn` in one deferred (read) transaction; inside a write transaction it just runs. */
  #read<T>(fn: () => T): T {
    if (this.sqlite.isTransaction) return fn();
    this.sqlite.exec('BEGIN');
    try {
      return fn();
    } finally {
      this.sqlite.exec('COMMIT');
    }
  }

  /** Every row of every table, in insertion order: tests compare it before and after a rejected write. */
  dump(): Record<string, unknown[]> {
    const tables = this.sqlite
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as { name: string }[];
    const out: Record<string, unknown[]> = {};
    for (const { name } of tables) {
      out[name] = this.sqlite.prepare(`SELECT * FROM ${name} ORDER BY rowid`).all();
    }
    return out;
  }

  close(): void {
    if (this.sqlite.isOpen) this.sqlite.close();
  }
}

/** A document's bytes: as read, or encoded from the text a database in another encoding gave. */
function bytesOf(doc: StoredJson | string): StoredJson {
  return typeof doc === 'string' ? Buffer.from(doc, 'utf8') : doc;
}

/** `?, ?, ?` for a list of n values. */
export function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}
