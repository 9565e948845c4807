import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { errorCode } from '../../src/errors.ts';
import { kubeError } from '../../src/kube/errors.ts';
import { KubeApiError, KubeHttp } from '../../src/kube/http.ts';
import type { ClusterAccess, Credentials } from '../../src/kube/kubeconfig.ts';

/** A plain-HTTP API server that records what it was sent and answers from a script. */
let server: Server;
let url: string;
let seen: IncomingHttpHeaders[] = [];
let sent: { url: string; body: string }[] = [];
let answer: (h: IncomingHttpHeaders) => [number, unknown] = () => [200, { kind: 'Status' }];
const dir = mkdtempSync(join(tmpdir(), 'mooring-http-'));

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      text += c;
    });
    req.on('end', () => {
      sent.push({ url: req.url ?? '', body: text });
      if (req.url?.includes('/slow')) return; // never answered: the caller must give up
      const [code, body] = answer(req.headers);
      const bytes = Buffer.from(JSON.stringify(body));
      // In two writes, cut inside a multi-byte character when there is one: the client decodes
      // the whole body, not each chunk.
      const cut = Math.max(1, bytes.indexOf(0xe2) + 1);
      res.writeHead(code, { 'content-type': 'application/json' });
      res.write(bytes.subarray(0, cut));
      setTimeout(() => res.end(bytes.subarray(cut)), 5);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  seen = [];
  sent = [];
  answer = () => [200, { kind: 'Status' }];
});

const access = (credentials: Credentials): ClusterAccess => ({
  server: url,
  tls: { rejectUnauthorized: false },
  credentials,
});
const get = (kube: KubeHttp) => kube.request({ method: 'GET', path: '/api/v1/namespaces/a' });

/** An exec plugin: a node script printing an ExecCredential; counts its runs in a file. */
function plugin(token: string, expires?: string): Credentials {
  const script = join(dir, `plugin-${token}.mjs`);
  const runs = join(dir, `runs-${token}`);
  writeFileSync(runs, '');
  writeFileSync(
    script,
    `import { appendFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(runs)}, 'x');
const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);
if (info.kind !== 'ExecCredential' || process.env.FROM_KUBECONFIG !== 'yes') process.exit(3);
console.log(JSON.stringify({ apiVersion: info.apiVersion, kind: 'ExecCredential', status: { token: ${JSON.stringify(token)}${expires ? `, expirationTimestamp: ${JSON.stringify(expires)}` : ''} } }));`,
  );
  return {
    type: 'exec',
    exec: {
      command: process.execPath,
      args: [script],
      env: [{ name: 'FROM_KUBECONFIG', value: 'yes' }],
      apiVersion: 'client.authentication.k8s.io/v1',
      workDir: dir,
    },
  };
}

describe('KubeHttp', () => {
  it('authenticates with a token, basic auth or a token file re-read when it rotates', async () => {
    const token = new KubeHttp(access({ type: 'token', token: 'abc' }), { userAgent: 'mooring/1 (pod-a)' });
    await get(token);
    expect(seen[0]?.authorization).toBe('Bearer abc');
    expect(seen[0]?.['user-agent']).toBe('mooring/1 (pod-a)');
    const basic = new KubeHttp(access({ type: 'basic', username: 'u', password: 'p' }));
    await get(basic);
    expect(seen[1]?.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    const file = join(dir, 'token');
    writeFileSync(file, 'first\n');
    const fromFile = new KubeHttp(access({ type: 'token-file', file }));
    await get(fromFile);
    expect(seen[2]?.authorization).toBe('Bearer first');
    await Promise.all([token.close(), basic.close(), fromFile.close()]);
  });

  it('tells the redactor each token a token file or an exec plugin gives, once per token', async () => {
    const file = join(dir, 'rotating-token');
    writeFileSync(file, 'file-token-one\n');
    const told: (readonly string[])[] = [];
    const fromFile = new KubeHttp(access({ type: 'token-file', file }), {
      onCredentials: (values) => told.push(values),
    });
    await get(fromFile);
    await get(fromFile);
    expect(told).toEqual([[], ['file-token-one']]);
    const exec = new KubeHttp(access(plugin('exec-secret-token')), {
      env: { PATH: process.env.PATH },
      onCredentials: (values) => told.push(values),
    });
    await Promise.all([get(exec), get(exec)]);
    expect(told.slice(2)).toEqual([[], ['exec-secret-token']]);
    await Promise.all([fromFile.close(), exec.close()]);
  });

  it('runs an exec plugin once, keeps its token, and runs it again after a 401', async () => {
    const creds = plugin('exec-token');
    const kube = new KubeHttp(access(creds), { env: { PATH: process.env.PATH } });
    await Promise.all([get(kube), get(kube), get(kube)]);
    expect(seen.map((h) => h.authorization)).toEqual(Array(3).fill('Bearer exec-token'));
    const runs = () => readFileSync(join(dir, 'runs-exec-token'), 'utf8').length;
    expect(runs()).toBe(1);
    answer = () => [401, { kind: 'Status', reason: 'Unauthorized' }];
    await expect(get(kube)).rejects.toBeInstanceOf(KubeApiError);
    answer = () => [200, {}];
    await get(kube);
    expect(runs()).toBe(2);
    await kube.close();
  });

  it('runs an exec plugin again once its token is about to expire', async () => {
    const soon = new Date(Date.now() + 30_000).toISOString();
    const kube = new KubeHttp(access(plugin('short', soon)));
    await get(kube);
    await get(kube);
    expect(readFileSync(join(dir, 'runs-short'), 'utf8').length).toBe(2);
    await kube.close();
  });

  it('a failing exec plugin is a coded error that shows neither its output nor a token', async () => {
    const creds = plugin('never-printed');
    if (creds.type === 'exec') creds.exec.env = [];
    const kube = new KubeHttp(access(creds));
    const err = await get(kube).catch((e: unknown) => e);
    expect(errorCode(err)).toBe('MOORING_E_KUBE_UNREACHABLE');
    expect((err as Error).message).toMatch(/exec credential plugin: .* failed \(exit 3\)/);
    expect((err as Error).message).not.toContain('never-printed');
    await kube.close();
  });

  it('a non-2xx answer carries its status and Status body but its message does not echo the body', async () => {
    answer = () => [
      422,
      {
        kind: 'Status',
        reason: 'Invalid',
        message: 'value "hunter2" is invalid',
        details: { causes: [{ field: 'data.x', message: 'hunter2' }] },
      },
    ];
    const kube = new KubeHttp(access({ type: 'none' }));
    const err = await get(kube).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).code).toBe(422);
    expect((err as Error).message).not.toContain('hunter2');
    const mapped = kubeError(err, 'Secret/a/b', 'apply');
    expect(mapped.code).toBe('MOORING_E_KUBE_INVALID');
    expect(mapped.message).toContain('data.x');
    expect(mapped.message).not.toContain('hunter2');
    await kube.close();
  });

  it('tells onResult the verb and result of every request, errors included (the request metrics)', async () => {
    const seen: string[] = [];
    answer = (h) => [h['content-type'] === 'application/apply-patch+yaml' ? 200 : 404, {}];
    const kube = new KubeHttp(access({ type: 'none' }), {
      onResult: (verb, result) => seen.push(`${verb} ${result}`),
    });
    await kube
      .request({ method: 'GET', path: '/api/v1/namespaces/a/secrets/missing' })
      .catch(() => undefined);
    answer = () => [200, { items: [] }];
    await kube.request({ method: 'GET', path: '/api/v1/namespaces/a/secrets' });
    await kube.request({
      method: 'PATCH',
      path: '/apis/apps/v1/namespaces/a/deployments/d',
      body: {},
      contentType: 'application/apply-patch+yaml',
    });
    await kube.close();
    const down = new KubeHttp(
      { server: 'http://127.0.0.1:9', tls: { rejectUnauthorized: false }, credentials: { type: 'none' } },
      { onResult: (verb, result) => seen.push(`${verb} ${result}`) },
    );
    await down.request({ method: 'GET', path: '/api/v1/namespaces' }).catch(() => undefined);
    await down.close();
    expect(seen).toEqual(['get 404', 'list 200', 'apply 200', 'list error']);
  });

  it('a request its signal cut is told as cancelled, not as an error of the server (regression: "error")', async () => {
    const seen: string[] = [];
    const kube = new KubeHttp(access({ type: 'none' }), {
      onResult: (verb, result) => seen.push(`${verb} ${result}`),
    });
    const controller = new AbortController();
    const reason = new Error('deposed');
    const pending = kube.request({
      method: 'GET',
      path: '/api/v1/namespaces/slow',
      signal: controller.signal,
    });
    await vi.waitFor(() => expect(sent.some((s) => s.url.includes('/slow'))).toBe(true));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await kube.close();
    expect(seen).toEqual(['get cancelled']);
  });

  it('a list its item handler refused is told as cancelled, not as an error of the server', async () => {
    const seen: string[] = [];
    const kube = new KubeHttp(access({ type: 'none' }), {
      onResult: (verb, result) => seen.push(`${verb} ${result}`),
    });
    answer = () => [200, { kind: 'SecretList', items: [{ n: 1 }, { n: 2 }] }];
    const refusal = new Error('past the carry limit');
    const refused = kube.request({
      method: 'GET',
      path: '/api/v1/namespaces/a/secrets',
      onItem: () => {
        throw refusal;
      },
    });
    await expect(refused).rejects.toBe(refusal);
    const items: unknown[] = [];
    await kube.request({ method: 'GET', path: '/api/v1/namespaces/a/secrets', onItem: (i) => items.push(i) });
    await kube.close();
    expect(items).toEqual([{ n: 1 }, { n: 2 }]);
    expect(seen).toEqual(['list cancelled', 'list 200']);
  });

  it('an unreachable server is MOORING_E_KUBE_UNREACHABLE', async () => {
    const kube = new KubeHttp({
      server: 'http://127.0.0.1:9',
      tls: { rejectUnauthorized: false },
      credentials: { type: 'none' },
    });
    const err = await get(kube).catch((e: unknown) => e);
    expect(kubeError(err, 'Namespace/a', 'get').code).toBe('MOORING_E_KUBE_UNREACHABLE');
    await kube.close();
  });

  it("keeps the server's path prefix, sends a string body as it is and decodes a body cut mid-character", async () => {
    answer = () => [200, { metadata: { name: 'café – 2' } }];
    const kube = new KubeHttp({ ...access({ type: 'none' }), server: `${url}/k8s/clusters/c-1/` });
    const res = await kube.request<{ metadata: { name: string } }>({
      method: 'PATCH',
      path: '/api/v1/namespaces/a/secrets/s?fieldManager=mooring',
      body: '{"b":1,"a":2}',
      contentType: 'application/apply-patch+yaml',
    });
    await kube.request({ method: 'POST', path: '/api/v1/namespaces/a/events', body: { z: 1 } });
    await kube.close();
    expect(res).toMatchObject({ status: 200, body: { metadata: { name: 'café – 2' } } });
    expect(sent).toEqual([
      { url: '/k8s/clusters/c-1/api/v1/namespaces/a/secrets/s?fieldManager=mooring', body: '{"b":1,"a":2}' },
      { url: '/k8s/clusters/c-1/api/v1/namespaces/a/events', body: '{"z":1}' },
    ]);
  });

  it("hands a list answer's items to onItem one by one and answers the rest without them", async () => {
    const items = [{ metadata: { name: 'café – 1' } }, { metadata: { name: 'b' } }];
    answer = () => [200, { kind: 'SecretList', metadata: { continue: 't' }, items }];
    const kube = new KubeHttp(access({ type: 'none' }));
    const got: unknown[] = [];
    const res = await kube.request({
      method: 'GET',
      path: '/api/v1/namespaces/a/secrets',
      onItem: (i) => got.push(i),
    });
    // A non-2xx answer is read whole, its Status kept.
    answer = () => [410, { kind: 'Status', reason: 'Expired', items: [1] }];
    const gone = await kube
      .request({ method: 'GET', path: '/api/v1/namespaces/a/secrets', onItem: (i) => got.push(i) })
      .catch((err: unknown) => err);
    await kube.close();
    expect(got).toEqual(items);
    expect(res.body).toEqual({ kind: 'SecretList', metadata: { continue: 't' }, items: [] });
    expect(gone).toMatchObject({ code: 410, body: { reason: 'Expired', items: [1] } });
  });

  it("gives up on a request once its signal aborts, with the signal's reason, before or during it", async () => {
    const kube = new KubeHttp(access({ type: 'none' }));
    const reason = new Error('reconcile cancelled');
    const early = await kube
      .request({ method: 'GET', path: '/api/v1/namespaces', signal: AbortSignal.abort(reason) })
      .catch((e: unknown) => e);
    expect(early).toBe(reason);
    const during = new AbortController();
    const pending = kube
      .request({ method: 'GET', path: '/slow', signal: during.signal })
      .catch((e: unknown) => e);
    await vi.waitFor(() => expect(sent.map((s) => s.url)).toContain('/slow'));
    during.abort(reason);
    expect(await pending).toBe(reason);
    // The connection pool is still usable afterwards.
    expect((await get(kube)).status).toBe(200);
    await kube.close();
  });

  it('fails a request whose answer does not start within the timeout', async () => {
    const kube = new KubeHttp(access({ type: 'none' }), { timeoutMs: 200 });
    const err = await kube.request({ method: 'GET', path: '/slow' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(kubeError(err, 'Namespace/a', 'get').code).toMatch(/^MOORING_E_KUBE_/);
    await kube.close();
  });

  it('a request undici refuses to send (a token with a line break) fails at once, without the token', async () => {
    const kube = new KubeHttp(access({ type: 'token', token: 'secret-part\r\nx-injected: 1' }));
    const err = await get(kube).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error).message)).not.toContain('secret-part');
    expect(kubeError(err, 'Namespace/a', 'get').message).not.toContain('secret-part');
    expect(sent).toEqual([]);
    await kube.close();
  });
});
