/**
 * Regression: a null item in a list of objects (containers: [null], ports: [null]) is invalid input,
 * answered with 422 Invalid like a real API server, never a 500 (found by the bad-input property test).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployment, type Sandbox, startSandbox } from './helpers.ts';

describe('null items in object lists are a 422, not a 500', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });

  it('containers: [null]', async () => {
    const d = deployment('nulls') as { spec: { template: { spec: { containers: unknown[] } } } };
    d.spec.template.spec.containers = [null];
    const res = await sb.call('POST', '/apis/apps/v1/namespaces/default/deployments', d);
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
  });

  it('Service ports: [null, null]', async () => {
    const svc = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'nulls', namespace: 'default' },
      spec: { ports: [null, null] },
    };
    const res = await sb.call('POST', '/api/v1/namespaces/default/services', svc);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});
