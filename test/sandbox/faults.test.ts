/**
 * The test-facing endpoints: the request log (/sandbox/v1/requests) and fault injection
 * (/sandbox/v1/faults), over HTTP and through the library API.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APPLY, deployment, type Sandbox, startSandbox } from './helpers.ts';

const CM = '/api/v1/namespaces/default/configmaps';

describe('request log and fault injection', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });
  beforeEach(() => {
    sb.api.clearFaults();
    sb.api.clearRequests();
  });

  it('records verb, resource, namespace, name, field manager, status and write/dryRun flags', async () => {
    await sb.call(
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/logged?fieldManager=mooring',
      deployment('logged'),
      APPLY,
    );
    await sb.call('GET', '/apis/apps/v1/namespaces/default/deployments/logged');
    await sb.call('GET', '/apis/apps/v1/namespaces/default/deployments?labelSelector=app%3Dlogged');
    const res = await sb.call('GET', '/sandbox/v1/requests');
    const records = res.body as unknown as Record<string, unknown>[];
    expect(records.map((r) => r.verb)).toEqual(['apply', 'get', 'list']);
    expect(records[0]).toMatchObject({
      method: 'PATCH',
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
      kind: 'Deployment',
      namespace: 'default',
      name: 'logged',
      fieldManager: 'mooring',
      status: 201,
      write: true,
      dryRun: false,
    });
    expect(sb.api.requests({ write: true }).length).toBe(1);
    await sb.call('DELETE', '/sandbox/v1/requests');
    expect(sb.api.requests()).toEqual([]);
  });

  it('a 429 fault answers TooManyRequests with Retry-After, for the matching verb and resource only', async () => {
    const put = await sb.call('PUT', '/sandbox/v1/faults', [
      { verb: 'create', resource: 'configmaps', status: 429, retryAfterSeconds: 3 },
    ]);
    expect(put.status).toBe(200);
    const res = await sb.call('POST', CM, { metadata: { name: 'f1' } });
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('3');
    expect(res.body).toMatchObject({
      kind: 'Status',
      reason: 'TooManyRequests',
      code: 429,
      details: { retryAfterSeconds: 3 },
    });
    expect((await sb.call('GET', CM)).status).toBe(200);
    expect(sb.api.requests({ verb: 'create' })[0]?.status).toBe(429);
  });

  it('count limits how many times a rule fires; a 500 then success', async () => {
    sb.api.setFaults([{ verb: 'get', resource: 'configmaps', status: 500, count: 1 }]);
    await sb.call('POST', CM, { metadata: { name: 'f2' } });
    expect((await sb.call('GET', `${CM}/f2`)).status).toBe(500);
    expect((await sb.call('GET', `${CM}/f2`)).status).toBe(200);
  });

  it('dropConnection destroys the socket without an answer', async () => {
    sb.api.setFaults([{ verb: 'list', resource: 'configmaps', dropConnection: true, count: 1 }]);
    await expect(sb.call('GET', CM)).rejects.toThrow();
    expect((await sb.call('GET', CM)).status).toBe(200);
  });

  it('watchResetAfterMs ends a watch stream early', async () => {
    sb.api.setFaults([{ verb: 'watch', resource: 'configmaps', watchResetAfterMs: 50 }]);
    const res = await sb.call('GET', `${CM}?watch=true&timeoutSeconds=30`);
    expect(res.status).toBe(200); // ended after 50 ms instead of 30 s
  });

  it('bad fault rules are a 400 naming the problem; nothing is changed', async () => {
    sb.api.setFaults([{ verb: 'get', status: 503 }]);
    const res = await sb.call('PUT', '/sandbox/v1/faults', [{ status: 418 }]);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('status');
    expect((await sb.call('GET', '/sandbox/v1/faults')).body).toEqual([{ verb: 'get', status: 503 }]);
  });
});
