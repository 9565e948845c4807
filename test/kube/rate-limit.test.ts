/**
 * The client-side rate limit and Retry-After (src/kube/rate-limit.ts): the bucket's arithmetic
 * with a hand-driven clock, then KubeHttp against the sandbox API with injected 429 and 503
 * answers, each request sent again after the server's wait and the waits reported.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/kube/clients.ts';
import { KubeApiError, type KubeHttp } from '../../src/kube/http.ts';
import { retryWaitMs, TokenBucket } from '../../src/kube/rate-limit.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';

describe('TokenBucket', () => {
  it('lets a burst through at once, then one request per 1/qps seconds, in order', () => {
    let now = 0;
    const bucket = new TokenBucket({ qps: 10, burst: 3, now: () => now });
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([0, 0, 0]);
    // The fourth and fifth wait their turn: 100 ms, then 200 ms.
    expect(bucket.reserve()).toBeCloseTo(100);
    expect(bucket.reserve()).toBeCloseTo(200);
    // A second later the debt (2 tokens) is paid and 8 tokens are back, capped at the burst (3).
    now = 1000;
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([0, 0, 0]);
    expect(bucket.reserve()).toBeCloseTo(100);
  });

  it('with untilServerFlowControl, stands down at the first answer of a server running APF', () => {
    const bucket = new TokenBucket({ qps: 1, burst: 1, now: () => 0, untilServerFlowControl: true });
    expect(bucket.reserve()).toBe(0);
    expect(bucket.reserve()).toBeCloseTo(1000);
    bucket.observe({ 'content-type': 'application/json' });
    expect(bucket.limiting).toBe(true);
    bucket.observe({ 'x-kubernetes-pf-flowschema-uid': 'u' });
    expect(bucket.limiting).toBe(false);
    for (let i = 0; i < 100; i++) expect(bucket.reserve()).toBe(0);
  });

  it('a limit the operator set is kept whatever the server shows', () => {
    const bucket = new TokenBucket({ qps: 1, burst: 1, now: () => 0 });
    bucket.observe({ 'x-kubernetes-pf-prioritylevel-uid': 'u' });
    expect(bucket.limiting).toBe(true);
    expect([bucket.reserve(), bucket.reserve()]).toEqual([0, 1000]);
  });

  it('qps 0 is no limit', () => {
    const bucket = new TokenBucket({ qps: 0, burst: 1, now: () => 0 });
    for (let i = 0; i < 100; i++) expect(bucket.reserve()).toBe(0);
  });
});

describe('retryWaitMs', () => {
  const err = (code: number, headers: Record<string, string> = {}) =>
    new KubeApiError(code, {}, 'GET', headers);
  it('429: the Retry-After (capped at 30 s), else 1 s; 503 only with a Retry-After; others never', () => {
    expect(retryWaitMs(err(429, { 'retry-after': '3' }))).toBe(3000);
    expect(retryWaitMs(err(429, { 'retry-after': '3600' }))).toBe(30_000);
    expect(retryWaitMs(err(429))).toBe(1000);
    expect(retryWaitMs(err(503, { 'retry-after': '2' }))).toBe(2000);
    expect(retryWaitMs(err(503))).toBeUndefined();
    expect(retryWaitMs(err(500, { 'retry-after': '2' }))).toBeUndefined();
    expect(retryWaitMs(err(404))).toBeUndefined();
    expect(retryWaitMs(new Error('socket hang up'))).toBeUndefined();
  });
});

describe('KubeHttp against the sandbox: 429 and 503 with Retry-After, and the rate limit', () => {
  let api: KubeApi;
  let http: KubeHttp | undefined;
  const results: string[] = [];
  const waits: { reason: string; seconds: number }[] = [];
  const client = (rateLimit?: { qps: number; burst: number; untilServerFlowControl?: boolean }) => {
    http = createKubeClient(api.kubeconfig, {
      onResult: (_verb, result) => results.push(result),
      onWait: (reason, seconds) => waits.push({ reason, seconds }),
      ...(rateLimit ? { rateLimit } : {}),
    });
    return http;
  };
  const path = '/api/v1/namespaces/apps/configmaps';

  beforeAll(async () => {
    api = await startKubeApi({ namespaces: ['apps'] });
  });
  afterAll(async () => {
    await api?.close();
  });
  beforeEach(async () => {
    await http?.close();
    http = undefined;
    api.clearFaults();
    results.length = 0;
    waits.length = 0;
  });

  it('a 429 with Retry-After is sent again after that wait, and succeeds (regression: failed at once)', async () => {
    api.setFaults([{ verb: 'list', resource: 'configmaps', status: 429, retryAfterSeconds: 1, count: 2 }]);
    const started = performance.now();
    const res = await client().request<{ items: unknown[] }>({ method: 'GET', path });
    expect(res.status).toBe(200);
    expect(results).toEqual(['429', '429', '200']);
    expect(waits).toEqual([
      { reason: 'retry_after', seconds: 1 },
      { reason: 'retry_after', seconds: 1 },
    ]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1900);
  });

  it('a 503 with Retry-After is honoured; a 503 without one fails as before', async () => {
    api.setFaults([{ verb: 'list', resource: 'configmaps', status: 503, retryAfterSeconds: 1, count: 1 }]);
    expect((await client().request({ method: 'GET', path })).status).toBe(200);
    expect(results).toEqual(['503', '200']);
    api.setFaults([{ verb: 'list', resource: 'configmaps', status: 503, count: 1 }]);
    await expect(client().request({ method: 'GET', path })).rejects.toMatchObject({ code: 503 });
  });

  it('gives up after 10 retries: the last answer is the error', async () => {
    api.setFaults([{ verb: 'list', resource: 'configmaps', status: 429, retryAfterSeconds: 0 }]);
    await expect(client().request({ method: 'GET', path })).rejects.toMatchObject({ code: 429 });
    expect(results).toEqual(Array(11).fill('429'));
  });

  it('the rate limit spaces requests out past the burst and reports the wait', async () => {
    const c = client({ qps: 20, burst: 2 });
    const started = performance.now();
    await Promise.all(Array.from({ length: 6 }, () => c.request({ method: 'GET', path })));
    // 2 at once, then 4 more at 50 ms intervals: the last leaves about 200 ms after the first.
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    const limited = waits.filter((w) => w.reason === 'rate_limiter');
    expect(limited.length).toBe(4);
    expect(limited.reduce((s, w) => s + w.seconds, 0)).toBeCloseTo(0.05 + 0.1 + 0.15 + 0.2, 2);
  });

  it('auto: the limit stands down after the first answer, which shows APF as kube-apiserver does', async () => {
    const c = client({ qps: 1, burst: 1, untilServerFlowControl: true });
    await c.request({ method: 'GET', path });
    const started = performance.now();
    await Promise.all(Array.from({ length: 6 }, () => c.request({ method: 'GET', path })));
    // The first answer showed APF: the 1-a-second limit stood down, nothing waited for it.
    expect(performance.now() - started).toBeLessThan(1000);
    expect(waits.filter((w) => w.reason === 'rate_limiter')).toEqual([]);
  });
});
