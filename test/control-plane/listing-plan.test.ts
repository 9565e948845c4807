/**
 * How the store reads a page of a listing: through an index in the listing's order, never by
 * sorting every matching deployment for each page (which made a tenant's listing of 10,000 cost
 * seconds per page), nor by reading every row of the table before the page's offset.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SQLInputValue } from 'node:sqlite';
import { type ControlPlaneServer, startControlPlane } from '../../src/control-plane/server/index.ts';
import { API_KEY } from './helpers.ts';

/** The query plan of each statement the store prepares while `fn` runs, with its parameters. */
function plansOf(cp: ControlPlaneServer, fn: () => void): string[] {
  const sqlite = cp.store.db.sqlite;
  const seen: string[] = [];
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = (sql: string) => {
    const statement = prepare(sql);
    const run = (params: SQLInputValue[]) => {
      if (sql.startsWith('SELECT')) {
        const plan = prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
        seen.push(`${sql} => ${plan.map((p) => p.detail).join('; ')}`);
      }
    };
    const all = statement.all.bind(statement);
    const get = statement.get.bind(statement);
    statement.all = ((...params: SQLInputValue[]) => {
      run(params);
      return all(...params);
    }) as typeof statement.all;
    statement.get = ((...params: SQLInputValue[]) => {
      run(params);
      return get(...params);
    }) as typeof statement.get;
    return statement;
  };
  try {
    fn();
  } finally {
    sqlite.prepare = prepare;
  }
  return seen;
}

describe('a listing page', () => {
  let cp: ControlPlaneServer;
  beforeAll(async () => {
    cp = await startControlPlane({ apiKey: API_KEY, db: ':memory:' });
  });
  afterAll(async () => cp?.close());

  it("of a tenant's remote-reconciled deployments is read through an index, with no sort", async () => {
    const store = cp.store;
    const plans = plansOf(cp, () =>
      store.deployments.list({ remote_reconciled: true, limit: 100, offset: 200 }, store.defaultTenantId),
    );
    const page = plans.filter((p) => p.includes('LIMIT'));
    expect(page).toHaveLength(1);
    expect(page[0]).toContain('USING INDEX deployments_tenant_listing');
    for (const p of plans) expect(p).not.toContain('TEMP B-TREE');
  });

  it("of every tenant's remote-reconciled deployments (the agent's listing) is read through an index, not a scan of the table", async () => {
    const plans = plansOf(cp, () =>
      cp.store.deployments.list({ remote_reconciled: true, limit: 100, offset: 200 }, undefined),
    );
    const page = plans.filter((p) => p.includes('LIMIT'));
    expect(page).toHaveLength(1);
    expect(page[0]).toContain('USING INDEX deployments_reconciled_listing');
    for (const p of plans) {
      expect(p).not.toContain('TEMP B-TREE');
      expect(p).not.toMatch(/SCAN deployments(?! USING)/);
    }
  });
});
