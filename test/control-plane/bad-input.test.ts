import fc from 'fast-check';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, dockerDeployment, type Harness, harness, LISTENER_ID, raw } from './helpers.ts';

const MISSING = '99999999-9999-4999-8999-999999999999';

interface Case {
  name: string;
  method: string;
  /** `{d}` is replaced by a live deployment id, `{r}` by its revision, `{gone}` by a deleted one's. */
  path: string;
  body?: unknown;
  /** Sent as is (for malformed JSON). */
  rawBody?: string;
  headers?: Record<string, string>;
  apiKey?: string | null;
  status: number;
  /** For 422: the `loc` of the first problem. */
  loc?: (string | number)[];
  type?: string;
}

const longName = 'x'.repeat(254);
const dep = (over: Record<string, unknown>) => ({ ...dockerDeployment('bad-input-new'), ...over });
const sc = (over: Record<string, unknown>) => dep({ source_config: { listener_id: LISTENER_ID, ...over } });
const spec = (over: Record<string, unknown>) => sc({ resource_spec: over });

const CASES: Case[] = [
  // authentication
  { name: 'missing key', method: 'GET', path: '/v2/deployments', apiKey: null, status: 401 },
  { name: 'wrong key', method: 'GET', path: '/v2/deployments', apiKey: 'nope', status: 401 },
  { name: 'empty key', method: 'POST', path: '/v2/deployments', body: dep({}), apiKey: '', status: 401 },
  {
    name: 'key of another case',
    method: 'PATCH',
    path: '/v2/deployments/{d}',
    body: {},
    apiKey: API_KEY.toUpperCase(),
    status: 401,
  },
  // routing
  { name: 'unknown path', method: 'GET', path: '/v2/nothing', status: 404 },
  { name: 'wrong method on a collection', method: 'PUT', path: '/v2/deployments', body: {}, status: 405 },
  { name: 'wrong method on an item', method: 'PUT', path: '/v2/deployments/{d}', body: {}, status: 405 },
  // malformed bodies
  {
    name: 'malformed JSON on create',
    method: 'POST',
    path: '/v2/deployments',
    rawBody: '{"name": ',
    status: 422,
    loc: ['body'],
    type: 'json_invalid',
  },
  {
    name: 'malformed JSON on patch',
    method: 'PATCH',
    path: '/v2/deployments/{d}',
    rawBody: '{,}',
    status: 422,
    loc: ['body'],
  },
  {
    name: 'malformed JSON on listener',
    method: 'POST',
    path: '/v2/listeners',
    rawBody: 'nope',
    status: 422,
    loc: ['body'],
  },
  {
    name: 'empty body',
    method: 'POST',
    path: '/v2/deployments',
    rawBody: '',
    status: 422,
    loc: ['body'],
    type: 'missing',
  },
  { name: 'body is an array', method: 'POST', path: '/v2/deployments', body: [], status: 422, loc: ['body'] },
  {
    name: 'body is null',
    method: 'PATCH',
    path: '/v2/deployments/{d}',
    body: null,
    status: 422,
    loc: ['body'],
  },
  {
    name: 'not JSON content type',
    method: 'POST',
    path: '/v2/deployments',
    rawBody: 'name=x',
    headers: { 'content-type': 'text/plain' },
    status: 415,
  },
  // wrong types and values
  {
    name: 'name is a number',
    method: 'POST',
    path: '/v2/deployments',
    body: dep({ name: 5 }),
    status: 422,
    loc: ['body', 'name'],
  },
  {
    name: 'name too long',
    method: 'POST',
    path: '/v2/deployments',
    body: dep({ name: longName }),
    status: 422,
    loc: ['body', 'name'],
  },
  {
    name: 'name missing',
    method: 'POST',
    path: '/v2/deployments',
    body: { source: 'external_docker' },
    status: 422,
    loc: ['body', 'name'],
  },
  {
    // `github` is the provider's public name, accepted for `vcshost` (public-spellings.test.ts).
    name: 'unknown source',
    method: 'POST',
    path: '/v2/deployments',
    body: dep({ source: 'gitlab' }),
    status: 422,
    loc: ['body', 'source'],
  },
  {
    name: 'unknown deployment_type',
    method: 'POST',
    path: '/v2/deployments',
    body: sc({ deployment_type: 'huge' }),
    status: 422,
    loc: ['body', 'source_config', 'deployment_type'],
  },
  {
    name: 'cpu as a string',
    method: 'POST',
    path: '/v2/deployments',
    body: spec({ cpu: '1' }),
    status: 422,
    loc: ['body', 'source_config', 'resource_spec', 'cpu'],
  },
  {
    name: 'negative memory',
    method: 'POST',
    path: '/v2/deployments',
    body: spec({ memory_mb: -1 }),
    status: 422,
    loc: ['body', 'source_config', 'resource_spec', 'memory_mb'],
  },
  {
    name: 'fractional scale',
    method: 'POST',
    path: '/v2/deployments',
    body: spec({ min_scale: 1.5 }),
    status: 422,
    loc: ['body', 'source_config', 'resource_spec', 'min_scale'],
  },
  {
    name: 'sidecar without a name',
    method: 'POST',
    path: '/v2/deployments',
    body: spec({ sidecars: [{ image: 'x' }] }),
    status: 422,
    loc: ['body', 'source_config', 'resource_spec', 'sidecars', 0, 'name'],
  },
  {
    name: 'label value not a string',
    method: 'POST',
    path: '/v2/deployments',
    body: spec({ labels: { a: 1 } }),
    status: 422,
    loc: ['body', 'source_config', 'resource_spec', 'labels', 'a'],
  },
  {
    name: 'extra top-level member',
    method: 'POST',
    path: '/v2/deployments',
    body: dep({ extra: true }),
    status: 422,
    loc: ['body', 'extra'],
    type: 'extra_forbidden',
  },
  {
    name: 'extra resource_spec member',
    method: 'PATCH',
    path: '/v2/deployments/{d}',
    body: { source_config: { resource_spec: { cpus: 1 } } },
    status: 422,
    loc: ['body', 'source_config', 'resource_spec', 'cpus'],
    type: 'extra_forbidden',
  },
  {
    name: 'repo_commit_sha in a patch',
    method: 'PATCH',
    path: '/v2/deployments/{d}',
    body: { source_revision_config: { repo_commit_sha: 'abc' } },
    status: 422,
    loc: ['body', 'source_revision_config', 'repo_commit_sha'],
  },
  {
    name: 'listener_id not a UUID',
    method: 'POST',
    path: '/v2/deployments',
    body: sc({ listener_id: 'cluster-a' }),
    status: 422,
    loc: ['body', 'source_config', 'listener_id'],
  },
  {
    name: 'unknown listener',
    method: 'PATCH',
    path: '/v2/deployments/{d}',
    body: { source_config: { listener_id: MISSING } },
    status: 422,
    loc: ['body', 'source_config', 'listener_id'],
  },
  {
    name: 'duplicate secret names',
    method: 'PATCH',
    path: '/v2/deployments/{d}',
    body: {
      secrets: [
        { name: 'A', value: '1' },
        { name: 'A', value: '2' },
      ],
    },
    status: 422,
    loc: ['body', 'secrets', 1, 'name'],
  },
  {
    name: 'secret value not a string',
    method: 'PATCH',
    path: '/v2/deployments/{d}',
    body: { secrets: [{ name: 'A', value: 1 }] },
    status: 422,
    loc: ['body', 'secrets', 0, 'value'],
  },
  {
    name: 'secret_references on a git source',
    method: 'POST',
    path: '/v2/deployments',
    body: {
      name: 'g',
      source: 'vcshost',
      secret_references: [{ name: 'A', secret_name: 's', secret_key: 'k' }],
    },
    status: 422,
    loc: ['body', 'secret_references'],
  },
  {
    name: 'revision_source not allowed',
    method: 'PATCH',
    path: '/v2/deployments/{d}',
    body: { revision_source: 'external_docker' },
    status: 422,
    loc: ['body', 'revision_source'],
  },
  {
    name: 'listener with unknown compute_type',
    method: 'POST',
    path: '/v2/listeners',
    body: { compute_type: 'vm', compute_id: 'x' },
    status: 422,
    loc: ['body', 'compute_type'],
  },
  {
    name: 'listener without compute_id',
    method: 'POST',
    path: '/v2/listeners',
    body: { compute_type: 'k8s' },
    status: 422,
    loc: ['body', 'compute_id'],
  },
  {
    name: 'listener namespaces not a list',
    method: 'PATCH',
    path: `/v2/listeners/${LISTENER_ID}`,
    body: { compute_config: { k8s_namespaces: 'default' } },
    status: 422,
    loc: ['body', 'compute_config', 'k8s_namespaces'],
  },
  {
    name: 'listener patch changes compute_id',
    method: 'PATCH',
    path: `/v2/listeners/${LISTENER_ID}`,
    body: { compute_id: 'other' },
    status: 422,
    loc: ['body', 'compute_id'],
    type: 'extra_forbidden',
  },
  // query parameters
  { name: 'limit 0', method: 'GET', path: '/v2/deployments?limit=0', status: 422, loc: ['query', 'limit'] },
  {
    name: 'limit 101',
    method: 'GET',
    path: '/v2/deployments?limit=101',
    status: 422,
    loc: ['query', 'limit'],
  },
  {
    name: 'limit not a number',
    method: 'GET',
    path: '/v2/listeners?limit=ten',
    status: 422,
    loc: ['query', 'limit'],
  },
  {
    name: 'limit fractional',
    method: 'GET',
    path: '/v2/deployments/{d}/revisions?limit=1.5',
    status: 422,
    loc: ['query', 'limit'],
  },
  {
    name: 'offset -1',
    method: 'GET',
    path: '/v2/deployments?offset=-1',
    status: 422,
    loc: ['query', 'offset'],
  },
  {
    name: 'offset -1 on revisions',
    method: 'GET',
    path: '/v2/deployments/{d}/revisions?offset=-1',
    status: 422,
    loc: ['query', 'offset'],
  },
  // Integers are plain decimal digits: what Number() would coerce is refused on every list route.
  ...['/v2/deployments', '/v2/deployments/{d}/revisions', '/v2/listeners'].flatMap((route) =>
    [
      ['limit', '0x10'],
      ['limit', '1e1'],
      ['offset', ''],
      ['limit', '%2B5'],
      ['offset', '+5'],
      ['limit', '%205'],
      ['limit', '5.0'],
      ['offset', '-0'],
      ['offset', '0b1'],
      ['limit', 'Infinity'],
    ].map(([param, value]) => ({
      name: `${param}=${value} on ${route}`,
      method: 'GET',
      path: `${route}?${param}=${value}`,
      status: 422,
      loc: ['query', param as string],
    })),
  ),
  {
    name: 'unknown status',
    method: 'GET',
    path: '/v2/deployments?status=RUNNING',
    status: 422,
    loc: ['query', 'status'],
  },
  {
    // `yes`, `True` and `1` are booleans as the public API reads them (test/contract/public-clients.test.ts).
    name: 'boolean typo',
    method: 'GET',
    path: '/v2/deployments?remote_reconciled=ture',
    status: 422,
    loc: ['query', 'remote_reconciled'],
  },
  {
    name: 'deployment_ids not UUIDs',
    method: 'GET',
    path: '/v2/deployments?deployment_ids=a,b',
    status: 422,
    loc: ['query', 'deployment_ids', 0],
  },
  {
    name: 'empty item in a comma list',
    method: 'GET',
    path: `/v2/deployments?deployment_ids=${MISSING},,${MISSING}`,
    status: 422,
    loc: ['query', 'deployment_ids', 1],
  },
  {
    name: 'empty tag list',
    method: 'GET',
    path: '/v2/deployments?tag_value_ids=',
    status: 422,
    loc: ['query', 'tag_value_ids', 0],
  },
  { name: 'empty name', method: 'GET', path: '/v2/deployments?name=', status: 422, loc: ['query', 'name'] },
  {
    name: 'unknown deployment_type filter',
    method: 'GET',
    path: '/v2/deployments?deployment_type=big',
    status: 422,
    loc: ['query', 'deployment_type'],
  },
  {
    name: 'unknown revision status in a list',
    method: 'GET',
    path: '/v2/deployments/{d}/revisions?status=DEPLOYED,BOGUS',
    status: 422,
    loc: ['query', 'status', 1],
  },
  {
    name: 'unknown query parameter',
    method: 'GET',
    path: '/v2/deployments?limt=5',
    status: 422,
    loc: ['query', 'limt'],
    type: 'extra_forbidden',
  },
  {
    name: 'repeated query parameter',
    method: 'GET',
    path: '/v2/deployments?limit=5&limit=6',
    status: 422,
    loc: ['query', 'limit'],
  },
  {
    name: 'query on a create',
    method: 'POST',
    path: '/v2/deployments?dry_run=true',
    body: dep({}),
    status: 422,
    loc: ['query', 'dry_run'],
  },
  {
    name: 'tenant header not a UUID',
    method: 'GET',
    path: '/v2/deployments',
    headers: { 'x-tenant-id': 'acme' },
    status: 422,
    loc: ['header', 'x-tenant-id'],
  },
  // ids
  {
    name: 'deployment id not a UUID (patch)',
    method: 'PATCH',
    path: '/v2/deployments/not-a-uuid',
    body: {},
    status: 422,
    loc: ['path', 'deployment_id'],
  },
  {
    name: 'deployment id not a UUID (delete)',
    method: 'DELETE',
    path: '/v2/deployments/123',
    status: 422,
    loc: ['path', 'deployment_id'],
  },
  {
    name: 'deployment id not a UUID (revisions)',
    method: 'GET',
    path: '/v2/deployments/x/revisions',
    status: 422,
    loc: ['path', 'deployment_id'],
  },
  {
    name: 'revision id not a UUID',
    method: 'GET',
    path: '/v2/deployments/{d}/revisions/latest',
    status: 422,
    loc: ['path', 'revision_id'],
  },
  {
    name: 'listener id not a UUID',
    method: 'PATCH',
    path: '/v2/listeners/cluster-a',
    body: {},
    status: 422,
    loc: ['path', 'listener_id'],
  },
  {
    name: 'integration id not a UUID',
    method: 'GET',
    path: '/v1/integrations/vcshost/acme/repos',
    status: 422,
    loc: ['path', 'integration_id'],
  },
  {
    name: 'forge integration id not a UUID',
    method: 'GET',
    path: '/v1/integrations/forge/vcshost/acme/repos',
    status: 422,
    loc: ['path', 'integration_id'],
  },
  // unknown ids
  {
    name: 'unknown deployment (patch)',
    method: 'PATCH',
    path: `/v2/deployments/${MISSING}`,
    body: {},
    status: 404,
  },
  { name: 'unknown deployment (delete)', method: 'DELETE', path: `/v2/deployments/${MISSING}`, status: 404 },
  {
    name: 'unknown deployment (revisions)',
    method: 'GET',
    path: `/v2/deployments/${MISSING}/revisions`,
    status: 404,
  },
  { name: 'unknown revision', method: 'GET', path: `/v2/deployments/{d}/revisions/${MISSING}`, status: 404 },
  {
    name: 'revision of another deployment',
    method: 'GET',
    path: '/v2/deployments/{gone}/revisions/{r}',
    status: 404,
  },
  {
    name: 'unknown listener (patch)',
    method: 'PATCH',
    path: `/v2/listeners/${MISSING}`,
    body: { version: '1' },
    status: 404,
  },
  {
    name: 'unknown integration',
    method: 'GET',
    path: `/v1/integrations/vcshost/${MISSING}/repos`,
    status: 404,
  },
  // conflicts
  {
    name: 'duplicate live name',
    method: 'POST',
    path: '/v2/deployments',
    body: dockerDeployment('bad-input-live'),
    status: 409,
  },
  {
    name: 'duplicate compute_id',
    method: 'POST',
    path: '/v2/listeners',
    body: { compute_type: 'k8s', compute_id: 'cluster-a' },
    status: 409,
  },
  {
    name: 'patch of a deployment being deleted',
    method: 'PATCH',
    path: '/v2/deployments/{gone}',
    body: { secrets: [] },
    status: 409,
  },
];

describe('bad input: each gets its documented 4xx with a detail, and the store is unchanged', () => {
  let h: Harness;
  const ids = { d: '', r: '', gone: '' };

  beforeAll(async () => {
    h = await harness();
    const live = await h.client.createDeployment(dockerDeployment('bad-input-live'));
    const gone = await h.client.createDeployment(dockerDeployment('bad-input-gone'));
    await h.client.deleteDeployment(gone.id);
    Object.assign(ids, { d: live.id, r: live.latest_revision_id, gone: gone.id });
  });
  afterAll(async () => {
    await h.close();
  });

  it.each(CASES)('$name → $status', async (c) => {
    const before = h.server.store.dump();
    const path = c.path.replace('{d}', ids.d).replace('{r}', ids.r).replace('{gone}', ids.gone);
    const res = await raw(h.server.url, c.method, path, {
      ...(c.rawBody !== undefined
        ? { body: c.rawBody }
        : c.body !== undefined
          ? { body: JSON.stringify(c.body) }
          : {}),
      ...(c.headers ? { headers: c.headers } : {}),
      ...(c.apiKey !== undefined ? { apiKey: c.apiKey } : {}),
    });
    expect(res.status).toBe(c.status);
    const body = res.body as { detail: unknown };
    expect(body).toHaveProperty('detail');
    if (c.status === 422) {
      expect(Array.isArray(body.detail)).toBe(true);
      const items = body.detail as { loc: unknown[]; msg: unknown; type: unknown }[];
      for (const item of items) {
        expect(typeof item.msg).toBe('string');
        expect(typeof item.type).toBe('string');
      }
      if (c.loc) expect(items.map((i) => i.loc)).toContainEqual(c.loc);
      if (c.type) expect(items.map((i) => i.type)).toContain(c.type);
    } else {
      expect(typeof body.detail).toBe('string');
    }
    expect(h.server.store.dump()).toEqual(before);
  });

  it('answers 405 with an Allow header', async () => {
    const res = await raw(h.server.url, 'PUT', `/v2/deployments/${ids.d}`, { body: '{}' });
    expect(res.status).toBe(405);
    expect(String(res.headers.allow)).toBe('GET, PATCH, DELETE');
  });

  it('refuses a declared body over 1 MiB with 413 without reading it', async () => {
    const before = h.server.store.dump();
    const big = JSON.stringify({
      ...dockerDeployment('too-big'),
      secrets: [{ name: 'X', value: 'a'.repeat(1024 * 1024) }],
    });
    const res = await raw(h.server.url, 'POST', '/v2/deployments', { body: big });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: expect.stringContaining('exceeds') });
    expect(h.server.store.dump()).toEqual(before);
  });

  it('stops reading a streamed (chunked) body at the limit and answers 413', async () => {
    const before = h.server.store.dump();
    let sent = 0;
    const chunk = Buffer.alloc(64 * 1024, 'a');
    // A body with no length: the server cannot know its size until it crosses the limit.
    const stream = new Readable({
      read() {
        if (sent >= 8 * 1024 * 1024) return this.push(null);
        sent += chunk.length;
        this.push(chunk);
      },
    });
    const res = await request(`${h.server.url}/v2/deployments`, {
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: stream,
    }).catch((err: unknown) => err as Error);
    if (res instanceof Error) {
      // The server may close before the client finished writing; what matters is below.
      expect((res as { code?: string }).code).toMatch(/UND_ERR|EPIPE|ECONNRESET/);
    } else {
      expect(res.statusCode).toBe(413);
      await res.body.dump();
    }
    // Reading stopped: far less than the 8 MiB offered went out before the server hung up.
    expect(sent).toBeLessThan(8 * 1024 * 1024);
    expect(h.server.store.dump()).toEqual(before);
    expect((await raw(h.server.url, 'GET', '/healthz')).status).toBe(200);
  });

  it('accepts a body just under the limit', async () => {
    const body = JSON.stringify({
      secrets: [{ name: 'BIG', value: 'b'.repeat(1024 * 1024 - 100) }],
    });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(1024 * 1024);
    const res = await raw(h.server.url, 'PATCH', `/v2/deployments/${ids.d}`, { body });
    expect(res.status).toBe(200);
  });
});

describe('property: arbitrary input never gets a 5xx, and a refused write changes nothing', () => {
  let h: Harness;
  let live = '';
  beforeAll(async () => {
    h = await harness();
    live = (await h.client.createDeployment(dockerDeployment('fuzzed'))).id;
  });
  afterAll(async () => {
    await h.close();
  });

  const target = fc.constantFrom(
    ['POST', '/v2/deployments'],
    ['PATCH', '/v2/deployments/{d}'],
    ['POST', '/v2/listeners'],
    ['PATCH', `/v2/listeners/${LISTENER_ID}`],
  );

  it('JSON bodies of any shape', async () => {
    await fc.assert(
      fc.asyncProperty(target, fc.jsonValue({ maxDepth: 4 }), async ([method, path], body) => {
        const before = h.server.store.dump();
        const res = await raw(h.server.url, method!, path!.replace('{d}', live), {
          body: JSON.stringify(body),
        });
        expect(res.status).toBeLessThan(500);
        expect(res.body).toBeDefined();
        if (res.status >= 400) {
          expect(res.body).toHaveProperty('detail');
          expect(h.server.store.dump()).toEqual(before);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('query strings and path segments of any content', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          '/v2/deployments',
          '/v2/deployments/{x}/revisions',
          '/v2/listeners',
          '/v1/integrations/vcshost/{x}/repos',
        ),
        fc.string({ maxLength: 20 }),
        fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
        async (path, segment, query) => {
          const qs = new URLSearchParams(query).toString();
          const url = `${path.replace('{x}', encodeURIComponent(segment))}${qs ? `?${qs}` : ''}`;
          const res = await raw(h.server.url, 'GET', url);
          expect(res.status).toBeLessThan(500);
          expect(res.body).toBeDefined();
        },
      ),
      { numRuns: 150 },
    );
  });
});
