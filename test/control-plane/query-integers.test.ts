/**
 * Integer query parameters (`limit`, `offset` of every list route) are plain decimal digits: a
 * coercing `Number()` once took `0x10`, `1e1`, `5.0`, `+5`, ` 5`, `-0` and the empty string as
 * numbers. Anything else is a 422 naming the parameter; never accepted, never a 5xx.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeploymentListQuery, ListenerListQuery, RevisionListQuery } from '../../src/contract/index.ts';
import { dockerDeployment, type Harness, harness, raw } from './helpers.ts';

const RANGES = { limit: { min: 1, max: 100 }, offset: { min: 0, max: Number.MAX_SAFE_INTEGER } } as const;
type Param = keyof typeof RANGES;

/** The rule, written out: digits only (leading zeros allowed), and the number in range. */
function acceptable(param: Param, text: string): boolean {
  if (!/^[0-9]+$/.test(text)) return false;
  const n = Number(text);
  return n >= RANGES[param].min && n <= RANGES[param].max;
}

/** Strings near integers (what a coercing parser would take) and anything at all. */
const candidate = fc.oneof(
  fc.stringMatching(/^[ +-]?(0[xXbBoO])?[0-9]{0,3}([.eE_][0-9+-]{0,3})?[ \t]?$/),
  fc.stringMatching(/^0*[0-9]{1,20}$/),
  fc.constantFrom(
    '',
    ' ',
    '-0',
    '+0',
    '0x10',
    '1e1',
    '5.0',
    ' 5',
    '5 ',
    'Infinity',
    'NaN',
    '٣',
    '５',
    '1_000',
  ),
  fc.integer({ min: -5, max: 2 ** 53 + 5 }).map(String),
  fc.tuple(fc.nat({ max: 2 }), fc.nat({ max: 120 })).map(([zeros, n]) => `${'0'.repeat(zeros)}${n}`),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
);

describe('query integers: the schemas (property)', () => {
  it('take exactly the plain decimal numbers in range, and give that number', () => {
    for (const schema of [DeploymentListQuery, RevisionListQuery, ListenerListQuery]) {
      fc.assert(
        fc.property(fc.constantFrom<Param>('limit', 'offset'), candidate, (param, text) => {
          const result = schema.safeParse({ [param]: text });
          expect(result.success).toBe(acceptable(param, text));
          if (result.success) expect(result.data[param]).toBe(Number(text));
          else expect(result.error.issues.map((i) => i.path)).toContainEqual([param]);
        }),
        { numRuns: 2_000 },
      );
    }
  });
});

describe('query integers over HTTP', () => {
  let h: Harness;
  let live = '';

  beforeAll(async () => {
    h = await harness();
    live = (await h.client.createDeployment(dockerDeployment('query-ints'))).id;
  });
  afterAll(async () => {
    await h.close();
  });

  const route = fc.constantFrom('/v2/deployments', '/v2/deployments/{d}/revisions', '/v2/listeners');

  it('refuse what a coercing parser took, on every list route, naming the parameter', async () => {
    for (const path of ['/v2/deployments', `/v2/deployments/${live}/revisions`, '/v2/listeners']) {
      for (const [param, text] of [
        ['limit', '0x10'],
        ['limit', '1e1'],
        ['offset', ''],
        ['limit', '+5'],
        ['limit', ' 5'],
        ['limit', '5.0'],
        ['offset', '-0'],
      ] as const) {
        const res = await raw(h.server.url, 'GET', `${path}?${param}=${encodeURIComponent(text)}`);
        expect(res.status, `${path} ${param}=${JSON.stringify(text)}`).toBe(422);
        const detail = (res.body as { detail: { loc: unknown[]; type: string }[] }).detail;
        expect(detail).toEqual([
          {
            loc: ['query', param],
            msg: 'Input should be an integer in plain decimal digits (0-9 only)',
            type: 'invalid_format',
          },
        ]);
      }
    }
  });

  it('accept leading zeros and the ends of each range', async () => {
    for (const [query, offset] of [
      ['limit=007', 0],
      ['limit=100&offset=0', 0],
      ['limit=1&offset=00', 0],
      ['offset=9007199254740991', 9007199254740991],
    ] as const) {
      const res = await raw(h.server.url, 'GET', `/v2/listeners?${query}`);
      expect(res.status, query).toBe(200);
      expect((res.body as { offset: number }).offset).toBeGreaterThanOrEqual(offset);
    }
    expect((await raw(h.server.url, 'GET', '/v2/listeners?offset=9007199254740992')).status).toBe(422);
    expect((await raw(h.server.url, 'GET', '/v2/listeners?limit=101')).status).toBe(422);
  });

  it('property: any value is 200 when plain decimal in range, else a 422 naming the parameter; never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        route,
        fc.constantFrom<Param>('limit', 'offset'),
        candidate,
        async (path, param, text) => {
          const url = `${path.replace('{d}', live)}?${param}=${encodeURIComponent(text)}`;
          const res = await raw(h.server.url, 'GET', url);
          expect(res.status).toBeLessThan(500);
          if (acceptable(param, text)) {
            expect(res.status).toBe(200);
            // The page starts where it was asked to: the value was read as the decimal number.
            const page = res.body as { resources: unknown[]; offset: number };
            if (param === 'offset') expect(page.offset).toBe(Number(text) + page.resources.length);
            else expect(page.resources.length).toBeLessThanOrEqual(Number(text));
          } else {
            expect(res.status).toBe(422);
            const detail = (res.body as { detail: { loc: unknown[] }[] }).detail;
            expect(detail.map((d) => d.loc)).toContainEqual(['query', param]);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
