/**
 * What the public API's clients send, served by the reference (docs/control-plane.md, "Public
 * clients"): its spellings, single reads, listener delete, bulk delete, redeploy, booleans as its
 * framework reads them, a repeated API key header, and coded 501s for what the reference lacks.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Revision } from '../../src/contract/index.ts';
import {
  API_KEY,
  dockerDeployment,
  type Harness,
  harness,
  INTEGRATION_ID,
  LISTENER_ID,
  OTHER_LISTENER_ID,
  raw,
} from './helpers.ts';

const MISSING = '99999999-9999-4999-8999-999999999999';
const OTHER_TENANT = '77777777-7777-4777-8777-777777777777';

const json = (value: unknown) => JSON.stringify(value);

describe('the public API as its clients send it', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await harness();
  });
  afterAll(async () => {
    await h.close();
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    raw(h.server.url, 'POST', path, { body: json(body), headers });
  const patch = (path: string, body: unknown) => raw(h.server.url, 'PATCH', path, { body: json(body) });

  describe('public spellings', () => {
    it('takes `github` for `vcshost` and `langgraph_config_path` for `graph_config_path`, and answers in the interface words', async () => {
      const res = await post('/v2/deployments', {
        name: 'spelled-publicly',
        source: 'github',
        source_config: { integration_id: INTEGRATION_ID, repo_url: 'https://vcshost.example/acme/app' },
        source_revision_config: {
          repo_ref: 'main',
          langgraph_config_path: 'langgraph.json',
          image_uri: null,
        },
        secrets: [],
      });
      expect(res.status).toBe(201);
      const d = res.body as Deployment;
      expect(d.source).toBe('vcshost');
      expect(d.source_revision_config).toEqual({
        repo_ref: 'main',
        graph_config_path: 'langgraph.json',
        image_uri: null,
        repo_commit_sha: null,
      });

      const patched = await patch(`/v2/deployments/${d.id}`, {
        revision_source: 'github',
        source_revision_config: { langgraph_config_path: 'other/langgraph.json' },
      });
      expect(patched.status).toBe(200);
      const latest = await raw(h.server.url, 'GET', `/v2/deployments/${d.id}/revisions?limit=1`);
      const [revision] = (latest.body as { resources: Revision[] }).resources;
      expect(revision!.id).toBe((patched.body as Deployment).latest_revision_id);
      expect(revision!.source).toBe('vcshost');
      expect(revision!.source_revision_config.graph_config_path).toBe('other/langgraph.json');
    });

    it('refuses both names of the config path when they differ, and a config path that is not a string', async () => {
      const body = (config: object) => ({
        name: `both-${Object.keys(config).length}`,
        source: 'vcshost',
        source_revision_config: config,
      });
      const before = h.server.store.dump();
      const differ = await post(
        '/v2/deployments',
        body({ graph_config_path: 'a.json', langgraph_config_path: 'b.json' }),
      );
      expect(differ.status).toBe(422);
      expect(differ.body).toMatchObject({
        detail: [{ loc: ['body', 'source_revision_config', 'langgraph_config_path'] }],
      });
      const notString = await post('/v2/deployments', body({ langgraph_config_path: 5 }));
      expect(notString.status).toBe(422);
      expect(h.server.store.dump()).toEqual(before);
      const same = await post(
        '/v2/deployments',
        body({ graph_config_path: 'a.json', langgraph_config_path: 'a.json' }),
      );
      expect(same.status).toBe(201);
    });

    it("takes the deploy client's `tracked_packages` and keeps nothing of it (no revision, nothing stored)", async () => {
      const d = await h.client.createDeployment(dockerDeployment('tracked'));
      const res = await patch(`/v2/deployments/${d.id}`, {
        tracked_packages: ['langgraph', 'langchain-core'],
      });
      expect(res.status).toBe(200);
      expect((res.body as Deployment).latest_revision_id).toBe(d.latest_revision_id);
      expect(JSON.stringify(h.server.store.dump())).not.toContain('langchain-core');
      const bad = await patch(`/v2/deployments/${d.id}`, { tracked_packages: 'langgraph' });
      expect(bad.status).toBe(422);
      expect(bad.body).toMatchObject({ detail: [{ loc: ['body', 'tracked_packages'] }] });
    });

    it("serves the integration repository paths under the provider's public name", async () => {
      const neutral = await raw(h.server.url, 'GET', `/v1/integrations/vcshost/${INTEGRATION_ID}/repos`);
      const publicName = await raw(h.server.url, 'GET', `/v1/integrations/github/${INTEGRATION_ID}/repos`);
      expect(publicName.status).toBe(200);
      expect(publicName.body).toEqual(neutral.body);
      expect((publicName.body as unknown[]).length).toBe(1);
      const forge = await raw(h.server.url, 'GET', `/v1/integrations/forge/github/${INTEGRATION_ID}/repos`);
      expect(forge.status).toBe(404);
    });

    it('reads booleans in queries as the public framework does: True, 1, yes, on, False, 0, no, off', async () => {
      await h.client.createDeployment(dockerDeployment('bool-remote'));
      const names = async (value: string) => {
        const res = await raw(h.server.url, 'GET', `/v2/deployments?limit=100&remote_reconciled=${value}`);
        expect(res.status).toBe(200);
        return (res.body as { resources: Deployment[] }).resources.map((d) => d.name).sort();
      };
      const yes = await names('true');
      const no = await names('false');
      expect(yes).toContain('bool-remote');
      expect(no).toContain('spelled-publicly');
      for (const word of ['True', 'TRUE', '1', 'yes', 'on']) expect(await names(word)).toEqual(yes);
      for (const word of ['False', '0', 'no', 'off']) expect(await names(word)).toEqual(no);
      expect((await raw(h.server.url, 'GET', '/v2/deployments?remote_reconciled=ture')).status).toBe(422);
    });

    it('accepts the same API key (and tenant) header sent twice, and refuses two different keys', async () => {
      const send = async (headers: string[]) =>
        (await request(`${h.server.url}/v2/deployments?limit=1`, { headers })).statusCode;
      expect(await send(['x-api-key', API_KEY, 'X-Api-Key', API_KEY])).toBe(200);
      expect(await send(['x-api-key', API_KEY, 'x-api-key', 'other-key'])).toBe(401);
      expect(await send(['x-api-key', 'other-key', 'x-api-key', API_KEY])).toBe(401);
      expect(
        await send(['x-api-key', API_KEY, 'x-tenant-id', OTHER_TENANT, 'X-Tenant-ID', OTHER_TENANT]),
      ).toBe(200);
      expect(await send(['x-api-key', API_KEY, 'x-tenant-id', OTHER_TENANT, 'x-tenant-id', MISSING])).toBe(
        422,
      );
    });
  });

  describe('single reads', () => {
    it("GET /v2/deployments/{id}: 200 with the deployment, 404 when absent or another tenant's", async () => {
      const d = await h.client.createDeployment(dockerDeployment('read-me'));
      const res = await raw(h.server.url, 'GET', `/v2/deployments/${d.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(d);
      expect((await raw(h.server.url, 'GET', `/v2/deployments/${MISSING}`)).status).toBe(404);
      const other = await raw(h.server.url, 'GET', `/v2/deployments/${d.id}`, {
        headers: { 'x-tenant-id': OTHER_TENANT },
      });
      expect(other.status).toBe(404);
      expect((await raw(h.server.url, 'GET', '/v2/deployments/not-a-uuid')).status).toBe(422);
    });

    it('GET /v2/listeners/{id}: 200 with the listener, 404 when absent', async () => {
      const res = await raw(h.server.url, 'GET', `/v2/listeners/${LISTENER_ID}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: LISTENER_ID, compute_id: 'cluster-a' });
      expect((await raw(h.server.url, 'GET', `/v2/listeners/${MISSING}`)).status).toBe(404);
    });

    it('filters deployments by `agent_id` as the listener they are placed on', async () => {
      await h.client.createDeployment(
        dockerDeployment('on-other', {
          source_config: { listener_id: OTHER_LISTENER_ID, listener_config: { k8s_namespace: 'x' } },
        }),
      );
      const res = await raw(h.server.url, 'GET', `/v2/deployments?limit=100&agent_id=${OTHER_LISTENER_ID}`);
      expect((res.body as { resources: Deployment[] }).resources.map((d) => d.name)).toEqual(['on-other']);
    });
  });

  describe('deletes and redeploy', () => {
    it('DELETE /v2/listeners/{id}: 409 while a deployment names it, 204 when none does, then 404', async () => {
      const attached = await raw(h.server.url, 'DELETE', `/v2/listeners/${LISTENER_ID}`);
      expect(attached.status).toBe(409);
      expect(String((attached.body as { detail: string }).detail)).toContain('attached');
      const spare = await h.client.createListener({ compute_type: 'k8s', compute_id: 'spare' });
      expect((await raw(h.server.url, 'DELETE', `/v2/listeners/${spare.id}`)).status).toBe(204);
      expect((await raw(h.server.url, 'GET', `/v2/listeners/${spare.id}`)).status).toBe(404);
      expect((await raw(h.server.url, 'DELETE', `/v2/listeners/${spare.id}`)).status).toBe(404);
    });

    it('DELETE /v2/deployments/{id} takes `delete_tracing_project` (a boolean)', async () => {
      const d = await h.client.createDeployment(dockerDeployment('tracing'));
      const bad = await raw(h.server.url, 'DELETE', `/v2/deployments/${d.id}?delete_tracing_project=maybe`);
      expect(bad.status).toBe(422);
      const ok = await raw(h.server.url, 'DELETE', `/v2/deployments/${d.id}?delete_tracing_project=true`);
      expect(ok.status).toBe(204);
      expect((await raw(h.server.url, 'GET', `/v2/deployments/${d.id}`)).body).toMatchObject({
        status: 'AWAITING_DELETE',
      });
    });

    it('bulk DELETE by ids: 200 when all are found, 207 when some are, 404 when none, 422 for bad ids', async () => {
      const [a, b, c] = await Promise.all(
        ['bulk-a', 'bulk-b', 'bulk-c'].map((n) => h.client.createDeployment(dockerDeployment(n))),
      );
      const before = h.server.store.dump();
      for (const query of ['', 'deployment_ids=', 'deployment_ids=x', `deployment_ids=${a!.id}&other=1`]) {
        expect((await raw(h.server.url, 'DELETE', `/v2/deployments?${query}`)).status).toBe(422);
      }
      const tooMany = Array.from({ length: 101 }, () => MISSING).join(',');
      expect((await raw(h.server.url, 'DELETE', `/v2/deployments?deployment_ids=${tooMany}`)).status).toBe(
        422,
      );
      expect(h.server.store.dump()).toEqual(before);

      // Repeated, as the public framework reads an array in a query.
      const all = await raw(
        h.server.url,
        'DELETE',
        `/v2/deployments?deployment_ids=${a!.id}&deployment_ids=${b!.id}`,
      );
      expect(all.status).toBe(200);
      expect(all.body).toEqual({ deleted: [a!.id, b!.id], failed: [] });
      // A comma list, as the list filter of the same name.
      const some = await raw(h.server.url, 'DELETE', `/v2/deployments?deployment_ids=${c!.id},${MISSING}`);
      expect(some.status).toBe(207);
      expect(some.body).toEqual({
        deleted: [c!.id],
        failed: [{ deployment_id: MISSING, detail: 'deployment not found' }],
      });
      expect((await raw(h.server.url, 'DELETE', `/v2/deployments?deployment_ids=${MISSING}`)).status).toBe(
        404,
      );
      const statuses = await Promise.all(
        [a, b, c].map(
          async (d) =>
            ((await raw(h.server.url, 'GET', `/v2/deployments/${d!.id}`)).body as Deployment).status,
        ),
      );
      expect(statuses).toEqual(['AWAITING_DELETE', 'AWAITING_DELETE', 'AWAITING_DELETE']);
    });

    it("redeploys a revision: a new latest revision with that revision's source and configuration", async () => {
      const d = await h.client.createDeployment(dockerDeployment('redeploy', {}));
      await h.client.patchDeployment(d.id, {
        source_revision_config: { image_uri: 'ghcr.io/example/app:2.0.0' },
      });
      const res = await post(`/v2/deployments/${d.id}/revisions/${d.latest_revision_id}/redeploy`, undefined);
      expect(res.status).toBe(200);
      const after = res.body as Deployment;
      expect(after.source_revision_config.image_uri).toBe('ghcr.io/example/app:1.0.0');
      expect(after.image_version).toBe('1.0.0');
      const revisions = (
        (await raw(h.server.url, 'GET', `/v2/deployments/${d.id}/revisions`)).body as {
          resources: Revision[];
        }
      ).resources;
      expect(revisions.map((r) => r.source_revision_config.image_uri)).toEqual([
        'ghcr.io/example/app:1.0.0',
        'ghcr.io/example/app:2.0.0',
        'ghcr.io/example/app:1.0.0',
      ]);
      expect(revisions[0]!.id).toBe(after.latest_revision_id);
      expect((await post(`/v2/deployments/${d.id}/revisions/${MISSING}/redeploy`, undefined)).status).toBe(
        404,
      );
      await h.client.deleteDeployment(d.id);
      const deleted = await post(
        `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}/redeploy`,
        undefined,
      );
      expect(deleted.status).toBe(409);
    });
  });

  describe('what the reference does not provide', () => {
    it.each([
      ['POST', '/v2/deployments/{d}/push-token', 'image registry'],
      ['POST', '/v2/deployments/{d}/upload-url', 'object store'],
      ['POST', '/v1/projects/{d}/revisions/{r}/build_logs', 'build or deploy logs'],
      ['POST', '/v1/projects/{d}/revisions/{r}/deploy_logs', 'build or deploy logs'],
      ['POST', '/v1/projects/{d}/deploy_logs', 'build or deploy logs'],
    ])(
      '%s %s answers 501 with a coded detail naming what is missing (404 for an unknown deployment)',
      async (method, pattern, missing) => {
        const d = await h.client.createDeployment(
          dockerDeployment(`unprovided-${pattern.length}-${missing.length}`),
        );
        const path = pattern.replace('{d}', d.id).replace('{r}', d.latest_revision_id!);
        const res = await raw(h.server.url, method, path, { body: json({ limit: 10 }) });
        expect(res.status).toBe(501);
        const detail = (res.body as { detail: string }).detail;
        expect(detail.startsWith('MOORING_E_CP_NOT_PROVIDED: ')).toBe(true);
        expect(detail).toContain(missing);
        const unknown = await raw(
          h.server.url,
          method,
          pattern.replace('{d}', MISSING).replace('{r}', MISSING),
        );
        expect(unknown.status).toBe(404);
        expect((await raw(h.server.url, method, path, { apiKey: null })).status).toBe(401);
      },
    );
  });
});
