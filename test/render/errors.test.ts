import { describe, expect, it } from 'vitest';
import type { ResourceSpecRecord } from '../../src/contract/index.ts';
import { RenderError, renderDeployment } from '../../src/render/index.ts';
import { TerminalError } from '../../src/errors.ts';
import { deployment, revision, settings } from './fixtures.ts';

function renderSpec(spec: ResourceSpecRecord, policy = { allowHostPath: false, allowPrivileged: false }) {
  return renderDeployment({ deployment: deployment({ spec }), settings: settings({ policy }) });
}

function errorOf(fn: () => unknown): RenderError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RenderError);
    return err as RenderError;
  }
  throw new Error('expected a RenderError, got a result');
}

const S = 'source_config.resource_spec';

/** The parts of rendered workloads, HPAs and PDBs these tests read. */
interface Workload {
  metadata: { name: string };
  spec: {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: {
        securityContext?: unknown;
        containers: {
          name: string;
          securityContext?: unknown;
          resources: { requests: { cpu: string } };
          args?: string[];
        }[];
      };
    };
    volumeClaimTemplates: { spec: { resources: { requests: { storage: string } } } }[];
    minReplicas?: number;
    maxReplicas?: number;
    minAvailable?: number;
  };
}

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
      'hostPath volume "x" is not allowed',
    ],
    [
      'privileged sidecar',
      { sidecars: [{ name: 'p', securityContext: { privileged: true } }] },
      'MOORING_E_RENDER_POLICY',
      `${S}.sidecars[0].securityContext`,
      'sidecars[0] asks for privileged: true, which is not allowed',
    ],
    [
      'escalating init container',
      { init_containers: [{ name: 'p', securityContext: { allowPrivilegeEscalation: true } }] },
      'MOORING_E_RENDER_POLICY',
      `${S}.init_containers[0].securityContext`,
      'init_containers[0] asks for allowPrivilegeEscalation: true, which is not allowed',
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

describe('policy switches', () => {
  it('allowHostPath lets a hostPath volume through', () => {
    const { objects } = renderSpec(
      { volumes: [{ name: 'x', hostPath: { path: '/var/run' } }] },
      { allowHostPath: true, allowPrivileged: false },
    );
    expect(JSON.stringify(objects)).toContain('"hostPath":{"path":"/var/run"}');
  });

  it('allowPrivileged lets a privileged sidecar through without the escalation default', () => {
    const { objects } = renderSpec(
      { sidecars: [{ name: 'p', securityContext: { privileged: true } }] },
      { allowHostPath: false, allowPrivileged: true },
    );
    const api = objects.find(
      (o) => o.kind === 'Deployment' && o.metadata.name === 'shop-api',
    ) as unknown as Workload;
    const sidecar = api.spec.template.spec.containers.find((c: { name: string }) => c.name === 'p');
    expect(sidecar!.securityContext).toEqual({ privileged: true });
  });

  it('a user securityContext is merged over allowPrivilegeEscalation: false', () => {
    const { objects } = renderSpec({ sidecars: [{ name: 's', securityContext: { runAsUser: 1000 } }] });
    const api = objects.find(
      (o) => o.kind === 'Deployment' && o.metadata.name === 'shop-api',
    ) as unknown as Workload;
    expect(api.spec.template.spec.containers[1]!.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      runAsUser: 1000,
    });
    expect(api.spec.template.spec.securityContext).toEqual({ seccompProfile: { type: 'RuntimeDefault' } });
  });
});

describe('defaults and scaling', () => {
  const byName = (objects: { kind: string; metadata: { name: string } }[], kind: string, name: string) =>
    objects.find((o) => o.kind === kind && o.metadata.name === name) as unknown as Workload;

  it('main defaults: 1 CPU / 1Gi requests, limits twice, 1 replica, Redis and Postgres (10Gi, 100 connections)', () => {
    const { objects } = renderSpec({});
    const api = byName(objects, 'Deployment', 'shop-api');
    expect(api.spec.replicas).toBe(1);
    expect(api.spec.template.spec.containers[0]!.resources).toEqual({
      limits: { cpu: '2', memory: '2Gi' },
      requests: { cpu: '1', memory: '1Gi' },
    });
    const pg = byName(objects, 'StatefulSet', 'shop-api-postgres');
    expect(pg.spec.volumeClaimTemplates[0]!.spec.resources.requests.storage).toBe('10Gi');
    expect(pg.spec.template.spec.containers[0]!.args).toEqual(['-c', 'max_connections=100']);
    expect(byName(objects, 'Deployment', 'shop-api-redis')).toBeDefined();
    expect(
      objects.some((o) => o.kind === 'HorizontalPodAutoscaler' || o.kind === 'PodDisruptionBudget'),
    ).toBe(false);
    expect(objects.some((o) => /queue|orchestrator|executor/.test(o.metadata.name))).toBe(false);
  });

  it('a limit alone lowers the defaulted request to it', () => {
    const { objects } = renderSpec({ cpu_limit: 0.5 });
    expect(
      byName(objects, 'Deployment', 'shop-api').spec.template.spec.containers[0]!.resources.requests.cpu,
    ).toBe('500m');
  });

  it('with an HPA the Deployment has no replicas; min_scale >= 2 adds a PDB', () => {
    const { objects } = renderSpec({ min_scale: 2, max_scale: 5 });
    expect('replicas' in byName(objects, 'Deployment', 'shop-api').spec).toBe(false);
    expect(byName(objects, 'HorizontalPodAutoscaler', 'shop-api').spec).toMatchObject({
      minReplicas: 2,
      maxReplicas: 5,
    });
    expect(byName(objects, 'PodDisruptionBudget', 'shop-api').spec.minAvailable).toBe(1);
  });

  it('an HPA never has minReplicas 0', () => {
    const { objects } = renderSpec({ min_scale: 0, max_scale: 3 });
    expect(byName(objects, 'HorizontalPodAutoscaler', 'shop-api').spec.minReplicas).toBe(1);
  });

  it('UNUSED: every workload at 0 replicas, no HPA, no PDB', () => {
    const { objects } = renderDeployment({
      deployment: deployment({ status: 'UNUSED', spec: { min_scale: 2, max_scale: 9, queue_cpu: 1 } }),
      settings: settings(),
    });
    const workloads = objects.filter(
      (o) => o.kind === 'Deployment' || o.kind === 'StatefulSet',
    ) as unknown as Workload[];
    expect(workloads.length).toBe(4);
    for (const w of workloads) expect(w.spec.replicas, w.metadata.name).toBe(0);
    expect(
      objects.some((o) => o.kind === 'HorizontalPodAutoscaler' || o.kind === 'PodDisruptionBudget'),
    ).toBe(false);
  });

  it('selectors use only the deployment id and component, and match the pod labels', () => {
    const { objects } = renderSpec({ labels: { team: 'x' }, queue_cpu: 1 });
    for (const w of objects.filter(
      (o) => o.kind === 'Deployment' || o.kind === 'StatefulSet',
    ) as unknown as Workload[]) {
      const sel = w.spec.selector.matchLabels;
      expect(Object.keys(sel).sort()).toEqual(['app.kubernetes.io/component', 'mooring.dev/deployment-id']);
      expect(w.spec.template.metadata.labels).toMatchObject(sel);
    }
  });

  it('the Postgres claim template carries no user labels (it is immutable once created)', () => {
    const { objects } = renderSpec({ labels: { team: 'x' } });
    const pg = byName(objects, 'StatefulSet', 'shop-api-postgres') as unknown as {
      metadata: { labels: Record<string, string> };
      spec: { volumeClaimTemplates: { metadata: { labels: Record<string, string> } }[] };
    };
    expect(pg.metadata.labels.team).toBe('x');
    expect(pg.spec.volumeClaimTemplates[0]!.metadata.labels.team).toBeUndefined();
    expect(pg.spec.volumeClaimTemplates[0]!.metadata.labels['mooring.dev/deployment-id']).toBeDefined();
  });

  it('a cluster domain that is not a DNS name is refused', () => {
    const err = errorOf(() =>
      renderDeployment({ deployment: deployment({}), settings: settings({ clusterDomain: 'not a domain' }) }),
    );
    expect(err.field).toBe('settings.clusterDomain');
  });

  it('objects come in apply order', () => {
    const { objects } = renderSpec({ min_scale: 2, max_scale: 3 });
    expect(objects.map((o) => o.kind)).toEqual([
      'Secret',
      'Service',
      'Service',
      'Service',
      'StatefulSet',
      'Deployment',
      'Deployment',
      'HorizontalPodAutoscaler',
      'PodDisruptionBudget',
      'NetworkPolicy',
    ]);
  });
});
