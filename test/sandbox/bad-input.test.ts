/**
 * Bad input gets a 4xx Status, never a 5xx (a real API server never answers a malformed object
 * with an internal error): property tests over arbitrary JSON for create, update, patches and apply.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLY, deployment, JSON_PATCH, MERGE, type Sandbox, startSandbox } from './helpers.ts';

const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';

/** Deployment-shaped objects with arbitrary values in arbitrary places. */
const mangled = fc
  .record({
    path: fc.constantFrom(
      'metadata',
      'metadata.labels',
      'spec',
      'spec.replicas',
      'spec.selector',
      'spec.template',
      'spec.template.spec.containers',
      'spec.strategy',
    ),
    value: fc.jsonValue({ maxDepth: 2 }),
  })
  .map(({ path, value }) => {
    const obj = deployment('fuzz') as Record<string, unknown>;
    const parts = path.split('.');
    let at = obj;
    for (const part of parts.slice(0, -1)) at = at[part] as Record<string, unknown>;
    at[parts[parts.length - 1] as string] = value;
    return obj;
  });

describe('bad input never gets a 5xx', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
    await sb.call('POST', DEPLOY, deployment('target'));
  });
  afterAll(async () => {
    await sb.close();
  });

  const status = (res: { status: number; body: Record<string, unknown> }): number => {
    if (res.status >= 400) expect(res.body.kind).toBe('Status');
    return res.status;
  };

  it('create with mangled or arbitrary bodies', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(mangled, fc.jsonValue({ maxDepth: 3 })), async (body) => {
        const res = await sb.call('POST', DEPLOY, body);
        expect(status(res)).toBeLessThan(500);
        if (res.status === 201)
          await sb.call('DELETE', `${DEPLOY}/${(res.body.metadata as { name: string }).name}`);
      }),
      { numRuns: 120 },
    );
  });

  it('server-side apply with mangled bodies', async () => {
    await fc.assert(
      fc.asyncProperty(mangled, async (body) => {
        const res = await sb.call('PATCH', `${DEPLOY}/fuzz?fieldManager=fuzz&force=true`, body, APPLY);
        expect(status(res)).toBeLessThan(500);
      }),
      { numRuns: 120 },
    );
  });

  it('merge, JSON and strategic patches with arbitrary bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(MERGE, JSON_PATCH, { 'content-type': 'application/strategic-merge-patch+json' }),
        fc.oneof(
          mangled.map((m) => ({ spec: m.spec, metadata: m.metadata })),
          fc.jsonValue({ maxDepth: 3 }),
        ),
        async (headers, body) => {
          const res = await sb.call('PATCH', `${DEPLOY}/target`, body, headers);
          expect(status(res)).toBeLessThan(500);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('update with mangled bodies', async () => {
    await fc.assert(
      fc.asyncProperty(mangled, async (body) => {
        const meta = body.metadata;
        if (meta !== null && typeof meta === 'object' && !Array.isArray(meta))
          (meta as Record<string, unknown>).name = 'target';
        const res = await sb.call('PUT', `${DEPLOY}/target`, body);
        expect(status(res)).toBeLessThan(500);
      }),
      { numRuns: 100 },
    );
  });
});
