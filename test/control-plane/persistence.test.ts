import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import { startControlPlane } from '../../src/control-plane/server/index.ts';
import { MIGRATIONS } from '../../src/control-plane/server/migrations.ts';
import { API_KEY, BASE_SEED, dockerDeployment, pagesOf } from './helpers.ts';

describe('a file database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mooring-cp-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every record across a server restart, and a repeated seed adds nothing', async () => {
    const db = join(dir, 'restart.db');
    const first = await startControlPlane({ apiKey: API_KEY, db, seed: BASE_SEED });
    expect(first.seeded).toMatchObject({ listeners: 2, tokens: 2, connections: 2, integrations: 2 });
    let client = new ControlPlaneClient({ baseUrl: first.url, apiKey: API_KEY });
    const d = await client.createDeployment(dockerDeployment('persisted'));
    const p = await client.patchDeployment(d.id, { source_revision_config: { image_uri: 'repo/app:2' } });
    const before = first.store.dump();
    await client.close();
    await first.close();

    const second = await startControlPlane({ apiKey: API_KEY, db, seed: BASE_SEED });
    client = new ControlPlaneClient({ baseUrl: second.url, apiKey: API_KEY });
    try {
      expect(second.seeded).toEqual({
        listeners: 0,
        deployments: 0,
        tokens: 0,
        connections: 0,
        integrations: 0,
      });
      expect(second.store.dump()).toEqual(before);
      const [again] = (await client.listAllDeployments({ name: 'persisted' })).items;
      expect(again).toEqual(p);
      const revisions = (await pagesOf(client.listRevisions(d.id))).flatMap((pg) => pg.items);
      expect(revisions.map((r) => r.source_revision_config.image_uri)).toEqual([
        'repo/app:2',
        'ghcr.io/example/app:1.0.0',
      ]);
      expect((await client.listTokens()).length).toBe(2);
      expect((await client.listListeners()).items.length).toBe(2);
    } finally {
      await client.close();
      await second.close();
    }
    const sqlite = new DatabaseSync(db);
    expect(sqlite.prepare('PRAGMA user_version').get()).toEqual({ user_version: MIGRATIONS.length });
    expect(sqlite.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    sqlite.close();
  });

  it('stop() keeps data and port; start() serves again on the same URL', async () => {
    const server = await startControlPlane({ apiKey: API_KEY, db: join(dir, 'stop.db') });
    const client = new ControlPlaneClient({ baseUrl: server.url, apiKey: API_KEY, retries: 0 });
    try {
      await client.createListener({ compute_type: 'k8s', compute_id: 'kept' });
      await server.stop();
      await expect(client.listListeners()).rejects.toMatchObject({ code: 'MOORING_E_CP_UNREACHABLE' });
      await server.start();
      expect((await client.listListeners()).items.map((l) => l.compute_id)).toEqual(['kept']);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('refuses a database whose schema is newer than this code', async () => {
    const db = join(dir, 'newer.db');
    const sqlite = new DatabaseSync(db);
    sqlite.exec(`PRAGMA user_version = ${MIGRATIONS.length + 1}`);
    sqlite.close();
    await expect(startControlPlane({ apiKey: API_KEY, db })).rejects.toThrow(
      /newer than this mooring supports/,
    );
  });

  it('refuses a bad seed as a whole, loading nothing', async () => {
    const db = join(dir, 'bad-seed.db');
    const seed = {
      listeners: [{ compute_type: 'k8s', compute_id: 'fine' }],
      deployments: [dockerDeployment('assigned-to-a-missing-listener')],
    };
    await expect(startControlPlane({ apiKey: API_KEY, db, seed })).rejects.toMatchObject({
      code: 'MOORING_E_INPUT_INVALID',
      message: expect.stringContaining('listener not found'),
    });
    await expect(
      startControlPlane({ apiKey: API_KEY, db, seed: { listeners: [{ compute_type: 'vm' }] } }),
    ).rejects.toMatchObject({ code: 'MOORING_E_INPUT_INVALID' });
    const server = await startControlPlane({ apiKey: API_KEY, db });
    try {
      expect(server.store.dump().listeners).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
