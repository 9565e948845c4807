import { describe, expect, it } from 'vitest';
import type { ResourceSpecRecord } from '../../src/contract/index.ts';
import { renderDeployment } from '../../src/render/index.ts';
import { TerminalError } from '../../src/errors.ts';
import { deployment, revision, settings } from './fixtures.ts';
import { errorOf, renderSpec } from './helpers.ts';

const S = 'source_config.resource_spec';

describe('render errors name the field and the values', () => {
  it.each<[string, ResourceSpecRecord, string, string, string]>([
    [
      'cpu limit below request',
      { cpu: 1, cpu_limit: 0.5 },
      'MOORING_E_RENDER_INVALID',
      `${S}.cpu_limit`,
      'cpu_limit (0.5) must be >= cpu (1)',
    ],
    [
      'memory limit below request',
      { memory_mb: 512, memory_limit_mb: 256 },
      'MOORING_E_RENDER_INVALID',
      `${S}.memory_limit_mb`,
      'memory_limit_mb (256) must be >= memory_mb (512)',
    ],
    [
      'queue cpu limit',
      { queue_cpu: 2, queue_cpu_limit: 1 },
      'MOORING_E_RENDER_INVALID',
      `${S}.queue_cpu_limit`,
      'queue_cpu_limit (1) must be >= queue_cpu (2)',
    ],
    [
      'db memory limit',
      { db_memory_mb: 2048, db_memory_limit_mb: 1024 },
      'MOORING_E_RENDER_INVALID',
      `${S}.db_memory_limit_mb`,
      'db_memory_limit_mb (1024) must be >= db_memory_mb (2048)',
    ],
    [
      'min above max',
      { min_scale: 3, max_scale: 2 },
      'MOORING_E_RENDER_INVALID',
      `${S}.min_scale`,
      'min_scale (3) must be <= max_scale (2)',
    ],
    [
      'orchestrator min above max',
      { orchestrator_min_scale: 5, orchestrator_max_scale: 1 },
      'MOORING_E_RENDER_INVALID',
      `${S}.orchestrator_min_scale`,
      'orchestrator_min_scale (5) must be <= orchestrator_max_scale (1)',
    ],
    [
      'mount without volume',
      { volume_mounts: [{ name: 'data', mountPath: '/data' }] },
      'MOORING_E_RENDER_INVALID',
      `${S}.volume_mounts[0].name`,
      'volume_mounts[0].name "data" has no volume',
    ],
    [
      'duplicate container names',
      { sidecars: [{ name: 'x' }], init_containers: [{ name: 'x' }] },
      'MOORING_E_RENDER_INVALID',
      `${S}.init_containers[0].name`,
      'init_containers[0].name "x" is already used by sidecars[0]',
    ],
    [
      'sidecar named like the app container',
      { sidecars: [{ name: 'app' }] },
      'MOORING_E_RENDER_INVALID',
      `${S}.sidecars[0].name`,
      'sidecars[0].name "app" is already used by the app container',
    ],
    [
      'hostPath volume',
      { volumes: [{ name: 'x', hostPath: { path: '/var/run' } }] },
      'MOORING_E_RENDER_POLICY',
      `${S}.volumes[0].hostPath`,
      'hostPath volume "x" is not allowed (policy.allowHostPath)',
    ],
    [
      'privileged sidecar',
      { sidecars: [{ name: 'p', securityContext: { privileged: true } }] },
      'MOORING_E_RENDER_POLICY',
      `${S}.sidecars[0].securityContext.privileged`,
      'sidecars[0].securityContext.privileged is true: Pod Security Standard "baseline" (Privileged Containers) allows false or absent; policy.allowPrivileged exempts it',
    ],
    [
      'escalating init container',
      { init_containers: [{ name: 'p', securityContext: { allowPrivilegeEscalation: true } }] },
      'MOORING_E_RENDER_POLICY',
      `${S}.init_containers[0].securityContext.allowPrivilegeEscalation`,
      'init_containers[0].securityContext.allowPrivilegeEscalation is true, which is not allowed; policy.allowPrivileged exempts it',
    ],
    [
      'two volume sources',
      { volumes: [{ name: 'v', emptyDir: {}, configMap: { name: 'c' } }] },
      'MOORING_E_RENDER_INVALID',
      `${S}.volumes[0]`,
      'volume "v" has 2 sources; exactly one is allowed',
    ],
    [
      'reserved label',
      { labels: { 'app.kubernetes.io/component': 'x' } },
      'MOORING_E_RENDER_INVALID',
      `${S}.labels["app.kubernetes.io/component"]`,
      'label "app.kubernetes.io/component" is set by mooring and may not be given',
    ],
    [
      'sidecar restartPolicy',
      { sidecars: [{ name: 's', restartPolicy: 'Never' }] },
      'MOORING_E_RENDER_INVALID',
      `${S}.sidecars[0].restartPolicy`,
      'sidecars[0].restartPolicy "Never" must be "Always" or absent',
    ],
    [
      'sidecar limit below request',
      { sidecars: [{ name: 's', resources: { limits: { cpu: '100m' }, requests: { cpu: 0.5 } } }] },
      'MOORING_E_RENDER_INVALID',
      `${S}.sidecars[0].resources.limits.cpu`,
      'sidecars[0].resources.limits.cpu (100m) must be >= requests.cpu (500m)',
    ],
    [
      'bad quantity',
      { sidecars: [{ name: 's', resources: { limits: { memory: 'lots' } } }] },
      'MOORING_E_RENDER_INVALID',
      `${S}.sidecars[0].resources.limits.memory`,
      'sidecars[0].resources.limits.memory ("lots") is not a quantity',
    ],
    [
      'too many connections',
      { db_max_connections: 1_000_000 },
      'MOORING_E_RENDER_INVALID',
      `${S}.db_max_connections`,
      'db_max_connections (1000000) must be a whole number in 1..262143',
    ],
    [
      'bad service account',
      { service_account_name: 'Not_Valid' },
      'MOORING_E_RENDER_INVALID',
      `${S}.service_account_name`,
      'service_account_name "Not_Valid" is not a DNS-1123 subdomain',
    ],
  ])('%s', (_name, spec, code, field, message) => {
    const err = errorOf(() => renderSpec(spec));
    expect(err).toBeInstanceOf(TerminalError);
    expect({ code: err.code, field: err.details.field, message: err.message }).toEqual({
      code,
      field,
      message,
    });
  });

  it('a missing namespace names the field', () => {
    const err = errorOf(() =>
      renderDeployment({ deployment: deployment({ namespace: null }), settings: settings() }),
    );
    expect(err.field).toBe('source_config.listener_config.k8s_namespace');
  });

  it('no image on the revision nor the deployment is MOORING_E_RENDER_NO_IMAGE', () => {
    const err = errorOf(() =>
      renderDeployment({
        deployment: deployment({ image: null }),
        revision: revision(null),
        settings: settings(),
      }),
    );
    expect(err.code).toBe('MOORING_E_RENDER_NO_IMAGE');
    expect(err.field).toBe('source_revision_config.image_uri');
  });

  it('the revision image wins over the deployment image', () => {
    const { objects } = renderDeployment({
      deployment: deployment({}),
      revision: revision('r/img:2'),
      settings: settings(),
    });
    const api = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'shop-api');
    expect(JSON.stringify(api)).toContain('"image":"r/img:2"');
  });

  it('duplicate secret names and reserved reference names are refused without the values', () => {
    const dup = errorOf(() =>
      renderDeployment({
        deployment: deployment({
          secrets: [
            { name: 'A', value: 'v1-secret' },
            { name: 'A', value: 'v2-secret' },
          ],
        }),
        settings: settings(),
      }),
    );
    expect(dup.field).toBe('secrets[1].name');
    expect(dup.message).not.toContain('secret"');
    const reserved = errorOf(() =>
      renderDeployment({
        deployment: deployment({ secret_references: [{ name: 'PORT', secret_name: 's', secret_key: 'k' }] }),
        settings: settings(),
      }),
    );
    expect(reserved.message).toBe('secret_references[0].name "PORT" is set by mooring');
  });
});
