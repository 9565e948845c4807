/**
 * Subresources the sandbox does not serve (`serviceaccounts/token`, `pods/log`, a made-up one):
 * kube-apiserver has no route for them and answers every method with its generic 404, the same
 * body as for any unknown path; it does not claim the parent object is missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployment, MERGE, type Sandbox, startSandbox } from './helpers.ts';

const NS = 'sub';

/** The Status kube-apiserver's not-found handler writes for a path it does not serve. */
const NO_ROUTE = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server could not find the requested resource',
  reason: 'NotFound',
  details: {},
  code: 404,
};

describe('conformance: unserved subresources answer 404 for the subresource, not the parent', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: [NS] });
    expect(
      (await sb.call('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, deployment('web', NS))).status,
    ).toBe(201);
    await sb.call('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'builder' } });
    await sb.call('POST', `/api/v1/namespaces/${NS}/pods`, {
      metadata: { name: 'one' },
      spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
    });
  });
  afterAll(async () => {
    await sb.close();
  });

  it('kubectl create token: the token subresource is not served (not "serviceaccounts not found")', async () => {
    const out = await sb.kubectl(['create', 'token', 'builder', '-n', NS]);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('the server could not find the requested resource');
    expect(out.stderr).not.toContain('not found');
  });

  it('kubectl logs: pods/log is not served; the pod itself is found', async () => {
    const out = await sb.kubectl(['logs', 'one', '-n', NS]);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('the server could not find the requested resource');
    expect(out.stderr).not.toContain('pods "one" not found');
  });

  it('GET, POST, PUT and PATCH on <kind>/<name>/<unknown> all get the no-route 404', async () => {
    const path = `/apis/apps/v1/namespaces/${NS}/deployments/web/bogus`;
    const body = deployment('web', NS);
    for (const [method, headers] of [
      ['GET', {}],
      ['POST', {}],
      ['PUT', {}],
      ['PATCH', MERGE],
    ] as const) {
      const res = await sb.call(method, path, method === 'GET' ? undefined : body, headers);
      expect({ method, status: res.status, body: res.body }).toEqual({ method, status: 404, body: NO_ROUTE });
    }
  });

  it('a served subresource of a missing object still names the object', async () => {
    const res = await sb.call('GET', `/apis/apps/v1/namespaces/${NS}/deployments/nope/status`);
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('deployments.apps "nope" not found');
  });

  it('a namespaced object named outside a namespace has no route either', async () => {
    const res = await sb.call('GET', '/api/v1/serviceaccounts/builder');
    expect(res).toMatchObject({ status: 404, body: NO_ROUTE });
    const raw = await sb.kubectl(['get', '--raw', '/api/v1/serviceaccounts/builder']);
    expect(raw.stderr).toContain('the server could not find the requested resource');
  });
});
