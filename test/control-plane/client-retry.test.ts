import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseRetryAfter } from '../../src/lean/retry-after.ts';
import { ControlPlaneClient, type RequestEvent } from '../../src/control-plane/client.ts';
import { CONTROL_PLANE_CONNECTIONS } from '../../src/control-plane/client-http.ts';
import { MooringError } from '../../src/errors.ts';
import { createLogger } from '../../src/log.ts';

type Responder = (req: IncomingMessage, res: ServerResponse) => void;

const KEY = 'canary-api-key-7c1e9d';
const TENANT = '66666666-6666-4666-8666-666666666666';

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Responder =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
const text =
  (status: number, body: string): Responder =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(body);
  };
const reset: Responder = (req) => req.socket.destroy();
const hang: Responder = () => {};

const tokens = [{ id: 'tok-1', provider_id: 'p' }];

/** A scripted server: each request takes the next responder; when they run out, the fallback. */
class Scripted {
  server!: Server;
  url = '';
  script: Responder[] = [];
  fallback: Responder = json(200, tokens);
  seen: { method: string; url: string; headers: IncomingMessage['headers'] }[] = [];
  sockets = new Set<unknown>();

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      this.sockets.add(req.socket);
      req.resume();
      (this.script.shift() ?? this.fallback)(req, res);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  reset(): void {
    this.script = [];
    this.fallback = json(200, tokens);
    this.seen = [];
    this.sockets.clear();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Captures log lines in memory. */
function memoryLog(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}

describe('control-plane client: retries, errors, parsing', () => {
  const srv = new Scripted();
  const events: RequestEvent[] = [];
  const log = memoryLog();
  const errors: unknown[] = [];
  let client: ControlPlaneClient;

  function makeClient(over: Partial<ConstructorParameters<typeof ControlPlaneClient>[0]> = {}) {
    return new ControlPlaneClient({
      baseUrl: srv.url,
      apiKey: KEY,
      tenantId: TENANT,
      retries: 3,
      retryMinDelayMs: 1,
      retryMaxDelayMs: 5,
      retryAfterCapMs: 20,
      timeoutMs: 2_000,
      logger: createLogger({ level: 'debug', destination: log.stream }),
      onRequest: (e) => events.push(e),
      ...over,
    });
  }

  async function failure(p: Promise<unknown>): Promise<MooringError> {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MooringError);
    errors.push(err);
    return err as MooringError;
  }

  beforeAll(async () => {
    await srv.start();
    client = makeClient();
  });
  afterEach(() => {
    srv.reset();
    events.length = 0;
  });
  afterAll(async () => {
    await client.close();
    await srv.close();
  });

  it('sends the key and the tenant as headers', async () => {
    await client.listTokens('p');
    expect(srv.seen[0]!.headers['x-api-key']).toBe(KEY);
    expect(srv.seen[0]!.headers['x-tenant-id']).toBe(TENANT);
    expect(srv.seen[0]!.url).toBe('/v2/auth/tokens?provider_id=p');
  });

  it('keeps the path of the base URL (a control plane served under a prefix)', async () => {
    const prefixed = makeClient({ baseUrl: `${srv.url}/api/` });
    try {
      await prefixed.listTokens('p');
      expect(srv.seen[0]!.url).toBe('/api/v2/auth/tokens?provider_id=p');
    } finally {
      await prefixed.close();
    }
  });

  it('reuses keep-alive connections for sequential requests', async () => {
    for (let i = 0; i < 10; i++) await client.listTokens();
    expect(srv.seen).toHaveLength(10);
    // undici may open a second socket while the first is being released; never one per request.
    expect(srv.sockets.size).toBeLessThanOrEqual(2);
  });

  it(`has ${CONTROL_PLANE_CONNECTIONS} requests in flight at once (the poller's revision fetches), not fewer`, async () => {
    const held: ServerResponse[] = [];
    srv.fallback = (_req, res) => held.push(res);
    const calls = Array.from({ length: CONTROL_PLANE_CONNECTIONS + 2 }, () => client.listTokens());
    await vi.waitFor(() => expect(held.length).toBe(CONTROL_PLANE_CONNECTIONS));
    // The two beyond the pool wait for a connection.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(held.length).toBe(CONTROL_PLANE_CONNECTIONS);
    srv.fallback = json(200, tokens);
    for (const res of held) json(200, tokens)(undefined as unknown as IncomingMessage, res);
    expect(await Promise.all(calls)).toEqual(Array(calls.length).fill(tokens));
  });

  it.each([503, 502, 504])('retries %i and then succeeds', async (status) => {
    srv.script = [json(status, { detail: 'busy' }), json(status, { detail: 'busy' })];
    expect(await client.listTokens()).toEqual(tokens);
    expect(srv.seen).toHaveLength(3);
    expect(events.map((e) => e.status)).toEqual([status, status, 200]);
    expect(events[0]).toMatchObject({
      method: 'GET',
      route: '/v2/auth/tokens',
      code: 'MOORING_E_CP_UNAVAILABLE',
    });
  });

  it('retries 429 after its Retry-After (seconds, capped) and after an HTTP date', async () => {
    srv.script = [
      json(429, { detail: 'slow down' }, { 'retry-after': '3600' }),
      json(429, { detail: 'slow down' }, { 'retry-after': new Date(Date.now() + 3_600_000).toUTCString() }),
    ];
    const before = log.lines.length;
    expect(await client.listTokens()).toEqual(tokens);
    expect(srv.seen).toHaveLength(3);
    // Both waits were the server's hint, capped at retryAfterCapMs (20 here).
    const waits = log.lines.slice(before).map((l) => JSON.parse(l).retryAfterMs);
    expect(waits).toEqual([20, 20]);
  });

  it('gives up after the retry budget with MOORING_E_CP_UNAVAILABLE', async () => {
    srv.fallback = json(503, { detail: 'down' });
    const err = await failure(client.listTokens());
    expect(err.code).toBe('MOORING_E_CP_UNAVAILABLE');
    expect(err.details).toMatchObject({ status: 503, method: 'GET', route: '/v2/auth/tokens' });
    expect(srv.seen).toHaveLength(4);
  });

  it.each([
    [400, 'MOORING_E_CP_REJECTED'],
    [401, 'MOORING_E_CP_UNAUTHORIZED'],
    [403, 'MOORING_E_CP_UNAUTHORIZED'],
    [404, 'MOORING_E_CP_NOT_FOUND'],
    [409, 'MOORING_E_CP_REJECTED'],
    [422, 'MOORING_E_CP_REJECTED'],
    [500, 'MOORING_E_CP_UNAVAILABLE'],
  ])('does not retry %i (%s)', async (status, code) => {
    srv.script = [
      json(status, { detail: [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }] }),
    ];
    const err = await failure(client.listTokens());
    expect(err.code).toBe(code);
    expect(err.details.status).toBe(status);
    expect(srv.seen).toHaveLength(1);
    if (code === 'MOORING_E_CP_REJECTED') expect(err.details.detail).toBe('body.name: Field required');
  });

  it('retries a reset connection (network error) and then succeeds', async () => {
    srv.script = [reset, reset];
    expect(await client.listTokens()).toEqual(tokens);
    expect(srv.seen).toHaveLength(3);
    expect(events[0]!.code).toBe('MOORING_E_CP_UNREACHABLE');
    expect(events[0]!.status).toBeUndefined();
  });

  it('times out an attempt that never answers (MOORING_E_CP_TIMEOUT) and retries it', async () => {
    const quick = makeClient({ timeoutMs: 100, retries: 1 });
    try {
      srv.script = [hang];
      expect(await quick.listTokens()).toEqual(tokens);
      expect(events.map((e) => e.code ?? e.status)).toEqual(['MOORING_E_CP_TIMEOUT', 200]);
      srv.fallback = hang;
      const err = await failure(quick.listTokens());
      expect(err.code).toBe('MOORING_E_CP_TIMEOUT');
    } finally {
      await quick.close();
    }
  });

  it('reports an unreachable server as MOORING_E_CP_UNREACHABLE after retrying', async () => {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((resolve) => dead.close(() => resolve()));
    const lost = makeClient({ baseUrl: `http://127.0.0.1:${port}`, retries: 2 });
    try {
      const err = await failure(lost.listTokens());
      expect(err.code).toBe('MOORING_E_CP_UNREACHABLE');
      expect(err.details.cause).toBe('ECONNREFUSED');
      expect(events).toHaveLength(3);
    } finally {
      await lost.close();
    }
  });

  it('refuses a body that is not JSON, or a record that does not match, as MOORING_E_CP_BAD_RESPONSE', async () => {
    srv.script = [text(200, '<html>')];
    expect((await failure(client.listTokens())).code).toBe('MOORING_E_CP_BAD_RESPONSE');
    srv.script = [json(200, { not: 'a revision' })];
    expect((await failure(client.getRevision('a', 'b'))).code).toBe('MOORING_E_CP_BAD_RESPONSE');
  });

  it('fails the whole listing on a malformed envelope', async () => {
    for (const body of [
      { items: [] },
      { resources: {}, offset: 0 },
      { resources: [], offset: -1 },
      [],
      null,
    ]) {
      srv.script = [json(200, body)];
      const err = await failure(client.listAllDeployments());
      expect(err.code).toBe('MOORING_E_CP_BAD_RESPONSE');
    }
  });

  it('fails the whole listing when a later page fails: an incomplete listing is never returned', async () => {
    const record = (i: number) => ({ id: `id-${i}`, name: `n-${i}` });
    srv.script = [json(200, { resources: [record(1), record(2)], offset: 2 }), json(500, { detail: 'boom' })];
    const err = await failure(client.listAllDeployments({ limit: 2 }));
    expect(err.code).toBe('MOORING_E_CP_UNAVAILABLE');
    expect(srv.seen.map((s) => new URL(s.url, 'http://x').searchParams.get('offset'))).toEqual(['0', '2']);
  });

  it('refuses a page whose offset does not move forward (it would loop forever)', async () => {
    srv.fallback = json(200, { resources: [{ id: 'x' }], offset: 0 });
    const err = await failure(client.listAllDeployments({ limit: 1 }));
    expect(err.code).toBe('MOORING_E_CP_BAD_RESPONSE');
  });

  it('keeps good records, rejects bad ones alone with a reason, and flags unknown values', async () => {
    const good = {
      name: 'a',
      source: 'external_docker',
      source_config: {},
      source_revision_config: {},
      secrets: [],
      id: 'd-1',
      tenant_id: 't',
      created_at: 'now',
      updated_at: 'now',
      status: 'READY',
      latest_revision_id: null,
      active_revision_id: null,
    };
    srv.script = [
      json(200, {
        resources: [good, { ...good, id: 'd-2', source: 'github', extra: 1 }, { id: 'd-3', name: 7 }, 'junk'],
        offset: 4,
      }),
    ];
    const listing = await client.listAllDeployments({ limit: 100 });
    expect(listing.items.map((d) => d.id)).toEqual(['d-1', 'd-2']);
    expect(listing.rejected.map((r) => [r.index, r.id])).toEqual([
      [2, 'd-3'],
      [3, undefined],
    ]);
    for (const r of listing.rejected) expect(r.reason.length).toBeGreaterThan(0);
    expect(listing.unsupported).toEqual([
      {
        index: 1,
        id: 'd-2',
        code: 'MOORING_E_RECORD_UNSUPPORTED',
        reason: 'source "github" is not supported',
      },
    ]);
  });

  it('never lets a throwing onRequest hook break a request', async () => {
    const noisy = makeClient({
      onRequest: () => {
        throw new Error('metrics down');
      },
    });
    try {
      expect(await noisy.listTokens()).toEqual(tokens);
    } finally {
      await noisy.close();
    }
  });

  it('never puts the API key in an error message, its details, its cause chain or a log line', () => {
    expect(errors.length).toBeGreaterThan(10);
    for (const err of errors) {
      const e = err as MooringError;
      expect(e.message).not.toContain(KEY);
      expect(JSON.stringify(e.details)).not.toContain(KEY);
      expect(inspect(e, { depth: 10 })).not.toContain(KEY);
      expect(String(e.stack)).not.toContain(KEY);
    }
    expect(log.lines.length).toBeGreaterThan(0);
    for (const line of log.lines) expect(line).not.toContain(KEY);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    ['2', 2000],
    ['0', 0],
    ['120', 30_000],
    ['Thu, 01 Jan 2026 00:00:05 GMT', 5000],
    ['Wed, 31 Dec 2025 23:59:00 GMT', 0],
    ['soon', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%s gives %s', (value, expected) => {
    expect(parseRetryAfter(value, 30_000, now)).toBe(expected);
  });
});
