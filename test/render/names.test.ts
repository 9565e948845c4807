import { describe, expect, it } from 'vitest';
import { baseNameOf, detectCollisions, MAX_BASE_NAME_LENGTH } from '../../src/render/names.ts';
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
        baseName: 'shop',
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
});
