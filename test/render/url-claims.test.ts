import { describe, expect, it } from 'vitest';
import type { DeploymentRecord } from '../../src/contract/index.ts';
import { CustomUrls, detectUrlClaims } from '../../src/render/url-claims.ts';

type Candidate = Pick<DeploymentRecord, 'id' | 'name' | 'created_at' | 'source_config'>;

const at = (id: string, createdAt: string, url: string | null, namespace = 'apps'): Candidate => ({
  id,
  name: `dep-${id}`,
  created_at: createdAt,
  source_config: { listener_id: 'l', listener_config: { k8s_namespace: namespace }, custom_url: url },
});

const refused = (ds: Candidate[]) => detectUrlClaims(ds).claims.map((c) => c.deploymentIds);

describe('detectUrlClaims', () => {
  it('keeps a URL with the older deployment and refuses the newer, in whatever order they are listed', () => {
    const older = at('a', '2026-01-01T00:00:00Z', 'https://shop.example.com/api');
    const newer = at('b', '2026-02-01T00:00:00Z', 'https://shop.example.com/api', 'other');
    expect(refused([older, newer])).toEqual([['a', 'b']]);
    expect(refused([newer, older])).toEqual([['a', 'b']]);
    const [claim] = detectUrlClaims([newer, older]).claims;
    expect(claim?.code).toBe('MOORING_E_RENDER_URL_CLAIMED');
    expect(claim?.reason).toBe(
      'deployments a ("dep-a") and b ("dep-b") would both be exposed at shop.example.com/api: a is older, so b is refused',
    );
  });

  it('the deployment that held a URL at the last poll keeps it against an older one that takes it up (regression: the older took it)', () => {
    const url = 'https://shop.example.com/';
    const newer = at('b', '2026-02-01T00:00:00Z', url);
    const first = detectUrlClaims([at('a', '2026-01-01T00:00:00Z', 'https://a.example.com/'), newer]);
    expect(first.claims).toEqual([]);
    // The older record changes its URL to the one b is exposed at: b keeps it, a is refused.
    const second = detectUrlClaims([at('a', '2026-01-01T00:00:00Z', url), newer], first.holders);
    expect(second.claims.map((c) => c.deploymentIds)).toEqual([['b', 'a']]);
    expect(second.claims[0]?.reason).toContain('b has it already, so a is refused');
    // Once b gives it up, a has it; without a last poll (a start), the older has it.
    expect(refused([at('a', '2026-01-01T00:00:00Z', url), at('b', '2026-02-01T00:00:00Z', null)])).toEqual(
      [],
    );
    expect(
      detectUrlClaims([at('a', '2026-01-01T00:00:00Z', url), newer]).holders.get('shop.example.com/'),
    ).toBe('a');
  });

  it('one URL however it is written: scheme, host case, a trailing slash', () => {
    const older = at('a', '2026-01-01T00:00:00Z', 'http://Shop.Example.com/api/');
    expect(refused([older, at('b', '2026-02-01T00:00:00Z', 'https://shop.example.com/api')])).toEqual([
      ['a', 'b'],
    ]);
    expect(
      refused([
        at('c', '2026-01-01T00:00:00Z', 'https://x.example.com'),
        at('d', '2026-03-01T00:00:00Z', 'https://x.example.com/'),
      ]),
    ).toEqual([['c', 'd']]);
  });

  it('nested paths, other hosts, no URL, a URL rendering refuses: no claim', () => {
    expect(
      refused([
        at('a', '2026-01-01T00:00:00Z', 'https://shop.example.com/'),
        at('b', '2026-02-01T00:00:00Z', 'https://shop.example.com/api'),
        at('c', '2026-03-01T00:00:00Z', 'https://other.example.com/api'),
        at('d', '2026-04-01T00:00:00Z', null),
        at('e', '2026-05-01T00:00:00Z', ''),
        at('f', '2026-06-01T00:00:00Z', 'https://user:pw@shop.example.com/api'),
      ]),
    ).toEqual([]);
  });

  it('the oldest keeps it against every newer one, refused or not; ties go by id; a record listed twice counts once', () => {
    const url = 'https://shop.example.com/';
    const a = at('a', '2026-01-01T00:00:00Z', url);
    expect(
      refused([at('c', '2026-03-01T00:00:00Z', url), at('b', '2026-01-01T00:00:00Z', url), a, a]),
    ).toEqual([
      ['a', 'b'],
      ['a', 'c'],
    ]);
  });
});

describe('CustomUrls (parsed once per record object)', () => {
  it('parses a record once for its life; a record listed anew is parsed anew', () => {
    const urls = new CustomUrls();
    const record = at('a', '2026-01-01T00:00:00Z', 'https://shop.example.com/api');
    expect(urls.of(record)).toBe('shop.example.com/api');
    record.source_config = { ...record.source_config, custom_url: 'https://other.example.com/' };
    expect(urls.of(record)).toBe('shop.example.com/api');
    expect(urls.of({ ...record })).toBe('other.example.com/');
    expect(new CustomUrls().of(record)).toBe('other.example.com/');
  });
});
