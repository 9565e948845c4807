/**
 * The statements every request runs (the retention sweep, the tenant check, the read of one stored
 * document) are compiled once and kept: a cold start reads every revision once, and compiling
 * cost several times running them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerDeployment, type Harness, harness, raw } from './helpers.ts';

describe('statements kept compiled', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('a repeated revision or deployment read compiles no statement after the first', async () => {
    const made = await Promise.all(
      ['kept-a', 'kept-b', 'kept-c'].map((name) => h.client.createDeployment(dockerDeployment(name))),
    );
    const sqlite = h.server.store.db.sqlite;
    const compiled: string[] = [];
    const prepare = sqlite.prepare.bind(sqlite);
    sqlite.prepare = (sql: string) => {
      compiled.push(sql);
      return prepare(sql);
    };
    try {
      const readAll = async () => {
        for (const d of made) {
          const revision = await raw(
            h.server.url,
            'GET',
            `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}`,
          );
          expect(revision.status).toBe(200);
          expect((await raw(h.server.url, 'GET', `/v2/deployments/${d.id}`)).status).toBe(200);
        }
      };
      await readAll();
      expect(compiled.length).toBeGreaterThan(0);
      compiled.length = 0;
      await readAll();
      expect(compiled).toEqual([]);
    } finally {
      sqlite.prepare = prepare;
    }
  });
});
