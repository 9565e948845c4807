import type { DeploymentRecord, ResourceSpecRecord, RevisionRecord } from '../../src/contract/index.ts';
import { defaultRenderSettings, type RenderSettings } from '../../src/render/index.ts';

export const LISTENER_ID = '0b7f5a52-3c1e-4f0a-9d2b-6f1e2d3c4b5a';
export const DEPLOYMENT_ID = '5f2c7e1a-8b3d-4c6e-9f0a-1b2c3d4e5f60';
export const REVISION_ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

/** A canary: if this string appears anywhere but the b-env Secret, a secret value leaked. */
export const CANARY = 'canary-4f1d9e2b-secret-value';

export function settings(overrides: Partial<RenderSettings> = {}): RenderSettings {
  return { ...defaultRenderSettings(LISTENER_ID), ...overrides };
}

/** A deployment record as the client would hold it after tolerant parsing. */
export function deployment(overrides: {
  name?: string;
  status?: string;
  spec?: ResourceSpecRecord | null;
  secrets?: { name: string; value: string }[];
  secret_references?: { name: string; secret_name: string; secret_key: string }[];
  image?: string | null;
  namespace?: string | null;
  custom_url?: string | null;
}): DeploymentRecord {
  return {
    name: overrides.name ?? 'shop-api',
    source: 'external_docker',
    source_config: {
      listener_id: LISTENER_ID,
      listener_config: overrides.namespace === null ? null : { k8s_namespace: overrides.namespace ?? 'apps' },
      resource_spec: overrides.spec ?? null,
      ...(overrides.custom_url === undefined ? {} : { custom_url: overrides.custom_url }),
    },
    source_revision_config: {
      image_uri: overrides.image === undefined ? 'registry.example.com/shop/api:1.4.2' : overrides.image,
    },
    secrets: overrides.secrets ?? [],
    secret_references: overrides.secret_references ?? null,
    id: DEPLOYMENT_ID,
    tenant_id: '3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b',
    created_at: '2026-01-02T03:04:05Z',
    updated_at: '2026-01-02T03:04:05Z',
    status: (overrides.status ?? 'READY') as DeploymentRecord['status'],
    latest_revision_id: REVISION_ID,
    active_revision_id: REVISION_ID,
  } as DeploymentRecord;
}

export function revision(image: string | null): RevisionRecord {
  return {
    id: '7d6c5b4a-3f2e-4d1c-8b0a-9f8e7d6c5b4a',
    created_at: '2026-01-03T00:00:00Z',
    updated_at: '2026-01-03T00:00:00Z',
    status: 'DEPLOYED',
    source: 'external_docker',
    source_revision_config: { image_uri: image },
  } as RevisionRecord;
}

/** Every ResourceSpec field set. */
export const FULL_SPEC: ResourceSpecRecord = {
  min_scale: 2,
  max_scale: 6,
  cpu: 0.5,
  cpu_limit: 2.25,
  memory_mb: 1536,
  memory_limit_mb: 4096,
  queue_min_scale: 1,
  queue_max_scale: 4,
  queue_cpu: 0.25,
  queue_cpu_limit: 1,
  queue_memory_mb: 512,
  queue_memory_limit_mb: 1024,
  orchestrator_cpu: 0.1,
  orchestrator_cpu_limit: 0.5,
  orchestrator_memory_mb: 256,
  orchestrator_memory_limit_mb: 512,
  orchestrator_min_scale: 2,
  orchestrator_max_scale: 2,
  executor_cpu: 2,
  executor_cpu_limit: 4,
  executor_memory_mb: 2048,
  executor_memory_limit_mb: 8192,
  redis_cpu: 0.2,
  redis_cpu_limit: 0.4,
  redis_memory_mb: 128,
  redis_memory_limit_mb: 256,
  db_cpu: 1,
  db_cpu_limit: 2,
  db_memory_mb: 2048,
  db_memory_limit_mb: 4096,
  db_storage_gi: 50,
  db_max_connections: 300,
  labels: { team: 'payments', 'example.com/cost-center': 'cc-42' },
  annotations: { 'prometheus.io/scrape': 'true', 'example.com/owner': 'payments@example.com' },
  service_account_name: 'shop-api',
  image_pull_secrets: [{ name: 'registry-creds' }],
  volumes: [
    { name: 'config', configMap: { name: 'shop-config' } },
    { name: 'tls', secret: { secretName: 'shop-cert' } },
    { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } },
    { name: 'uploads', persistentVolumeClaim: { claimName: 'shop-uploads' } },
    { name: 'shared', nfs: { server: 'nfs.example.com', path: '/exports/shop' } },
    { name: 'bundle', projected: { sources: [{ configMap: { name: 'shop-config' } }] } },
    {
      name: 'podinfo',
      downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] },
    },
    { name: 'vault', csi: { driver: 'secrets-store.csi.k8s.io', readOnly: true } },
  ],
  volume_mounts: [
    { name: 'config', mountPath: '/etc/shop', readOnly: true },
    { name: 'scratch', mountPath: '/tmp/scratch', subPath: 'app', mountPropagation: 'None' },
    { name: 'podinfo', mountPath: '/etc/podinfo', subPathExpr: '$(POD_NAME)' },
  ],
  init_containers: [
    {
      name: 'migrate',
      command: ['python', '-m', 'shop.migrate'],
      args: ['--wait'],
      workingDir: '/srv',
      env: [{ name: 'LOG_LEVEL', value: 'debug' }],
      envFrom: [{ configMapRef: { name: 'shop-config' } }],
      resources: { limits: { cpu: '1', memory: '512Mi' }, requests: { cpu: 0.25, memory: '256Mi' } },
      volumeMounts: [{ name: 'config', mountPath: '/etc/shop', readOnly: true }],
      securityContext: { runAsNonRoot: true },
    },
  ],
  sidecars: [
    {
      name: 'proxy',
      image: 'envoyproxy/envoy:v1.31.0',
      imagePullPolicy: 'IfNotPresent',
      restartPolicy: 'Always',
      resources: { requests: { cpu: '100m', memory: '64Mi' } },
      securityContext: { readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
    },
    {
      name: 'log-shipper',
      image: 'fluent/fluent-bit:3.1',
      env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
      volumeMounts: [{ name: 'scratch', mountPath: '/var/log/shop' }],
    },
  ],
};

/** The golden set: representative deployments, each compared whole with its file. */
export const GOLDEN_CASES: Record<
  string,
  () => Parameters<typeof import('../../src/render/index.ts').renderDeployment>[0]
> = {
  'minimal-external-docker': () => ({ deployment: deployment({ name: 'minimal' }), settings: settings() }),
  'full-spec': () => ({
    deployment: deployment({
      spec: FULL_SPEC,
      secrets: [
        { name: 'STRIPE_KEY', value: CANARY },
        { name: 'API_TOKEN', value: `${CANARY}-2` },
      ],
      secret_references: [
        { name: 'OPENAI_API_KEY', secret_name: 'llm-keys', secret_key: 'openai' },
        { name: 'LLM_API_KEY', secret_name: 'llm-keys', secret_key: 'provider' },
      ],
    }),
    revision: revision('registry.example.com/shop/api:1.5.0'),
    settings: settings({
      storageClassName: 'fast-ssd',
      clusterDomain: 'corp.internal',
      // FULL_SPEC mounts an nfs volume (outside the default volume types) and an inline CSI one.
      policy: {
        ...settings().policy,
        allowedVolumeTypes: ['nfs'],
        allowedCsiDrivers: ['secrets-store.csi.k8s.io'],
      },
      commands: { queue: ['python', '-m', 'shop.queue'], 'api-server': ['python', '-m', 'shop.api'] },
    }),
  }),
  autoscaled: () => ({
    deployment: deployment({
      name: 'search',
      spec: {
        min_scale: 2,
        max_scale: 10,
        queue_min_scale: 1,
        queue_max_scale: 5,
        orchestrator_min_scale: 1,
        orchestrator_max_scale: 3,
      },
    }),
    settings: settings(),
  }),
  'bring-your-own-datastores': () => ({
    deployment: deployment({
      name: 'byo',
      secrets: [
        { name: 'POSTGRES_URI_CUSTOM', value: `postgres://u:${CANARY}@db.example.com/app` },
        { name: 'REDIS_URI_CUSTOM', value: `redis://:${CANARY}@cache.example.com:6379` },
      ],
      spec: { redis_cpu: 4, db_storage_gi: 100 },
    }),
    settings: settings(),
  }),
  // POSTGRES_URI_CUSTOM / REDIS_URI_CUSTOM by secret_references: nothing bundled, URIs from that Secret.
  'bring-your-own-references': () => ({
    deployment: deployment({
      name: 'byo-refs',
      secret_references: [
        { name: 'POSTGRES_URI_CUSTOM', secret_name: 'shared-db', secret_key: 'uri' },
        { name: 'REDIS_URI_CUSTOM', secret_name: 'shared-cache', secret_key: 'redis-url' },
      ],
      spec: { executor_cpu: 1, db_storage_gi: 100 },
    }),
    settings: settings(),
  }),
  // Probes as HTTP GETs with set timings; each worker its own command and args.
  'probes-and-commands': () => ({
    deployment: deployment({
      name: 'workers',
      spec: { queue_cpu: 0.5, orchestrator_min_scale: 1, executor_memory_mb: 2048 },
    }),
    settings: settings({
      probes: {
        enabled: true,
        path: '/healthz',
        readiness: { initialDelaySeconds: 0, periodSeconds: 5, timeoutSeconds: 2, failureThreshold: 2 },
        liveness: { initialDelaySeconds: 10, periodSeconds: 30, timeoutSeconds: 5, failureThreshold: 4 },
        startup: { initialDelaySeconds: 0, periodSeconds: 2, timeoutSeconds: 2, failureThreshold: 90 },
      },
      commands: { queue: ['celery'], orchestrator: ['python', '-m', 'orchestrator'], executor: ['executor'] },
      args: { queue: ['-A', 'app', 'worker', '--concurrency', '4'], 'api-server': ['--workers', '2'] },
    }),
  }),
  // Operator-wide pod defaults: placement, datastore pull secrets, resources, Service type.
  'placement-defaults': () => ({
    deployment: deployment({ name: 'placed', spec: { image_pull_secrets: [{ name: 'app-registry' }] } }),
    settings: settings({
      placement: {
        app: {
          nodeSelector: { 'node.example.com/pool': 'apps' },
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' },
          ],
          priorityClassName: 'apps-standard',
        },
        datastores: {
          tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'data', effect: 'NoSchedule' }],
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [
                  { matchExpressions: [{ key: 'node.example.com/pool', operator: 'In', values: ['data'] }] },
                ],
              },
            },
          },
          priorityClassName: 'data-critical',
        },
      },
      datastoreImagePullSecrets: ['mirror-creds'],
      resources: { 'api-server': { cpu: 2, memoryMb: 2048 }, postgres: { memoryMb: 4096 } },
      service: {
        type: 'LoadBalancer',
        annotations: { 'service.beta.kubernetes.io/aws-load-balancer-internal': 'true' },
      },
    }),
  }),
  unused: () => ({
    deployment: deployment({
      name: 'paused',
      status: 'UNUSED',
      spec: { min_scale: 3, max_scale: 8, queue_max_scale: 2, executor_cpu: 1 },
    }),
    settings: settings(),
  }),
  // policy.podSecurity: restricted: the app containers' and the datastores' restricted defaults.
  restricted: () => ({
    deployment: deployment({
      name: 'hardened',
      spec: {
        queue_min_scale: 1,
        volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1Gi' } }],
        init_containers: [{ name: 'migrate', command: ['python', '-m', 'shop.migrate'] }],
        sidecars: [
          {
            name: 'proxy',
            image: 'envoyproxy/envoy:v1.31.0',
            restartPolicy: 'Always',
            securityContext: { readOnlyRootFilesystem: true, capabilities: { add: ['NET_BIND_SERVICE'] } },
          },
        ],
      },
    }),
    settings: settings({ policy: { ...settings().policy, podSecurity: 'restricted' } }),
  }),
  // exposure: an Ingress with a cert-manager issuer, its class, and the controller admitted.
  ingress: () => ({
    deployment: deployment({ name: 'storefront', custom_url: 'https://shop.example.com/store/' }),
    settings: settings({
      exposure: {
        kind: 'ingress',
        ingressClassName: 'nginx',
        annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': '8m' },
        tls: { clusterIssuer: 'letsencrypt' },
      },
    }),
  }),
  // exposure: a Gateway API HTTPRoute on a listener of a shared Gateway, `from` set.
  httproute: () => ({
    deployment: deployment({ name: 'checkout', custom_url: 'http://checkout.example.com' }),
    settings: settings({
      exposure: {
        kind: 'httproute',
        gateway: { name: 'public', namespace: 'gateways', sectionName: 'https' },
        from: { matchLabels: { 'example.com/gateway': 'true' } },
      },
    }),
  }),
  'secrets-and-references': () => ({
    deployment: deployment({
      name: 'Billing Service (EU)',
      secrets: [
        { name: 'DB_PASSWORD', value: CANARY },
        { name: 'webhook.secret', value: `${CANARY}-webhook` },
      ],
      secret_references: [{ name: 'SENTRY_DSN', secret_name: 'observability', secret_key: 'sentry-dsn' }],
    }),
    settings: settings(),
  }),
};
