/**
 * Limits on request bodies: nesting (MAX_BODY_DEPTH, checked on the text before it is parsed) and
 * size (MAX_BODY_BYTES, 413; also in bad-input.test.ts). A body nested thousands of levels deep in
 * a free-form member of a ResourceSpec (`valueFrom`, `securityContext`) used to pass validation and
 * then overflow the stack in JSON.stringify: 500.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  jsonNestedDeeperThan,
  MAX_BODY_BYTES,
  MAX_BODY_DEPTH,
} from '../../src/control-plane/server/http-io.ts';
import { dockerDeployment, type Harness, harness, LISTENER_ID, raw } from './helpers.ts';

/** Nesting of a parsed JSON value (a scalar is 0, `{}` and `[]` are 1), walked without recursion. */
function depthOf(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    max = Math.max(max, depth + 1);
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return max;
}

/** `levels` nested objects (`{"a":{"a":…1…}}`) or arrays, as text: JSON.stringify cannot write them deep. */
function nested(levels: number, kind: 'object' | 'array' = 'object'): string {
  return kind === 'object'
    ? `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`
    : `${'['.repeat(levels)}1${']'.repeat(levels)}`;
}

/** Where a hostile value goes: the free-form members of a ResourceSpec's containers. */
const placements = {
  valueFrom: { sidecars: [{ name: 'side', env: [{ name: 'A', valueFrom: { secretKeyRef: 'HOLE' } }] }] },
  securityContext: { sidecars: [{ name: 'side', securityContext: { seLinuxOptions: 'HOLE' } }] },
  'init container envFrom': { init_containers: [{ name: 'init', envFrom: [{ configMapRef: 'HOLE' }] }] },
  'volume source': { volumes: [{ name: 'v', projected: { sources: [{ configMap: 'HOLE' }] } }] },
} as const;
type Placement = keyof typeof placements;

/** A create body (and the matching patch body) with `value` (JSON text) at `placement`. */
function bodies(name: string, placement: Placement, value: string): { create: string; patch: string } {
  const spec = placements[placement];
  const create = JSON.stringify(
    dockerDeployment(name, {
      source_config: {
        listener_id: LISTENER_ID,
        listener_config: { k8s_namespace: 'default' },
        resource_spec: spec as never,
      },
    }),
  );
  const patch = JSON.stringify({ source_config: { resource_spec: spec } });
  const fill = (text: string) => text.replace('"HOLE"', value);
  return { create: fill(create), patch: fill(patch) };
}

describe('jsonNestedDeeperThan', () => {
  it('counts objects and arrays, not brackets inside strings (escaped quotes included)', () => {
    expect(jsonNestedDeeperThan('{}', 0)).toBe(true);
    expect(jsonNestedDeeperThan('{}', 1)).toBe(false);
    expect(jsonNestedDeeperThan('1', 0)).toBe(false);
    expect(jsonNestedDeeperThan('[[1],[2]]', 2)).toBe(false);
    expect(jsonNestedDeeperThan('[[1],[[2]]]', 2)).toBe(true);
    expect(jsonNestedDeeperThan('{"a":"[[[{{{"}', 1)).toBe(false);
    expect(jsonNestedDeeperThan(String.raw`{"a":"\"[[[{{{"}`, 1)).toBe(false);
    expect(jsonNestedDeeperThan(String.raw`{"a\\":[["\\"]]}`, 2)).toBe(true);
    expect(jsonNestedDeeperThan(String.raw`{"a\\":[["\\"]]}`, 3)).toBe(false);
    expect(jsonNestedDeeperThan(nested(100_000, 'array'), MAX_BODY_DEPTH)).toBe(true);
  });

  it('agrees with the depth of the parsed value for any JSON (property)', () => {
    // Strings full of brackets, quotes and backslashes: what could fool a scan of the text.
    const tricky = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', ' ', '\u2028') });
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.oneof(tricky, fc.integer(), fc.boolean(), fc.constant(null)),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(tricky, tie('value'), { maxKeys: 3 }),
      ),
    })).value;
    fc.assert(
      fc.property(json, fc.nat({ max: 12 }), (value, max) => {
        const text = JSON.stringify(value);
        expect(jsonNestedDeeperThan(text, max)).toBe(depthOf(value) > max);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('request body limits', () => {
  let h: Harness;
  let live = '';

  beforeAll(async () => {
    h = await harness();
    live = (await h.client.createDeployment(dockerDeployment('limits-live'))).id;
  });
  afterAll(async () => {
    await h.close();
  });

  const tooDeep = {
    detail: [
      {
        loc: ['body'],
        msg: `JSON nested deeper than ${MAX_BODY_DEPTH} levels`,
        type: 'json_too_deep',
      },
    ],
  };

  it.each(
    (Object.keys(placements) as Placement[]).flatMap((placement) =>
      (['object', 'array'] as const).map((kind) => ({ placement, kind })),
    ),
  )(
    'a body nested 5,000 levels deep in $placement ($kind) is a 422 naming the limit, on create and patch',
    async ({ placement, kind }) => {
      const before = h.server.store.dump();
      const { create, patch } = bodies('limits-deep', placement, nested(5_000, kind));
      const created = await raw(h.server.url, 'POST', '/v2/deployments', { body: create });
      expect(created.status).toBe(422);
      expect(created.body).toEqual(tooDeep);
      const patched = await raw(h.server.url, 'PATCH', `/v2/deployments/${live}`, { body: patch });
      expect(patched.status).toBe(422);
      expect(patched.body).toEqual(tooDeep);
      expect(h.server.store.dump()).toEqual(before);
    },
  );

  it('refuses deep listener bodies too', async () => {
    const body = `{"compute_type":"k8s","compute_id":"deep","compute_config":${nested(5_000)}}`;
    const created = await raw(h.server.url, 'POST', '/v2/listeners', { body });
    expect(created).toMatchObject({ status: 422, body: tooDeep });
    const patched = await raw(h.server.url, 'PATCH', `/v2/listeners/${LISTENER_ID}`, {
      body: `{"compute_config":${nested(5_000, 'array')}}`,
    });
    expect(patched).toMatchObject({ status: 422, body: tooDeep });
  });

  it(`accepts a body exactly ${MAX_BODY_DEPTH} levels deep and refuses one level more`, async () => {
    // The body's own levels around the value: find how many the value may add.
    const around = depthOf(JSON.parse(bodies('x', 'securityContext', '1').create));
    const atLimit = bodies('limits-at', 'securityContext', nested(MAX_BODY_DEPTH - around));
    expect(depthOf(JSON.parse(atLimit.create))).toBe(MAX_BODY_DEPTH);
    const created = await raw(h.server.url, 'POST', '/v2/deployments', { body: atLimit.create });
    expect(created.status).toBe(201);
    // What was stored comes back whole, in the create's answer and in a listing.
    expect(depthOf(created.body)).toBe(MAX_BODY_DEPTH);
    const listed = await raw(h.server.url, 'GET', '/v2/deployments?name=limits-at');
    expect(listed.status).toBe(200);

    const past = bodies('limits-past', 'securityContext', nested(MAX_BODY_DEPTH - around + 1));
    expect(depthOf(JSON.parse(past.create))).toBe(MAX_BODY_DEPTH + 1);
    const refused = await raw(h.server.url, 'POST', '/v2/deployments', { body: past.create });
    expect(refused).toMatchObject({ status: 422, body: tooDeep });
  });

  it('checks the size first: a body over the size limit is a 413 however deep', async () => {
    const body = nested(MAX_BODY_BYTES, 'array');
    const res = await raw(h.server.url, 'POST', '/v2/deployments', { body });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: `request body exceeds ${MAX_BODY_BYTES} bytes` });
  });

  it('answers the deepest body that fits in the size limit at once, and keeps serving', async () => {
    // About half a million levels: parsing it would take a while; the scan refuses it first.
    const levels = Math.floor((MAX_BODY_BYTES - 1) / 2);
    const started = performance.now();
    const res = await raw(h.server.url, 'POST', '/v2/deployments', { body: nested(levels, 'array') });
    expect(res).toMatchObject({ status: 422, body: tooDeep });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect((await raw(h.server.url, 'GET', '/healthz')).status).toBe(200);
  });

  it('property: a body with a value of any depth in any free-form member is 201/200 within the limit, else 422, never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(placements) as Placement[])),
        fc.constantFrom('object' as const, 'array' as const),
        fc.oneof(fc.integer({ min: 0, max: MAX_BODY_DEPTH + 4 }), fc.integer({ min: 65, max: 20_000 })),
        fc.boolean(),
        async (placement, kind, levels, patch) => {
          const pair = bodies(
            `limits-prop-${levels}-${kind}-${placement.length}`,
            placement,
            nested(levels, kind),
          );
          const body = patch ? pair.patch : pair.create;
          const depth = depthOf(JSON.parse(body));
          const before = h.server.store.dump();
          const res = patch
            ? await raw(h.server.url, 'PATCH', `/v2/deployments/${live}`, { body })
            : await raw(h.server.url, 'POST', '/v2/deployments', { body });
          expect(res.status).toBeLessThan(500);
          if (depth > MAX_BODY_DEPTH) {
            expect(res).toMatchObject({ status: 422, body: tooDeep });
            expect(h.server.store.dump()).toEqual(before);
          } else {
            // Within the limit the body is valid: created (or already there: 409), or patched.
            expect([200, 201, 409]).toContain(res.status);
          }
        },
      ),
      { numRuns: 120 },
    );
  });
});
