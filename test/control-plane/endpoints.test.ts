import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { strict } from '../../src/contract/index.ts';
import { MooringError } from '../../src/errors.ts';
import {
  API_KEY,
  dockerDeployment,
  FORGE_INTEGRATION_ID,
  type Harness,
  harness,
  INTEGRATION_ID,
  LISTENER_ID,
  OTHER_LISTENER_ID,
  raw,
} from './helpers.ts';

const TAG_SEED_TENANT = '55555555-5555-4555-8555-555555555555';

describe('control plane endpoints through the client', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await harness({
      seed: {
        ...(await import('./helpers.ts')).BASE_SEED,
        deployments: [
          { ...dockerDeployment('tagged-one'), tag_value_ids: ['tag-a', 'tag-b'] },
          { ...dockerDeployment('tagged-two'), tag_value_ids: ['tag-b'], tenant_id: TAG_SEED_TENANT },
        ],
      },
    });
  });
  afterAll(async () => {
    await h.close();
  });

  async function names(filters: Parameters<Harness['client']['listAllDeployments']>[0]): Promise<string[]> {
    const listing = await h.client.listAllDeployments(filters);
    return listing.items.map((d) => d.name).sort();
  }

  it('creates a deployment with its first revision; the response matches the strict schema', async () => {
    const created = await h.client.createDeployment(dockerDeployment('created-1'));
    expect(strict.Deployment.safeParse(created).success).toBe(true);
    expect(created.status).toBe('READY');
    expect(created.latest_revision_id).toBeTruthy();
    expect(created.active_revision_id).toBe(created.latest_revision_id);
    expect(created.image_version).toBe('1.0.0');
    expect(created.secrets).toEqual([{ name: 'API_TOKEN', value: 's3cret-value' }]);
    const revision = await h.client.getRevision(created.id, created.latest_revision_id!);
    expect(strict.Revision.safeParse(revision).success).toBe(true);
    expect(revision).toMatchObject({ status: 'DEPLOYED', source: 'external_docker' });
    expect(revision.source_revision_config.image_uri).toBe('ghcr.io/example/app:1.0.0');
  });

  it('starts revisions of other sources QUEUED with no active revision', async () => {
    const created = await h.client.createDeployment({
      name: 'from-git',
      source: 'vcshost',
      source_config: {
        integration_id: INTEGRATION_ID,
        repo_url: 'https://vcshost.example/acme/app',
        deployment_type: 'prod',
      },
      source_revision_config: { repo_ref: 'main', graph_config_path: 'app.json' },
    });
    expect(created.active_revision_id).toBeNull();
    const revision = await h.client.getRevision(created.id, created.latest_revision_id!);
    expect(revision.status).toBe('QUEUED');
    expect(created.source_config.deployment_type).toBe('prod');
  });

  it('filters deployments by every documented query parameter', async () => {
    const a = await h.client.createDeployment(
      dockerDeployment('filter-alpha', { source_revision_config: { image_uri: 'repo/alpha:2.0.0' } }),
    );
    const b = await h.client.createDeployment(
      dockerDeployment('filter-beta', {
        source_config: { listener_id: OTHER_LISTENER_ID, deployment_type: 'prod' },
      }),
    );
    const c = await h.client.createDeployment({ name: 'filter-gamma', source: 'internal_source' });
    h.server.store.setDeploymentStatus(c.id, 'UNUSED');

    expect(await names({ name: 'filter-alpha' })).toEqual(['filter-alpha']);
    expect(await names({ name: 'filter' })).toEqual([]);
    expect(await names({ name_contains: 'filter-' })).toEqual([
      'filter-alpha',
      'filter-beta',
      'filter-gamma',
    ]);
    expect(await names({ status: 'UNUSED' })).toEqual(['filter-gamma']);
    expect((await names({ remote_reconciled: false })).includes('filter-gamma')).toBe(true);
    expect((await names({ remote_reconciled: true })).includes('filter-gamma')).toBe(false);
    expect((await names({ remote_reconciled: true })).includes('filter-alpha')).toBe(true);
    expect(await names({ image_version: '2.0.0' })).toEqual(['filter-alpha']);
    expect(await names({ deployment_type: 'prod', name_contains: 'filter' })).toEqual(['filter-beta']);
    expect(await names({ deployment_ids: [a.id, c.id] })).toEqual(['filter-alpha', 'filter-gamma']);
    expect(await names({ tag_value_ids: ['tag-a'] })).toEqual(['tagged-one']);
    expect(await names({ tag_value_ids: ['tag-b', 'tag-x'] })).toEqual(['tagged-one', 'tagged-two']);
    expect(await names({ tag_value_ids: ['tag-x'] })).toEqual([]);
    // Filters combine with AND.
    expect(await names({ name_contains: 'filter', remote_reconciled: true, deployment_type: 'dev' })).toEqual(
      ['filter-alpha'],
    );
    expect(b.source_config.listener_id).toBe(OTHER_LISTENER_ID);
  });

  it('scopes deployments to X-Tenant-Id when the client sends one', async () => {
    const { ControlPlaneClient } = await import('../../src/control-plane/client.ts');
    const tenant = new ControlPlaneClient({
      baseUrl: h.server.url,
      apiKey: API_KEY,
      tenantId: TAG_SEED_TENANT,
    });
    try {
      const listing = await tenant.listAllDeployments();
      expect(listing.items.map((d) => d.name)).toEqual(['tagged-two']);
      const created = await tenant.createDeployment(dockerDeployment('tenant-owned'));
      expect(created.tenant_id).toBe(TAG_SEED_TENANT);
      const others = await h.client.listAllDeployments({ name: 'tagged-one' });
      await expect(tenant.deleteDeployment(others.items[0]!.id)).rejects.toMatchObject({
        code: 'MOORING_E_CP_NOT_FOUND',
      });
    } finally {
      await tenant.close();
    }
  });

  it('lists revisions with status and remote_reconciled filters', async () => {
    const d = await h.client.createDeployment({
      name: 'rev-filters',
      source: 'vcshost',
      source_revision_config: { repo_ref: 'main' },
    });
    // Not remote reconciled at first; the second revision is made after it gets a listener.
    await h.client.patchDeployment(d.id, { source_config: { listener_id: LISTENER_ID } });
    const p = await h.client.patchDeployment(d.id, { source_revision_config: { repo_ref: 'dev' } });
    h.server.store.setRevisionStatus(d.id, p.latest_revision_id!, 'BUILD_FAILED');

    const list = async (filters: object) => {
      const pages: string[][] = [];
      for await (const page of h.client.listRevisions(d.id, filters)) {
        pages.push(page.items.map((r) => `${r.source_revision_config.repo_ref}:${r.status}`));
      }
      return pages.flat();
    };
    // Newest first.
    expect(await list({})).toEqual(['dev:BUILD_FAILED', 'main:QUEUED']);
    expect(await list({ status: ['BUILD_FAILED'] })).toEqual(['dev:BUILD_FAILED']);
    expect(await list({ status: ['QUEUED', 'DEPLOYED'] })).toEqual(['main:QUEUED']);
    expect(await list({ remote_reconciled: true })).toEqual(['dev:BUILD_FAILED']);
    expect(await list({ remote_reconciled: false })).toEqual(['main:QUEUED']);
  });

  it('marks a deleted deployment AWAITING_DELETE (204), idempotently, and refuses to patch it', async () => {
    const d = await h.client.createDeployment(dockerDeployment('to-delete'));
    await h.client.deleteDeployment(d.id);
    await h.client.deleteDeployment(d.id);
    const listing = await h.client.listAllDeployments({ deployment_ids: [d.id] });
    expect(listing.items[0]!.status).toBe('AWAITING_DELETE');
    const res = await raw(h.server.url, 'DELETE', `/v2/deployments/${d.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    await expect(h.client.patchDeployment(d.id, { secrets: [] })).rejects.toMatchObject({
      code: 'MOORING_E_CP_REJECTED',
      details: { status: 409 },
    });
    // The name is free again once the old one is being deleted.
    await expect(h.client.createDeployment(dockerDeployment('to-delete'))).resolves.toBeTruthy();
  });

  it('refuses a second live deployment with the same name (409)', async () => {
    await h.client.createDeployment(dockerDeployment('unique-name'));
    const err = await h.client.createDeployment(dockerDeployment('unique-name')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MooringError);
    expect(err).toMatchObject({ code: 'MOORING_E_CP_REJECTED', details: { status: 409 } });
  });

  it('creates, lists and patches listeners; compute_id is unique', async () => {
    const created = await h.client.createListener({
      compute_type: 'k8s',
      compute_id: 'cluster-new',
      compute_config: { k8s_namespaces: ['a'] },
    });
    expect(strict.Listener.safeParse(created).success).toBe(true);
    expect(created.version).toBeNull();
    const patched = await h.client.patchListener(created.id, {
      version: '2.3.4',
      compute_config: { k8s_namespaces: ['a', 'b'] },
    });
    expect(patched).toMatchObject({ id: created.id, compute_id: 'cluster-new', version: '2.3.4' });
    expect(patched.compute_config?.k8s_namespaces).toEqual(['a', 'b']);
    // Absent members are unchanged.
    const again = await h.client.patchListener(created.id, { version: '2.3.5' });
    expect(again.compute_config?.k8s_namespaces).toEqual(['a', 'b']);
    const all = await h.client.listListeners();
    // Newest first.
    expect(all.items.map((l) => l.compute_id)).toEqual(['cluster-new', 'cluster-b', 'cluster-a']);
    await expect(
      h.client.createListener({ compute_type: 'k8s', compute_id: 'cluster-new' }),
    ).rejects.toMatchObject({ details: { status: 409 } });
    await expect(
      h.client.patchListener('99999999-9999-4999-8999-999999999999', { version: 'x' }),
    ).rejects.toMatchObject({ code: 'MOORING_E_CP_NOT_FOUND' });
  });

  it('lists tokens (all and by provider_id), connections and both repository routes', async () => {
    expect((await h.client.listTokens()).map((t) => t.id)).toEqual(['tok-1', 'tok-2']);
    expect((await h.client.listTokens('other')).map((t) => t.id)).toEqual(['tok-2']);
    expect(await h.client.listTokens('none')).toEqual([]);
    expect((await h.client.listConnections('agent-a')).map((c) => c.id)).toEqual(['conn-1']);
    expect(await h.client.listConnections('nobody')).toEqual([]);
    const repos = await h.client.listRepos(INTEGRATION_ID);
    expect(repos).toEqual([
      {
        host_integration_id: INTEGRATION_ID,
        id: 1,
        name: 'app',
        owner: 'acme',
        url: 'https://vcshost.example/acme/app',
        default_branch: 'main',
      },
    ]);
    for (const repo of repos) expect(strict.Repository.safeParse(repo).success).toBe(true);
    expect((await h.client.listRepos(FORGE_INTEGRATION_ID, { forge: true })).map((r) => r.name)).toEqual([
      'lib',
    ]);
    // Each integration answers on its own route only; an unknown one is 404.
    await expect(h.client.listRepos(FORGE_INTEGRATION_ID)).rejects.toMatchObject({
      code: 'MOORING_E_CP_NOT_FOUND',
    });
    await expect(h.client.listRepos(INTEGRATION_ID, { forge: true })).rejects.toMatchObject({
      code: 'MOORING_E_CP_NOT_FOUND',
    });
    const connections = await raw(h.server.url, 'GET', '/v2/auth/agents/agent-b/connections');
    expect(strict.ConnectionList.safeParse(connections.body).success).toBe(true);
  });

  it('answers 404 for unknown deployments and revisions, and 401 without the key', async () => {
    const missing = '99999999-9999-4999-8999-999999999999';
    await expect(h.client.patchDeployment(missing, {})).rejects.toMatchObject({
      code: 'MOORING_E_CP_NOT_FOUND',
    });
    await expect(h.client.getRevision(missing, missing)).rejects.toMatchObject({
      code: 'MOORING_E_CP_NOT_FOUND',
    });
    const d = await h.client.createDeployment(dockerDeployment('for-404'));
    await expect(h.client.getRevision(d.id, missing)).rejects.toMatchObject({
      code: 'MOORING_E_CP_NOT_FOUND',
    });
    const { ControlPlaneClient } = await import('../../src/control-plane/client.ts');
    const bad = new ControlPlaneClient({ baseUrl: h.server.url, apiKey: 'wrong' });
    try {
      await expect(bad.listTokens()).rejects.toMatchObject({
        code: 'MOORING_E_CP_UNAUTHORIZED',
        details: { status: 401 },
      });
    } finally {
      await bad.close();
    }
  });

  it('serves /healthz without a key and counts requests per route', async () => {
    h.server.resetStats();
    expect((await raw(h.server.url, 'GET', '/healthz', { apiKey: null })).status).toBe(200);
    await h.client.listTokens();
    await h.client.listTokens();
    expect(h.server.stats()).toEqual({
      requests: 3,
      byRoute: { 'GET /healthz': 1, 'GET /v2/auth/tokens': 2 },
    });
  });
});
