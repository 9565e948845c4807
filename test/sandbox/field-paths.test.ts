/**
 * Unknown and mistyped fields deep in an object are named by their full path, list indexes
 * included, as the API server's decoder names them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployment, type Json, type Sandbox, startSandbox } from './helpers.ts';

const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';

describe('field paths in decoding errors', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });

  it('Strict: unknown fields inside list items and maps are named with their index and keys', async () => {
    const bad = deployment('paths') as Json;
    bad.spec.template.spec.containers[0].bogus = true;
    bad.spec.template.metadata.extra = { a: 1 };
    const res = await sb.call('POST', `${DEPLOY}?fieldValidation=Strict`, bad);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      'strict decoding error: unknown field "spec.template.metadata.extra", unknown field "spec.template.spec.containers[0].bogus"',
    );
  });

  it('a value of the wrong JSON type is named by its path, list index included', async () => {
    const bad = deployment('typed') as Json;
    bad.spec.template.spec.containers[0].ports = [{ containerPort: 'eighty' }];
    const res = await sb.call('POST', DEPLOY, bad);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      'json: cannot unmarshal string into Go struct field Deployment.spec.template.spec.containers[0].ports[0].containerPort of type integer',
    );
  });

  it('Warn: every unknown field is dropped and named in the Warning header', async () => {
    const bad = deployment('warned') as Json;
    bad.spec.template.spec.containers[0].bogus = true;
    bad.metadata.labels.ok = 'yes';
    bad.spec.selector.extra = 1;
    const res = await sb.call('POST', DEPLOY, bad);
    expect(res.status).toBe(201);
    expect(res.headers.warning).toContain('unknown field \\"spec.selector.extra\\"');
    expect(res.headers.warning).toContain('unknown field \\"spec.template.spec.containers[0].bogus\\"');
    const spec = res.body.spec as Json;
    expect(spec.template.spec.containers[0].bogus).toBeUndefined();
    expect(spec.selector.extra).toBeUndefined();
  });
});
