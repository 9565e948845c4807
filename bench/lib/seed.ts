/**
 * Benchmark deployments: N realistic `external_docker` deployments spread over the agent's
 * namespaces, generated deterministically from a seed (the same seed gives the same bodies, so
 * runs compare). Most carry every component, volumes, sidecars, init containers, secrets and
 * secret references; a share brings its own Redis or Postgres, or runs without some workers, as
 * real tenants do.
 */
import type { DeploymentCreate, ResourceSpec } from '../../src/contract/index.ts';
import { seededRandom } from '../../test/support/prng.ts';

export interface SeedOptions {
  /** How many deployments. */
  count: number;
  /** The agent's namespaces; deployment i goes to `namespaces[i % length]`. */
  namespaces: readonly string[];
  /** The listener the deployments are assigned to. */
  listenerId: string;
  /** PRNG seed; default 1. */
  seed?: number;
}

const TEAMS = ['payments', 'search', 'catalog', 'growth', 'ledger', 'support', 'infra', 'ml'];
const APPS = ['api', 'graph', 'assistant', 'router', 'indexer', 'agent', 'planner', 'digest'];

/** `registry.example.com/<team>/<app>:<tag>`: an image reference with a tag the renderer accepts. */
export function benchImage(team: string, app: string, tag: string): string {
  return `registry.example.com/${team}/${app}:${tag}`;
}

/** The deployments to create, in creation order. */
export function generateDeployments(options: SeedOptions): DeploymentCreate[] {
  const random = seededRandom(options.seed ?? 1);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const chance = (p: number) => random() < p;
  const out: DeploymentCreate[] = [];
  for (let i = 0; i < options.count; i++) {
    const team = pick(TEAMS);
    const app = pick(APPS);
    const namespace = options.namespaces[i % options.namespaces.length] as string;
    const name = `${team}-${app}-${String(i).padStart(5, '0')}`;
    const ownRedis = chance(0.15);
    const ownPostgres = chance(0.2);
    const secrets = [
      { name: 'OPENAI_API_KEY', value: `sk-bench-${i}-${Math.floor(random() * 1e9).toString(36)}` },
      { name: 'SENTRY_DSN', value: `https://key${i}@sentry.example.com/${100 + i}` },
      { name: 'FEATURE_FLAGS', value: chance(0.5) ? 'beta,tracing' : 'tracing' },
    ];
    if (ownRedis)
      secrets.push({ name: 'REDIS_URI_CUSTOM', value: `redis://cache-${i}.${team}.internal:6379/0` });
    if (ownPostgres) {
      secrets.push({
        name: 'POSTGRES_URI_CUSTOM',
        value: `postgres://app:pw${i}@db-${i}.${team}.internal:5432/app`,
      });
    }
    out.push({
      name,
      source: 'external_docker',
      source_config: {
        deployment_type: chance(0.7) ? 'prod' : 'dev',
        listener_id: options.listenerId,
        listener_config: { k8s_namespace: namespace },
        resource_spec: resourceSpec(team, app, random, chance),
      },
      source_revision_config: { image_uri: benchImage(team, app, `1.${i % 50}.0`) },
      secrets,
      secret_references: [
        { name: 'DATABASE_READONLY_URL', secret_name: `${team}-shared`, secret_key: 'readonly-url' },
        ...(chance(0.5)
          ? [{ name: 'SMTP_PASSWORD', secret_name: 'mail-relay', secret_key: 'password' }]
          : []),
      ],
    });
  }
  return out;
}

function resourceSpec(
  team: string,
  app: string,
  random: () => number,
  chance: (p: number) => boolean,
): ResourceSpec {
  const minScale = chance(0.6) ? 2 : 1;
  const maxScale = chance(0.7) ? minScale + 1 + Math.floor(random() * 8) : minScale;
  const cpu = [0.25, 0.5, 1, 2][Math.floor(random() * 4)] as number;
  const memory = [256, 512, 1024, 2048][Math.floor(random() * 4)] as number;
  const spec: ResourceSpec = {
    min_scale: minScale,
    max_scale: maxScale,
    cpu,
    cpu_limit: cpu * 2,
    memory_mb: memory,
    memory_limit_mb: memory * 2,
    redis_cpu: 0.25,
    redis_cpu_limit: 0.5,
    redis_memory_mb: 256,
    redis_memory_limit_mb: 512,
    db_cpu: 0.5,
    db_cpu_limit: 1,
    db_memory_mb: 1024,
    db_memory_limit_mb: 2048,
    db_storage_gi: [10, 20, 50][Math.floor(random() * 3)] as number,
    db_max_connections: 200,
    labels: { team, app, tier: chance(0.5) ? 'backend' : 'platform' },
    annotations: { 'example.com/owner': `${team}@example.com`, 'prometheus.io/scrape': 'true' },
    service_account_name: `${team}-runtime`,
    image_pull_secrets: [{ name: 'registry-credentials' }],
    volumes: [
      { name: 'config', configMap: { name: `${team}-${app}-config` } },
      { name: 'tls', secret: { secretName: `${team}-tls` } },
      { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } },
    ],
    volume_mounts: [
      { name: 'config', mountPath: '/etc/app', readOnly: true },
      { name: 'tls', mountPath: '/etc/tls', readOnly: true },
      { name: 'scratch', mountPath: '/tmp/scratch' },
    ],
    init_containers: [
      {
        name: 'migrate',
        image: benchImage(team, `${app}-migrations`, '1.0.0'),
        command: ['/bin/migrate'],
        args: ['--to', 'latest'],
        env: [{ name: 'MIGRATE_TIMEOUT', value: '120' }],
        resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
      },
    ],
    sidecars: [
      {
        name: 'log-shipper',
        image: 'registry.example.com/infra/log-shipper:3.2.1',
        args: ['--input', '/var/log/app', '--output', 'stdout'],
        resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { cpu: '200m', memory: '128Mi' } },
        volumeMounts: [{ name: 'scratch', mountPath: '/var/log/app' }],
      },
    ],
  };
  // Workers: most deployments run all three; some run without one (the renderer then omits it).
  if (chance(0.85)) {
    spec.queue_min_scale = 1;
    spec.queue_max_scale = chance(0.5) ? 4 : 1;
    spec.queue_cpu = 0.5;
    spec.queue_cpu_limit = 1;
    spec.queue_memory_mb = 512;
    spec.queue_memory_limit_mb = 1024;
  }
  if (chance(0.8)) {
    spec.orchestrator_cpu = 0.25;
    spec.orchestrator_cpu_limit = 0.5;
    spec.orchestrator_memory_mb = 256;
    spec.orchestrator_memory_limit_mb = 512;
    spec.orchestrator_min_scale = 1;
    spec.orchestrator_max_scale = 1;
  }
  if (chance(0.7)) {
    spec.executor_cpu = 1;
    spec.executor_cpu_limit = 2;
    spec.executor_memory_mb = 1024;
    spec.executor_memory_limit_mb = 2048;
  }
  return spec;
}
