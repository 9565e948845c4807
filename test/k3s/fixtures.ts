/**
 * What the real-cluster suite installs: the reference control plane and the chart values of the
 * chart job in ci.yml (.github/ci/), and the deployments it converges, shaped like the integration
 * suite's (test/integration/harness.ts) with every ResourceSpec group set.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { repoRoot } from '../../scripts/render-deploy.ts';

/** The chart values of the CI chart job: control plane Service, listener, namespace, image. */
export const kindValues = parse(
  readFileSync(path.join(repoRoot, '.github', 'ci', 'kind-values.yaml'), 'utf8'),
) as {
  controlPlane: { url: string };
  listenerId: string;
  namespaces: string[];
  existingSecret: string;
  image: { tag: string; pullPolicy: string };
};

export const RELEASE_NAMESPACE = 'mooring';
export const APPS = kindValues.namespaces[0]!;
export const LISTENER_ID = kindValues.listenerId;
/** The image tag the CI jobs build; the chart's default registry and repository. */
export const IMAGE = `ghcr.io/mooring-dev/mooring:${kindValues.image.tag}`;
/** A small image whose every component listens on the rendered PORT (8000), so pods stay healthy. */
export const APP_IMAGE = 'docker.io/library/python:3.13-alpine';
const SERVE = ['python3', '-m', 'http.server', '8000'];

/** Values over kindValues: a short poll interval, and app commands that answer the TCP probes. */
export const suiteValues = {
  pollIntervalSeconds: 3,
  logLevel: 'debug',
  rendering: { commands: { 'api-server': SERVE, queue: SERVE, orchestrator: SERVE, executor: SERVE } },
};

/**
 * .github/ci/control-plane.yaml as a kubectl input, its seed reduced to the listener (the
 * suite creates its deployments through the API) and its API key.
 */
export function controlPlaneManifest(): { yaml: string; apiKey: string } {
  const docs = parseAllDocuments(
    readFileSync(path.join(repoRoot, '.github', 'ci', 'control-plane.yaml'), 'utf8'),
  ).map(
    (d) => d.toJS() as { kind: string; data?: Record<string, string>; stringData?: Record<string, string> },
  );
  let apiKey = '';
  for (const doc of docs) {
    if (doc.kind === 'Secret') apiKey = doc.stringData!['api-key']!;
    if (doc.kind === 'ConfigMap') {
      const seed = parse(doc.data!['seed.yaml']!) as { listeners: unknown[] };
      doc.data!['seed.yaml'] = stringify({ listeners: seed.listeners });
    }
  }
  return { yaml: docs.map((d) => stringify(d)).join('---\n'), apiKey };
}

/** A deployment for the suite's listener in APPS, with a bundled Postgres and Redis (the default). */
export function deploymentBody(name: string, resourceSpec: Record<string, unknown>, secret: string) {
  return {
    name,
    source: 'external_docker' as const,
    source_config: {
      listener_id: LISTENER_ID,
      listener_config: { k8s_namespace: APPS },
      resource_spec: resourceSpec,
    },
    source_revision_config: { image_uri: APP_IMAGE },
    secrets: [{ name: 'APP_SECRET', value: secret }],
  };
}

/**
 * Every ResourceSpec group, with quantities a real API server canonicalizes (0.1 cpu is 100m,
 * 1.5 cpu is 1500m) and min < max, so an HPA is rendered: a perpetual diff shows here.
 */
export const EVERY_GROUP = {
  min_scale: 1,
  max_scale: 3,
  cpu: 0.1,
  cpu_limit: 1.5,
  memory_mb: 96,
  memory_limit_mb: 192,
  queue_min_scale: 1,
  queue_max_scale: 2,
  queue_cpu: 0.05,
  queue_cpu_limit: 0.25,
  queue_memory_mb: 64,
  queue_memory_limit_mb: 128,
  orchestrator_cpu: 0.05,
  orchestrator_cpu_limit: 0.2,
  orchestrator_memory_mb: 64,
  orchestrator_memory_limit_mb: 128,
  orchestrator_min_scale: 1,
  orchestrator_max_scale: 1,
  executor_cpu: 0.05,
  executor_cpu_limit: 0.2,
  executor_memory_mb: 64,
  executor_memory_limit_mb: 128,
  redis_cpu: 0.05,
  redis_cpu_limit: 0.25,
  redis_memory_mb: 64,
  redis_memory_limit_mb: 128,
  db_cpu: 0.1,
  db_cpu_limit: 0.5,
  db_memory_mb: 128,
  db_memory_limit_mb: 256,
  db_storage_gi: 1,
  db_max_connections: 50,
  labels: { team: 'k3s-suite' },
};

/** One replica, no HPA: the target of the drift cases. */
export const PLAIN = { min_scale: 1, max_scale: 1, cpu: 0.1, memory_mb: 64 };
