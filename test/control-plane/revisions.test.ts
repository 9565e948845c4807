import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonical, imageVersion, normalizeSecrets } from '../../src/control-plane/server/revisions.ts';
import {
  dockerDeployment,
  type Harness,
  harness,
  LISTENER_ID,
  OTHER_LISTENER_ID,
  pagesOf,
} from './helpers.ts';

describe('revision rules', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness();
  });
  afterAll(async () => {
    await h.close();
  });

  async function revisionCount(id: string): Promise<number> {
    const pages = await pagesOf(h.client.listRevisions(id));
    return pages.flatMap((p) => p.items).length;
  }

  it('makes a new revision when source_revision_config changes, and moves latest and active', async () => {
    const d = await h.client.createDeployment(dockerDeployment('rev-config'));
    const p = await h.client.patchDeployment(d.id, {
      source_revision_config: { image_uri: 'ghcr.io/example/app:2.0.0' },
    });
    expect(p.latest_revision_id).not.toBe(d.latest_revision_id);
    expect(p.active_revision_id).toBe(p.latest_revision_id);
    expect(p.source_revision_config.image_uri).toBe('ghcr.io/example/app:2.0.0');
    expect(p.image_version).toBe('2.0.0');
    expect(await revisionCount(d.id)).toBe(2);
    const old = await h.client.getRevision(d.id, d.latest_revision_id!);
    expect(old.source_revision_config.image_uri).toBe('ghcr.io/example/app:1.0.0');
  });

  it('makes a new revision when secrets change, but not when they are only reordered', async () => {
    const d = await h.client.createDeployment(
      dockerDeployment('rev-secrets', {
        secrets: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
      }),
    );
    const reordered = await h.client.patchDeployment(d.id, {
      secrets: [
        { name: 'B', value: '2' },
        { name: 'A', value: '1' },
      ],
    });
    expect(reordered.latest_revision_id).toBe(d.latest_revision_id);
    const changed = await h.client.patchDeployment(d.id, { secrets: [{ name: 'A', value: '3' }] });
    expect(changed.latest_revision_id).not.toBe(d.latest_revision_id);
    expect(changed.secrets).toEqual([{ name: 'A', value: '3' }]);
    expect(await revisionCount(d.id)).toBe(2);
  });

  it('never makes a revision for source_config changes, which merge member by member', async () => {
    const d = await h.client.createDeployment(dockerDeployment('rev-source-config'));
    const p = await h.client.patchDeployment(d.id, {
      source_config: { resource_spec: { min_scale: 3, max_scale: 5 }, listener_id: OTHER_LISTENER_ID },
    });
    expect(p.latest_revision_id).toBe(d.latest_revision_id);
    expect(p.source_config.resource_spec).toEqual({ min_scale: 3, max_scale: 5 });
    expect(p.source_config.listener_config).toEqual({ k8s_namespace: 'default' });
    expect(p.source_config.listener_id).toBe(OTHER_LISTENER_ID);
    expect(p.updated_at >= d.updated_at).toBe(true);
    expect(await revisionCount(d.id)).toBe(1);
  });

  it('makes no revision for an equal value (nulls and absent members compare equal) or an empty patch', async () => {
    const d = await h.client.createDeployment(dockerDeployment('rev-same'));
    const same = await h.client.patchDeployment(d.id, {
      source_revision_config: { image_uri: 'ghcr.io/example/app:1.0.0', repo_ref: null },
      secrets: [{ name: 'API_TOKEN', value: 's3cret-value' }],
    });
    expect(same.latest_revision_id).toBe(d.latest_revision_id);
    const empty = await h.client.patchDeployment(d.id, {});
    expect(empty.latest_revision_id).toBe(d.latest_revision_id);
    expect(await revisionCount(d.id)).toBe(1);
  });

  it('merges source_revision_config: members not given are kept', async () => {
    const d = await h.client.createDeployment({
      name: 'rev-merge',
      source: 'vcshost',
      source_revision_config: { repo_ref: 'main', graph_config_path: 'a.json' },
    });
    const p = await h.client.patchDeployment(d.id, { source_revision_config: { repo_ref: 'dev' } });
    expect(p.source_revision_config).toEqual({
      repo_ref: 'dev',
      graph_config_path: 'a.json',
      repo_commit_sha: null,
    });
    const r = await h.client.getRevision(d.id, p.latest_revision_id!);
    expect(r).toMatchObject({ status: 'QUEUED', source: 'vcshost' });
    expect(p.active_revision_id).toBeNull();
  });

  it('uses revision_source for that revision only', async () => {
    const d = await h.client.createDeployment({
      name: 'rev-source',
      source: 'vcshost',
      source_revision_config: { repo_ref: 'main' },
    });
    const p = await h.client.patchDeployment(d.id, { revision_source: 'internal_source' });
    expect(p.latest_revision_id).not.toBe(d.latest_revision_id);
    expect((await h.client.getRevision(d.id, p.latest_revision_id!)).source).toBe('internal_source');
    const q = await h.client.patchDeployment(d.id, { source_revision_config: { repo_ref: 'x' } });
    expect((await h.client.getRevision(d.id, q.latest_revision_id!)).source).toBe('vcshost');
    expect(q.source).toBe('vcshost');
  });

  it('keeps the active revision when a newer one is not deployed, and moves it when one is', async () => {
    const d = await h.client.createDeployment({ name: 'rev-active', source: 'internal_docker' });
    const first = d.latest_revision_id!;
    h.server.store.setRevisionStatus(d.id, first, 'DEPLOYED');
    const p = await h.client.patchDeployment(d.id, { source_revision_config: { image_uri: 'r/a:2' } });
    const [listed] = (await h.client.listAllDeployments({ deployment_ids: [d.id] })).items;
    expect(listed!.active_revision_id).toBe(first);
    expect(listed!.latest_revision_id).toBe(p.latest_revision_id);
  });

  it('gives 100 concurrent PATCHes of one deployment 100 consistent revisions (no lost update)', async () => {
    const d = await h.client.createDeployment(dockerDeployment('rev-concurrent'));
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        h.client.patchDeployment(d.id, { source_revision_config: { image_uri: `repo/app:${i}` } }),
      ),
    );
    const revisions = (await pagesOf(h.client.listRevisions(d.id))).flatMap((p) => p.items);
    expect(revisions).toHaveLength(101);
    expect(new Set(revisions.map((r) => r.id)).size).toBe(101);
    // Every PATCH's answer names a distinct revision holding exactly its own image.
    const latest = new Set(results.map((r) => r.latest_revision_id));
    expect(latest.size).toBe(100);
    const byId = new Map(revisions.map((r) => [r.id, r.source_revision_config.image_uri]));
    results.forEach((r) => {
      expect(byId.get(r.latest_revision_id!)).toBe(r.source_revision_config.image_uri);
    });
    // The deployment ends on the last revision made, which the list gives first (newest first).
    const [final] = (await h.client.listAllDeployments({ deployment_ids: [d.id] })).items;
    expect(final!.latest_revision_id).toBe(revisions[0]!.id);
    expect(final!.source_revision_config.image_uri).toBe(revisions[0]!.source_revision_config.image_uri);
  });

  it('marks a deployment remote reconciled exactly when source_config.listener_id is set', async () => {
    const d = await h.client.createDeployment({ name: 'rev-remote', source: 'external_docker' });
    expect(
      (await h.client.listAllDeployments({ remote_reconciled: true, name: 'rev-remote' })).items,
    ).toHaveLength(0);
    await h.client.patchDeployment(d.id, { source_config: { listener_id: LISTENER_ID } });
    expect(
      (await h.client.listAllDeployments({ remote_reconciled: true, name: 'rev-remote' })).items,
    ).toHaveLength(1);
  });
});

describe('revision helpers', () => {
  it('canonical JSON ignores key order and null members', () => {
    expect(canonical({ b: 1, a: { d: null, c: [2, { y: 1, x: null }] } })).toBe(
      '{"a":{"c":[2,{"y":1}]},"b":1}',
    );
  });
  it('secrets compare by name set', () => {
    expect(
      normalizeSecrets([
        { name: 'b', value: '1' },
        { name: 'a', value: '2' },
      ]),
    ).toBe(
      normalizeSecrets([
        { name: 'a', value: '2' },
        { name: 'b', value: '1' },
      ]),
    );
    expect(normalizeSecrets(null)).toBe(normalizeSecrets([]));
  });
  it.each([
    ['ghcr.io/example/app:1.0.0', '1.0.0'],
    ['localhost:5000/app:v2', 'v2'],
    ['localhost:5000/app', null],
    ['app@sha256:abc', null],
    ['app:1.2@sha256:abc', '1.2'],
    ['', null],
  ])('image version of %s is %s', (uri, version) => {
    expect(imageVersion(uri)).toBe(version);
  });
});
