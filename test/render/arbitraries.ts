import fc from 'fast-check';
import type { DeploymentRecord, ResourceSpecRecord } from '../../src/contract/index.ts';
import type { RenderSettings } from '../../src/render/index.ts';
import { CANARY, deployment, settings } from './fixtures.ts';

/**
 * Arbitraries over every ResourceSpec field. Values are mostly valid, with a small weight of
 * invalid ones (bad names, reserved labels, hostPath, privilege, limits below requests...), so
 * that runs cover both rendering and every refusal. Free-form members get plausible contents: the
 * renderer passes them through and the API server checks their insides.
 */

const rare = <A, B>(valid: fc.Arbitrary<A>, invalid: fc.Arbitrary<B>): fc.Arbitrary<A | B> =>
  fc.oneof({ arbitrary: valid, weight: 40 }, { arbitrary: invalid, weight: 1 });

const cores = fc.oneof(
  fc.constantFrom(0.0001, 0.001, 0.1, 0.25, 0.5, 1, 1.5, 2.25, 4),
  fc.double({ min: 0.0001, max: 64, noNaN: true }),
);
const mib = fc.oneof(
  fc.constantFrom(0.5, 64, 128, 512, 1024, 1536, 4096),
  fc.double({ min: 0.01, max: 65_536, noNaN: true }),
);
const scale = fc.integer({ min: 0, max: 12 });

const volumeNames = ['data', 'cache', 'cfg', 'tls'] as const;
const volumeName = rare(fc.constantFrom(...volumeNames), fc.constantFrom('Bad_Name', 'x'.repeat(70)));
const mountPath = fc.constantFrom('/data', '/cache', '/etc/cfg', '/tls');

const volumeSource = fc.constantFrom<Record<string, unknown>>(
  { configMap: { name: 'cm' } },
  { secret: { secretName: 'tls' } },
  { emptyDir: {} },
  { emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
  { persistentVolumeClaim: { claimName: 'pvc' } },
  { nfs: { server: 'nfs.example.com', path: '/exports' } },
  { projected: { sources: [{ configMap: { name: 'cm' } }] } },
  { downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
  { csi: { driver: 'csi.example.com' } },
  {},
);
const badVolumeSource = fc.constantFrom<Record<string, unknown>>(
  { hostPath: { path: '/var/run' } },
  { emptyDir: {}, configMap: { name: 'cm' } },
  { notAVolume: {} },
);
const volume = fc
  .tuple(volumeName, rare(volumeSource, badVolumeSource))
  .map(([name, source]) => ({ name, ...source }));

const subPath = rare(
  fc.oneof(
    fc.constant({}),
    fc.record({ subPath: fc.constantFrom('a', 'b/c') }),
    fc.record({ subPathExpr: fc.constant('$(POD_NAME)') }),
  ),
  fc.constant({ subPath: 'a', subPathExpr: '$(POD_NAME)' }),
);
const volumeMount = fc
  .tuple(
    fc.record(
      {
        name: rare(fc.constantFrom(...volumeNames), fc.constant('missing')),
        mountPath,
        mountPropagation: rare(
          fc.constantFrom('None', 'HostToContainer'),
          fc.constantFrom('Bidirectional', 'Sideways'),
        ),
        readOnly: fc.boolean(),
      },
      { requiredKeys: ['name', 'mountPath'] },
    ),
    subPath,
  )
  .map(([m, sub]) => ({ ...m, ...sub }));
const volumeMounts = rare(
  fc.uniqueArray(volumeMount, { maxLength: 2, selector: (m) => m.mountPath }),
  fc.array(volumeMount, { minLength: 2, maxLength: 2 }),
);

const quantity = rare(
  fc.oneof(fc.constantFrom('100m', '1', '0.5', '64Mi', '1Gi', '2'), fc.constantFrom(1, 0.25)),
  fc.constant('lots'),
);
const securityContext = fc.record(
  {
    runAsNonRoot: fc.boolean(),
    readOnlyRootFilesystem: fc.boolean(),
    runAsUser: fc.integer({ min: 1, max: 65_535 }),
    capabilities: fc.record(
      {
        drop: fc.constant(['ALL']),
        add: rare(fc.constant(['NET_BIND_SERVICE']), fc.constant(['SYS_ADMIN'])),
      },
      { requiredKeys: [] },
    ),
    privileged: rare(fc.constant(false), fc.constant(true)),
    allowPrivilegeEscalation: rare(fc.constant(false), fc.constant(true)),
  },
  { requiredKeys: [] },
);
const envVar = fc.oneof(
  fc.record({
    name: rare(fc.constantFrom('A', 'LOG_LEVEL', 'x.y'), fc.constant('1 bad')),
    value: fc.string({ maxLength: 8 }),
  }),
  fc.record({ name: fc.constant('FROM'), valueFrom: fc.constant({ secretKeyRef: { name: 's', key: 'k' } }) }),
);
const container = fc.record(
  {
    name: rare(
      fc.constantFrom('side', 'helper', 'init', 'proxy', 'migrate'),
      fc.constantFrom('app', 'Bad Name'),
    ),
    image: fc.constantFrom('busybox:1.36', 'envoyproxy/envoy:v1.31.0'),
    imagePullPolicy: rare(fc.constantFrom('Always', 'IfNotPresent', 'Never'), fc.constant('Sometimes')),
    command: fc.array(fc.constantFrom('sh', '-c', 'sleep 1'), { maxLength: 3 }),
    args: fc.array(fc.string({ maxLength: 6 }), { maxLength: 2 }),
    workingDir: fc.constant('/srv'),
    env: fc.array(envVar, { maxLength: 2 }),
    envFrom: fc.constant([{ configMapRef: { name: 'cm' } }]),
    resources: fc.record(
      {
        limits: fc.record({ cpu: quantity, memory: quantity }, { requiredKeys: [] }),
        requests: fc.record({ cpu: quantity, memory: quantity }, { requiredKeys: [] }),
      },
      { requiredKeys: [] },
    ),
    volumeMounts,
    securityContext,
    restartPolicy: rare(fc.constant('Always'), fc.constant('Never')),
  },
  { requiredKeys: ['name'] },
);

const labelKey = rare(
  fc.constantFrom('team', 'tier', 'example.com/owner', 'app'),
  fc.constantFrom('mooring.dev/x', 'app.kubernetes.io/component', 'bad key!', 'app.kubernetes.io/instance'),
);
const labelValue = rare(fc.constantFrom('a', 'payments', 'v1.2', ''), fc.constant('not valid!'));
const annotationKey = rare(
  fc.constantFrom('example.com/note', 'prometheus.io/scrape'),
  fc.constantFrom('mooring.dev/y', '/bad'),
);

/** Every ResourceSpec field, each present or absent. */
const specFields = fc.record(
  {
    min_scale: scale,
    max_scale: scale,
    cpu: cores,
    cpu_limit: cores,
    memory_mb: mib,
    memory_limit_mb: mib,
    queue_min_scale: scale,
    queue_max_scale: scale,
    queue_cpu: cores,
    queue_cpu_limit: cores,
    queue_memory_mb: mib,
    queue_memory_limit_mb: mib,
    orchestrator_cpu: cores,
    orchestrator_cpu_limit: cores,
    orchestrator_memory_mb: mib,
    orchestrator_memory_limit_mb: mib,
    orchestrator_min_scale: scale,
    orchestrator_max_scale: scale,
    executor_cpu: cores,
    executor_cpu_limit: cores,
    executor_memory_mb: mib,
    executor_memory_limit_mb: mib,
    redis_cpu: cores,
    redis_cpu_limit: cores,
    redis_memory_mb: mib,
    redis_memory_limit_mb: mib,
    db_cpu: cores,
    db_cpu_limit: cores,
    db_memory_mb: mib,
    db_memory_limit_mb: mib,
    db_storage_gi: fc.double({ min: 0.5, max: 4096, noNaN: true }),
    db_max_connections: rare(fc.integer({ min: 1, max: 5000 }), fc.constant(300_000)),
    labels: fc.dictionary(labelKey, labelValue, { maxKeys: 3 }),
    annotations: fc.dictionary(annotationKey, fc.string({ maxLength: 10 }), { maxKeys: 3 }),
    service_account_name: rare(fc.constantFrom('app', 'runner.sa'), fc.constant('Not_Valid')),
    image_pull_secrets: fc.array(fc.record({ name: fc.constantFrom('regcred', 'ghcr') }), { maxLength: 2 }),
    volumes: rare(
      fc.uniqueArray(volume, { maxLength: 3, selector: (v) => v.name }),
      fc.array(volume, { minLength: 2, maxLength: 2 }),
    ),
    volume_mounts: volumeMounts,
    init_containers: fc.uniqueArray(container, { maxLength: 2, selector: (c) => c.name }),
    sidecars: fc.uniqueArray(container, { maxLength: 2, selector: (c) => c.name }),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<ResourceSpecRecord>;

/** A ResourceSpec with any subset of its fields; one in ten may mount a volume it lacks. */
export const resourceSpec: fc.Arbitrary<ResourceSpecRecord> = fc
  .tuple(specFields, fc.integer({ min: 0, max: 9 }))
  .map(([spec, dice]) => (dice === 0 ? spec : withOrderedPairs(withReferencedVolumes(spec))));

const PAIRS = ['', 'queue_', 'orchestrator_', 'executor_', 'redis_', 'db_'].flatMap((p) => [
  [`${p}cpu`, `${p}cpu_limit`],
  [`${p}memory_mb`, `${p}memory_limit_mb`],
  [`${p}min_scale`, `${p}max_scale`],
]);

/** Mostly, requests are at most their limits and min at most max: otherwise most specs are refused. */
function withOrderedPairs(spec: ResourceSpecRecord): ResourceSpecRecord {
  const out: Record<string, unknown> = { ...spec };
  for (const [low, high] of PAIRS as [string, string][]) {
    const a = out[low];
    const b = out[high];
    if (typeof a === 'number' && typeof b === 'number' && a > b) {
      out[low] = b;
      out[high] = a;
    }
  }
  const order = (c: NonNullable<ResourceSpecRecord['sidecars']>[number]) => {
    const r = c.resources;
    if (!r?.limits || !r.requests) return c;
    return { ...c, resources: { limits: r.limits, requests: { ...r.requests, ...r.limits } } };
  };
  if (out.sidecars) out.sidecars = (out.sidecars as typeof spec.sidecars)?.map(order);
  if (out.init_containers)
    out.init_containers = (out.init_containers as typeof spec.init_containers)?.map(order);
  return out as ResourceSpecRecord;
}

/** Mostly, every mounted volume exists (an emptyDir is added): otherwise most specs are refused. */
function withReferencedVolumes(spec: ResourceSpecRecord): ResourceSpecRecord {
  const mounts = [
    ...(spec.volume_mounts ?? []),
    ...[...(spec.sidecars ?? []), ...(spec.init_containers ?? [])].flatMap((c) => c.volumeMounts ?? []),
  ];
  const volumes = [...(spec.volumes ?? [])];
  for (const m of mounts) {
    if (!volumes.some((v) => v.name === m.name)) volumes.push({ name: m.name, emptyDir: {} });
  }
  return volumes.length > 0 ? { ...spec, volumes } : spec;
}

const secret = fc.record({
  name: rare(
    fc.constantFrom('API_KEY', 'DB_PASSWORD', 'webhook.secret', 'REDIS_URI_CUSTOM', 'POSTGRES_URI_CUSTOM'),
    fc.constantFrom('not valid', ''),
  ),
  value: fc.string({ maxLength: 6 }).map((s) => `${CANARY}${s}`),
});
const secretReference = fc.record({
  name: rare(fc.constantFrom('OPENAI_API_KEY', 'SENTRY_DSN', 'TOKEN'), fc.constantFrom('PORT', 'bad name')),
  secret_name: rare(fc.constantFrom('llm-keys', 'obs'), fc.constant('Bad_Secret')),
  secret_key: fc.constantFrom('openai', 'dsn', 'token.v1'),
});

/** A whole render input: deployment (name, status, secrets, spec) and settings (policy). */
export const renderInput: fc.Arbitrary<{ deployment: DeploymentRecord; settings: RenderSettings }> = fc
  .record({
    name: fc.oneof(
      fc.constantFrom('shop', 'My App', 'a'.repeat(60)),
      fc.string({ minLength: 1, maxLength: 30 }),
    ),
    status: fc.constantFrom('READY', 'UNUSED', 'AWAITING_DATABASE', 'SOMETHING_NEW'),
    spec: fc.option(resourceSpec, { nil: undefined }),
    secrets: rare(
      fc.uniqueArray(secret, { maxLength: 3, selector: (x) => x.name }),
      fc.array(secret, { minLength: 2, maxLength: 2 }),
    ),
    secret_references: fc.uniqueArray(secretReference, { maxLength: 2, selector: (x) => x.name }),
    allowHostPath: fc.boolean(),
    allowPrivileged: fc.boolean(),
    podSecurity: fc.constantFrom('baseline' as const, 'restricted' as const),
    allowedVolumeTypes: fc.subarray(['nfs', 'iscsi']),
    storageClassName: fc.option(fc.constant('fast'), { nil: undefined }),
  })
  .map((r) => ({
    deployment: deployment({
      name: r.name,
      status: r.status,
      spec: r.spec ?? null,
      secrets: r.secrets,
      secret_references: r.secret_references,
    }),
    settings: settings({
      policy: {
        ...settings().policy,
        // The arbitrary volumes' CSI driver: allowed, so those specs still render.
        allowedCsiDrivers: ['csi.example.com'],
        podSecurity: r.podSecurity,
        allowHostPath: r.allowHostPath,
        allowPrivileged: r.allowPrivileged,
        allowedVolumeTypes: r.allowedVolumeTypes,
      },
      storageClassName: r.storageClassName,
    }),
  }));
