/**
 * The public clients of this interface, call by call, against `mooring control-plane
 * --simulate-builds 1` (docs/control-plane.md, "Public clients"): the public API quick-start (a
 * Python `requests` script) and the public command-line deploy client (`langgraph deploy`, an
 * `httpx` client). Each request is sent as those clients send it (method, path, query, headers,
 * body, Python's `None`/`False` as JSON `null`/`false`), and every answer is checked.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/context.ts';
import { controlPlane } from '../../src/cli/control-plane.ts';
import { strict } from '../../src/contract/index.ts';

const API_KEY = `public-client-${randomUUID()}`;
const WORKSPACE_ID = randomUUID();
const INTEGRATION_ID = randomUUID();
const BUILD_ORDER = ['QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED'];
const TERMINAL = new Set(['DEPLOYED', 'BUILD_FAILED', 'DEPLOY_FAILED', 'CREATE_FAILED']);

interface Answer {
  status: number;
  body: unknown;
}

/** One public client: its fixed headers, and every call it made with the status it got. */
class PublicClient {
  readonly calls: string[] = [];
  readonly #base: string;
  readonly #headers: Record<string, string>;

  constructor(base: string, headers: Record<string, string>) {
    this.#base = base;
    this.#headers = headers;
  }

  async send(method: string, path: string, json?: unknown): Promise<Answer> {
    const headers: Record<string, string> = { ...this.#headers };
    if (json !== undefined) headers['content-type'] = 'application/json';
    const res = await request(`${this.#base}${path}`, {
      method: method as 'GET',
      headers,
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    });
    const text = await res.body.text();
    this.calls.push(`${method} ${path.replace(/[0-9a-f-]{36}/g, '{id}')} -> ${res.statusCode}`);
    return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
  }
}

/** Polls a revision as both clients do (they sleep 60 s or a few seconds; 50 ms here) until a terminal status. */
async function pollRevision(
  client: PublicClient,
  deploymentId: string,
  revisionId: string,
): Promise<string[]> {
  const seen: string[] = [];
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const res = await client.send('GET', `/v2/deployments/${deploymentId}/revisions/${revisionId}`);
    expect(res.status).toBe(200);
    const revision = strict.Revision.parse(res.body);
    if (seen.at(-1) !== revision.status) seen.push(revision.status);
    if (TERMINAL.has(revision.status)) return seen;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`revision ${revisionId} did not finish: ${seen.join(' -> ')}`);
}

describe('public clients against mooring control-plane --simulate-builds 1', { timeout: 60_000 }, () => {
  const abort = new AbortController();
  let running: Promise<number>;
  let base = '';

  beforeAll(async () => {
    let out = '';
    const stdout = new PassThrough();
    stdout.on('data', (c) => {
      out += String(c);
    });
    const ctx: CliContext = {
      env: { MOORING_LOG_LEVEL: 'silent', MOORING_API_KEY: API_KEY },
      stdout,
      stderr: new PassThrough(),
      signal: abort.signal,
      cwd: join(import.meta.dirname, '../..'),
      version: 'test',
    };
    running = controlPlane(['--port', '0', '--simulate-builds', '1'], ctx);
    for (let i = 0; i < 500 && !base; i++) {
      base = /listening on (http:\/\/\S+)/.exec(out)?.[1] ?? '';
      if (!base) await new Promise((r) => setTimeout(r, 10));
    }
    expect(base).not.toBe('');
  });

  afterAll(async () => {
    abort.abort();
    expect(await running).toBe(0);
  });

  it('the public API quick-start runs to the end without a changed word', async () => {
    // get_headers(): the key and the workspace; requests adds its own defaults.
    const qs = new PublicClient(base, {
      'X-Api-Key': API_KEY,
      'X-Tenant-Id': WORKSPACE_ID,
      'User-Agent': 'python-requests/2.32.3',
      Accept: '*/*',
      'Accept-Encoding': 'gzip, deflate',
    });

    // create_deployment()
    const created = await qs.send('POST', '/v2/deployments', {
      name: 'my_deployment',
      source: 'github',
      source_config: {
        integration_id: INTEGRATION_ID,
        repo_url: 'https://github.com/langchain-ai/langgraph-example',
        deployment_type: 'dev',
        build_on_push: false,
        custom_url: null,
        resource_spec: null,
      },
      source_revision_config: { repo_ref: 'main', langgraph_config_path: 'langgraph.json', image_uri: null },
      secrets: [
        { name: 'OPENAI_API_KEY', value: 'test_openai_api_key' },
        { name: 'ANTHROPIC_API_KEY', value: 'test_anthropic_api_key' },
        { name: 'TAVILY_API_KEY', value: 'test_tavily_api_key' },
      ],
    });
    expect(created.status).toBe(201);
    const deployment = strict.Deployment.parse(created.body);
    expect(deployment.tenant_id).toBe(WORKSPACE_ID);
    const id = deployment.id;

    // Quick start step 2: get_deployment().
    const got = await qs.send('GET', `/v2/deployments/${id}`);
    expect(got.status).toBe(200);
    expect(strict.Deployment.parse(got.body).latest_revision_id).toBe(deployment.latest_revision_id);

    // list_revisions(): "sorted by created_at in descending order (latest first)".
    let revisions = await qs.send('GET', `/v2/deployments/${id}/revisions`);
    expect(revisions.status).toBe(200);
    let latest = (revisions.body as { resources: { id: string }[] }).resources[0]!;
    expect(latest.id).toBe(deployment.latest_revision_id);

    // wait_for_deployment(): the statuses come in the build order, from QUEUED to DEPLOYED
    // (a poll may fall between two of them: real time here).
    const seen = await pollRevision(qs, id, latest.id);
    expect(seen[0]).toBe('QUEUED');
    expect(seen.at(-1)).toBe('DEPLOYED');
    expect(seen).toEqual(BUILD_ORDER.filter((s) => seen.includes(s)));

    // patch_deployment()
    const patched = await qs.send('PATCH', `/v2/deployments/${id}`, {
      source_config: { build_on_push: true },
      source_revision_config: { repo_ref: 'main', langgraph_config_path: 'langgraph.json' },
    });
    expect(patched.status).toBe(200);
    const after = strict.Deployment.parse(patched.body);
    expect(after.source_config.build_on_push).toBe(true);

    revisions = await qs.send('GET', `/v2/deployments/${id}/revisions`);
    latest = (revisions.body as { resources: { id: string }[] }).resources[0]!;
    expect(latest.id).toBe(after.latest_revision_id);
    // A known difference: the PATCH repeats the values the deployment has, and the reference
    // makes a revision only for a change (the public API makes one whenever the member is
    // given), so the script's second wait ends on the revision already deployed.
    expect(latest.id).toBe(deployment.latest_revision_id);
    expect((await pollRevision(qs, id, latest.id)).at(-1)).toBe('DEPLOYED');

    // delete_deployment()
    expect((await qs.send('DELETE', `/v2/deployments/${id}`)).status).toBe(204);
    expect(qs.calls.filter((c) => !c.includes('/revisions/{id} ->'))).toEqual([
      'POST /v2/deployments -> 201',
      'GET /v2/deployments/{id} -> 200',
      'GET /v2/deployments/{id}/revisions -> 200',
      'PATCH /v2/deployments/{id} -> 200',
      'GET /v2/deployments/{id}/revisions -> 200',
      'DELETE /v2/deployments/{id} -> 204',
    ]);
  });

  it('the newest quick-start\'s `deployment_type: "serverless"` is refused: a known difference (the interface lists dev_free, dev, prod)', async () => {
    const qs = new PublicClient(base, { 'X-Api-Key': API_KEY, 'X-Tenant-Id': WORKSPACE_ID });
    const res = await qs.send('POST', '/v2/deployments', {
      name: 'serverless',
      source: 'github',
      source_config: { integration_id: INTEGRATION_ID, deployment_type: 'serverless' },
      source_revision_config: { repo_ref: 'main', langgraph_config_path: 'langgraph.json' },
      secrets: [],
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ detail: [{ loc: ['body', 'source_config', 'deployment_type'] }] });
  });

  it('the deploy client: every call is served, push-token and upload-url a coded 501 at worst', async () => {
    // HostBackendClient: X-Api-Key and Accept on every call, X-Tenant-ID when configured; httpx adds its defaults.
    const cli = new PublicClient(base, {
      'X-Api-Key': API_KEY,
      Accept: 'application/json',
      'X-Tenant-ID': WORKSPACE_ID,
      'User-Agent': 'python-httpx/0.28.1',
      'Accept-Encoding': 'gzip, deflate',
    });
    const name = 'my-agent';

    // find_deployment_id_by_name(): nothing yet.
    const none = await cli.send('GET', `/v2/deployments?name_contains=${name}`);
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ resources: [], offset: 0 });

    // create_deployment(), internal_docker (the image is built and pushed by the client).
    const created = await cli.send('POST', '/v2/deployments', {
      name,
      source: 'internal_docker',
      source_config: { deployment_type: 'dev' },
      source_revision_config: {},
      secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-test' }],
    });
    expect(created.status).toBe(201);
    const id = strict.Deployment.parse(created.body).id;

    // Found by name on the next run.
    const found = await cli.send('GET', `/v2/deployments?name_contains=${name}`);
    expect((found.body as { resources: { id: string; name: string }[] }).resources).toMatchObject([
      { id, name },
    ]);
    // get_deployment() with --deployment-id.
    expect((await cli.send('GET', `/v2/deployments/${id}`)).status).toBe(200);

    // request_push_token(): the reference has no registry.
    const token = await cli.send('POST', `/v2/deployments/${id}/push-token`);
    expect(token.status).toBe(501);
    expect((token.body as { detail: string }).detail).toMatch(/^MOORING_E_CP_NOT_PROVIDED: .*image registry/);

    // update_deployment(): the image pushed elsewhere, with the packages it tracks.
    const updated = await cli.send('PATCH', `/v2/deployments/${id}`, {
      revision_source: 'internal_docker',
      source_revision_config: { image_uri: 'registry.example/my-agent:abc123' },
      tracked_packages: ['langgraph', 'langchain-core'],
      secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-test' }],
    });
    expect(updated.status).toBe(200);
    const after = strict.Deployment.parse(updated.body);
    expect(after.image_version).toBe('abc123');

    // _poll_revision_status(): revisions?limit=1 is the newest, then get_revision() until terminal.
    const newest = await cli.send('GET', `/v2/deployments/${id}/revisions?limit=1`);
    expect(newest.status).toBe(200);
    const [revision] = (newest.body as { resources: { id: string }[] }).resources;
    expect(revision!.id).toBe(after.latest_revision_id);
    expect((await pollRevision(cli, id, revision!.id)).at(-1)).toBe('DEPLOYED');
    // _print_deployment_result()
    const final = await cli.send('GET', `/v2/deployments/${id}`);
    expect(strict.Deployment.parse(final.body).active_revision_id).toBe(revision!.id);

    // The remote build path: internal_source with langgraph_config_path.
    const source = await cli.send('POST', '/v2/deployments', {
      name: 'my-agent-src',
      source: 'internal_source',
      source_config: { deployment_type: 'dev' },
      source_revision_config: { langgraph_config_path: 'langgraph.json' },
    });
    expect(source.status).toBe(201);
    const sourceId = strict.Deployment.parse(source.body).id;
    // request_upload_url(): no object store.
    const upload = await cli.send('POST', `/v2/deployments/${sourceId}/upload-url`);
    expect(upload.status).toBe(501);
    expect((upload.body as { detail: string }).detail).toMatch(/^MOORING_E_CP_NOT_PROVIDED: .*object store/);
    // update_deployment_internal_source()
    const rebuilt = await cli.send('PATCH', `/v2/deployments/${sourceId}`, {
      revision_source: 'internal_source',
      source_revision_config: {
        source_tarball_path: 'uploads/my-agent.tar.gz',
        langgraph_config_path: 'langgraph.json',
      },
      tracked_packages: ['langgraph'],
      source_config: { install_command: 'pip install -e .', build_command: 'make build' },
    });
    expect(rebuilt.status).toBe(200);
    const rebuiltDeployment = strict.Deployment.parse(rebuilt.body);
    expect(rebuiltDeployment.source_config.install_command).toBe('pip install -e .');
    expect(rebuiltDeployment.source_revision_config.graph_config_path).toBe('langgraph.json');
    // get_build_logs() / get_deploy_logs(): no logs here, said so.
    for (const path of [
      `/v1/projects/${sourceId}/revisions/${rebuiltDeployment.latest_revision_id}/build_logs`,
      `/v1/projects/${sourceId}/revisions/${rebuiltDeployment.latest_revision_id}/deploy_logs`,
      `/v1/projects/${sourceId}/deploy_logs`,
    ]) {
      const logs = await cli.send('POST', path, { limit: 100, order: 'asc' });
      expect(logs.status).toBe(501);
      expect((logs.body as { detail: string }).detail).toMatch(/^MOORING_E_CP_NOT_PROVIDED: /);
    }

    // Newer versions: the listener read and the placement listing.
    const listeners = await cli.send('GET', '/v2/listeners');
    expect(listeners.status).toBe(200);
    const missingListener = await cli.send('GET', `/v2/listeners/${randomUUID()}`);
    expect(missingListener.status).toBe(404);
    const placed = await cli.send('GET', `/v2/deployments?agent_id=${randomUUID()}`);
    expect(placed.status).toBe(200);
    expect(placed.body).toEqual({ resources: [], offset: 0 });

    // deploy list (name_contains defaults to empty), deploy delete.
    const listed = await cli.send('GET', '/v2/deployments?name_contains=');
    expect((listed.body as { resources: { name: string }[] }).resources.map((d) => d.name)).toEqual(
      expect.arrayContaining(['my-agent-src', 'my-agent']),
    );
    expect((await cli.send('DELETE', `/v2/deployments/${id}`)).status).toBe(204);
    expect((await cli.send('DELETE', `/v2/deployments/${sourceId}`)).status).toBe(204);
    expect(
      cli.calls.some((c) => / -> (404|405|422)$/.test(c) && !c.startsWith('GET /v2/listeners/{id}')),
    ).toBe(false);
  });

  it('a listener read by id answers 200 for a listener that exists', async () => {
    const admin = new PublicClient(base, { 'X-Api-Key': API_KEY });
    const made = await admin.send('POST', '/v2/listeners', {
      compute_type: 'k8s',
      compute_id: 'public-read',
    });
    expect(made.status).toBe(201);
    const id = (made.body as { id: string }).id;
    const read = await admin.send('GET', `/v2/listeners/${id}`);
    expect(read.status).toBe(200);
    expect(strict.Listener.parse(read.body).compute_id).toBe('public-read');
  });
});
