/** Deployment records and a sandbox-backed harness for reconcile tests. */
import type { DeploymentRecord, ResourceSpecRecord, RevisionRecord } from '../../src/contract/index.ts';
import { createKubeClient } from '../../src/kube/clients.ts';
import type { KubeHttp } from '../../src/kube/http.ts';
import { ResourceManager } from '../../src/kube/resource-manager.ts';
import { silentLogger } from '../../src/log.ts';
import type { ReconcileDeps, ReconcileInput } from '../../src/reconcile/reconcile.ts';
import { defaultRenderSettings } from '../../src/render/index.ts';
import type { KubeApi } from '../../src/sandbox/server.ts';

export const LISTENER_ID = '0b7f5a52-3c1e-4f0a-9d2b-6f1e2d3c4b5a';
export const REVISION_ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
/** If this appears in an event or error, a secret value leaked. */
export const CANARY = 'canary-7c1e-secret-value';

/** A spec exercising defaulting-prone fields: quantities as numbers, ports, probes-free sidecars, volumes. */
export const SPEC: ResourceSpecRecord = {
  min_scale: 2,
  max_scale: 2,
  cpu: 0.5,
  cpu_limit: 1,
  memory_mb: 512,
  memory_limit_mb: 1024,
  queue_min_scale: 1,
  queue_max_scale: 1,
  queue_cpu: 0.25,
  queue_memory_mb: 256,
  db_storage_gi: 5,
  labels: { team: 'payments' },
  annotations: { 'example.com/owner': 'payments@example.com' },
  volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1Gi' } }],
  volume_mounts: [{ name: 'scratch', mountPath: '/scratch' }],
} as ResourceSpecRecord;

export function record(
  id: string,
  opts: {
    name?: string;
    namespace?: string;
    status?: string;
    spec?: ResourceSpecRecord;
    image?: string;
    secrets?: { name: string; value: string }[];
  } = {},
): DeploymentRecord {
  return {
    name: opts.name ?? 'shop-api',
    source: 'external_docker',
    source_config: {
      listener_id: LISTENER_ID,
      listener_config: { k8s_namespace: opts.namespace ?? 'apps' },
      resource_spec: opts.spec ?? SPEC,
    },
    source_revision_config: { image_uri: opts.image ?? 'registry.example.com/shop/api:1.0.0' },
    secrets: opts.secrets ?? [{ name: 'API_TOKEN', value: CANARY }],
    secret_references: null,
    id,
    tenant_id: '3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b',
    created_at: '2026-01-02T03:04:05Z',
    updated_at: '2026-01-02T03:04:05Z',
    status: (opts.status ?? 'READY') as DeploymentRecord['status'],
    latest_revision_id: REVISION_ID,
    active_revision_id: REVISION_ID,
  } as DeploymentRecord;
}

export function revision(image: string, status = 'DEPLOYED'): RevisionRecord {
  return {
    id: REVISION_ID,
    created_at: '2026-01-03T00:00:00Z',
    updated_at: '2026-01-03T00:00:00Z',
    status,
    source: 'external_docker',
    source_revision_config: { image_uri: image },
  } as RevisionRecord;
}

export function input(deployment: DeploymentRecord): ReconcileInput {
  return { deployment, settings: defaultRenderSettings(LISTENER_ID) };
}

/** The agent's own client for the sandbox. */
export function kubeOf(api: KubeApi): KubeHttp {
  return createKubeClient(api.kubeconfig);
}

export function depsFor(
  api: KubeApi,
  overrides: Partial<ReconcileDeps['settings']> = {},
  extra: Partial<ReconcileDeps> = {},
): ReconcileDeps {
  return {
    resources: new ResourceManager({ kube: kubeOf(api) }),
    logger: silentLogger(),
    settings: {
      listenerId: LISTENER_ID,
      namespaces: ['apps', 'other'],
      deleteVolumes: false,
      recreateStatefulSets: false,
      dryRun: false,
      ...overrides,
    },
    ...extra,
  };
}
