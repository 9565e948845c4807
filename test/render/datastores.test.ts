import { describe, expect, it } from 'vitest';
import { renderDeployment } from '../../src/render/index.ts';
import { deployment, settings } from './fixtures.ts';
import { errorOf } from './helpers.ts';

type Env = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };

function appEnv(objects: ReturnType<typeof renderDeployment>['objects'], name: string): Env[] {
  const d = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name) as unknown as {
    spec: { template: { spec: { containers: { env: Env[] }[] } } };
  };
  return d.spec.template.spec.containers[0]!.env;
}

const kinds = (objects: ReturnType<typeof renderDeployment>['objects']) =>
  objects.map((o) => `${o.kind}/${o.metadata.name}`);

describe('bring-your-own datastores', () => {
  it('through secret_references: nothing bundled, the URIs read from the referenced Secret and key', () => {
    const { objects } = renderDeployment({
      deployment: deployment({
        name: 'byo',
        spec: { queue_cpu: 1 },
        secret_references: [
          { name: 'POSTGRES_URI_CUSTOM', secret_name: 'shared-db', secret_key: 'uri' },
          { name: 'REDIS_URI_CUSTOM', secret_name: 'shared-cache', secret_key: 'redis-url' },
        ],
      }),
      settings: settings(),
    });
    expect(kinds(objects)).toEqual(['Service/byo', 'Deployment/byo', 'Deployment/byo-queue']);
    for (const name of ['byo', 'byo-queue']) {
      const env = appEnv(objects, name);
      expect(env.find((e) => e.name === 'DATABASE_URI')).toEqual({
        name: 'DATABASE_URI',
        valueFrom: { secretKeyRef: { key: 'uri', name: 'shared-db' } },
      });
      expect(env.find((e) => e.name === 'REDIS_URI')).toEqual({
        name: 'REDIS_URI',
        valueFrom: { secretKeyRef: { key: 'redis-url', name: 'shared-cache' } },
      });
      expect(env.map((e) => e.name)).not.toContain('POSTGRES_PASSWORD');
    }
  });

  it('one by each route: Postgres from secrets, Redis from a reference', () => {
    const { objects } = renderDeployment({
      deployment: deployment({
        name: 'mixed',
        secrets: [{ name: 'POSTGRES_URI_CUSTOM', value: 'postgres://u:p@db/app' }],
        secret_references: [{ name: 'REDIS_URI_CUSTOM', secret_name: 'cache', secret_key: 'url' }],
      }),
      settings: settings(),
    });
    expect(kinds(objects)).toEqual(['Secret/mixed-env', 'Service/mixed', 'Deployment/mixed']);
    const env = appEnv(objects, 'mixed');
    expect(env.find((e) => e.name === 'DATABASE_URI')?.valueFrom?.secretKeyRef).toEqual({
      key: 'POSTGRES_URI_CUSTOM',
      name: 'mixed-env',
    });
    expect(env.find((e) => e.name === 'REDIS_URI')?.valueFrom?.secretKeyRef).toEqual({
      key: 'url',
      name: 'cache',
    });
  });

  it('the same datastore by both routes is refused, naming the reference, never a value', () => {
    const err = errorOf(() =>
      renderDeployment({
        deployment: deployment({
          secrets: [{ name: 'REDIS_URI_CUSTOM', value: 'redis://:hunter2@cache' }],
          secret_references: [{ name: 'REDIS_URI_CUSTOM', secret_name: 'cache', secret_key: 'url' }],
        }),
        settings: settings(),
      }),
    );
    expect(err.code).toBe('MOORING_E_RENDER_INVALID');
    expect(err.field).toBe('secret_references[0].name');
    expect(err.message).not.toContain('hunter2');
  });

  it("a POSTGRES_URI_CUSTOM reference may not read another deployment's credentials Secret", () => {
    const err = errorOf(() =>
      renderDeployment({
        deployment: deployment({
          name: 'thief',
          secret_references: [
            {
              name: 'POSTGRES_URI_CUSTOM',
              secret_name: 'billing-postgres-credentials',
              secret_key: 'POSTGRES_PASSWORD',
            },
          ],
        }),
        settings: settings(),
      }),
    );
    expect(err.code).toBe('MOORING_E_RENDER_POLICY');
    expect(err.field).toMatch(/^secret_references\[0\]/);
  });
});
