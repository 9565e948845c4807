import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { baseNameOf, detectCollisions, MAX_BASE_NAME_LENGTH, objectNames } from '../../src/render/names.ts';
import { renderDeployment } from '../../src/render/index.ts';
import { deployment, settings } from './fixtures.ts';

const DNS_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

describe('baseNameOf', () => {
  it('keeps a name that is already a short DNS-1035 label', () => {
    expect(baseNameOf('shop-api')).toBe('shop-api');
  });

  it.each(['My App', 'shop_api', '9lives', '---', 'ÜBER', 'a'.repeat(41), 'trailing-', 'x'.repeat(300)])(
    'alters %j into a valid label with a stable hash suffix',
    (name) => {
      const b = baseNameOf(name);
      expect(b).toMatch(DNS_1035);
      expect(b.length).toBeLessThanOrEqual(MAX_BASE_NAME_LENGTH);
      expect(b).toMatch(/-[0-9a-f]{6}$/);
      expect(baseNameOf(name)).toBe(b);
    },
  );

  it('gives different names to names that sanitize alike', () => {
    expect(baseNameOf('My App')).not.toBe(baseNameOf('my_app'));
    expect(baseNameOf('My App')).toMatch(/^my-app-[0-9a-f]{6}$/);
  });

  it('every derived object name fits its limits for the longest base name', () => {
    const { objects } = renderDeployment({
      deployment: deployment({
        name: 'Z'.repeat(200),
        spec: { orchestrator_cpu: 1, queue_cpu: 1, executor_cpu: 1 },
      }),
      settings: settings(),
    });
    for (const o of objects) {
      const limit =
        o.kind === 'Service' || o.kind === 'Deployment' ? 63 : o.kind === 'StatefulSet' ? 52 : 253;
      expect(o.metadata.name.length, `${o.kind}/${o.metadata.name}`).toBeLessThanOrEqual(limit);
    }
  });
});

describe('detectCollisions', () => {
  const d = (id: string, name: string, ns: string | null, created = '2026-01-01T00:00:00Z') => ({
    id,
    name,
    created_at: created,
    source_config: { listener_config: ns === null ? null : { k8s_namespace: ns } },
  });
  type D = ReturnType<typeof d>;
  const refused = (ds: D[]) => new Set(detectCollisions(ds).map((c) => c.deploymentIds[1]));

  it('reports two deployments with the same base name in one namespace, oldest first', () => {
    const got = detectCollisions([
      d('b', 'shop', 'apps', '2026-02-01T00:00:00Z'),
      d('a', 'shop', 'apps', '2026-03-01T00:00:00Z'),
      d('c', 'other', 'apps'),
    ]);
    expect(got).toEqual([
      expect.objectContaining({
        code: 'MOORING_E_RENDER_NAME_COLLISION',
        namespace: 'apps',
        name: 'shop',
        deploymentIds: ['b', 'a'],
      }),
    ]);
  });

  it('does not report the same name in different namespaces, or one record listed twice', () => {
    expect(detectCollisions([d('a', 'shop', 'apps'), d('b', 'shop', 'web'), d('a', 'shop', 'apps')])).toEqual(
      [],
    );
  });

  it('skips deployments without a namespace', () => {
    expect(detectCollisions([d('a', 'shop', null), d('b', 'shop', null)])).toEqual([]);
  });

  // Regression: only base names were compared, so `shop-redis` rendered over `shop`'s Redis.
  it.each([
    ['shop first', '2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z', ['x', 'y']],
    ['shop-redis first', '2026-02-01T00:00:00Z', '2026-01-01T00:00:00Z', ['y', 'x']],
  ])(
    "a deployment named after another one's Redis collides with it (%s): the older keeps the name",
    (_, shopAt, redisAt, ids) => {
      const got = detectCollisions([d('x', 'shop', 'apps', shopAt), d('y', 'shop-redis', 'apps', redisAt)]);
      expect(got).toHaveLength(1);
      expect(got[0]).toMatchObject({ namespace: 'apps', name: 'shop-redis', deploymentIds: ids });
      // The reason names both deployments and the shared name.
      expect(got[0]!.reason).toContain(`deployments ${ids[0]}`);
      expect(got[0]!.reason).toContain(`and ${ids[1]} (`);
      expect(got[0]!.reason).toContain('"shop-redis" in namespace "apps"');
      expect(got[0]!.reason).toMatch(/"shop"/);
      expect(got[0]!.reason).toMatch(/"shop-redis"/);
    },
  );

  it('compares every derived name, across kinds (a Service named like a Secret)', () => {
    // `shop`'s Postgres credentials Secret is `shop-postgres-credentials`; a deployment of that name
    // would make a Deployment and a Service of that name: other kinds, refused all the same.
    for (const [suffix, name] of Object.entries(objectNames('shop'))) {
      if (suffix === 'apiServer') continue;
      const got = detectCollisions([d('x', 'shop', 'apps'), d('y', name, 'apps', '2026-01-02T00:00:00Z')]);
      expect(
        got.map((c) => [c.name, c.deploymentIds]),
        name,
      ).toEqual([[name, ['x', 'y']]]);
    }
    // A name that only shares a prefix is no collision.
    expect(
      detectCollisions([d('x', 'shop', 'apps'), d('y', 'shop-api', 'apps', '2026-01-02T00:00:00Z')]),
    ).toEqual([]);
  });

  it('refuses every deployment an older one shares a name with, refused or not', () => {
    const got = detectCollisions([
      d('c', 'shop-redis-redis', 'apps', '2026-03-01T00:00:00Z'),
      d('a', 'shop', 'apps', '2026-01-01T00:00:00Z'),
      d('b', 'shop-redis', 'apps', '2026-02-01T00:00:00Z'),
      d('e', 'shop', 'apps', '2026-04-01T00:00:00Z'),
    ]);
    expect(got.map((c) => [c.deploymentIds, c.name])).toEqual([
      [['a', 'b'], 'shop-redis'],
      [['b', 'c'], 'shop-redis-redis'],
      [['a', 'e'], 'shop'],
    ]);
  });

  it('is stable: a newer deployment never changes what older ones are told, one going away never refuses one that ran', () => {
    const names = [
      'shop',
      'shop-redis',
      'shop-redis-redis',
      'shop-queue',
      'shop-env',
      'shop-postgres',
      'other',
      'Shop',
    ];
    const arb = fc.uniqueArray(
      fc.record({
        id: fc.uuid(),
        name: fc.constantFrom(...names),
        ns: fc.constantFrom('apps', 'web'),
        day: fc.integer({ min: 1, max: 28 }),
      }),
      { minLength: 1, maxLength: 8, selector: (r) => r.id },
    );
    fc.assert(
      fc.property(arb, (records) => {
        const ds = records.map((r) =>
          d(r.id, r.name, r.ns, `2026-01-${String(r.day).padStart(2, '0')}T00:00:00Z`),
        );
        const out = refused(ds);
        // No two deployments that run share a name in a namespace.
        const taken = new Map<string, string>();
        for (const x of ds.filter((x) => !out.has(x.id))) {
          for (const n of Object.values(objectNames(baseNameOf(x.name)))) {
            const key = `${x.source_config.listener_config?.k8s_namespace}/${n}`;
            expect(taken.get(key), key).toBeUndefined();
            taken.set(key, x.id);
          }
        }
        // Without any one deployment, no deployment that ran is refused.
        for (const gone of ds) {
          const after = refused(ds.filter((x) => x !== gone));
          for (const id of after) expect(out.has(id), `${id} refused once ${gone.id} went`).toBe(true);
        }
        // A deployment newer than all adds at most its own refusal.
        const newest = d(
          'ffffffff-ffff-4fff-8fff-ffffffffffff',
          'shop-redis',
          'apps',
          '2026-02-01T00:00:00Z',
        );
        const more = refused([...ds, newest]);
        more.delete(newest.id);
        expect([...more].sort()).toEqual([...out].sort());
      }),
    );
  });
});
