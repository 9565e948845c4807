/**
 * Small but real deployments for the chaos runs, generated from a seed: every one has an image, a
 * ResourceSpec with requests and limits, secrets and a scale; some bring their own Redis or
 * Postgres, some autoscale (HPA) or keep two replicas (PDB), some run workers. And the changes the
 * chaos run makes to them while things break: a new image (new revision), new secret values (new
 * revision), a new scale (no revision).
 */
import type {
  DeploymentCreate,
  DeploymentPatch,
  DeploymentRecord,
  ResourceSpec,
} from '../../../src/contract/index.ts';

export interface GenerateOptions {
  count: number;
  namespaces: readonly string[];
  listenerId: string;
  random: () => number;
  /** Prefix of the names (unique per run). */
  prefix: string;
}

function spec(random: () => number, i: number): ResourceSpec {
  const minScale = random() < 0.3 ? 2 : 1;
  const maxScale = random() < 0.4 ? minScale + 2 : minScale;
  const s: ResourceSpec = {
    min_scale: minScale,
    max_scale: maxScale,
    cpu: [0.25, 0.5, 1][i % 3] as number,
    cpu_limit: 1,
    memory_mb: 256,
    memory_limit_mb: 512,
    labels: { team: `team-${i % 4}` },
  };
  if (random() < 0.3) {
    s.queue_min_scale = 1;
    s.queue_max_scale = 1;
    s.queue_cpu = 0.25;
    s.queue_memory_mb = 256;
  }
  return s;
}

/** The deployments to create, in order; deployment i goes to namespace i mod n. */
export function generateDeployments(o: GenerateOptions): DeploymentCreate[] {
  const out: DeploymentCreate[] = [];
  for (let i = 0; i < o.count; i++) {
    const secrets = [
      { name: 'API_TOKEN', value: `tok-${i}-${Math.floor(o.random() * 1e9).toString(36)}` },
      { name: 'FEATURE_FLAGS', value: 'tracing' },
    ];
    // Bringing one's own datastores keeps the object count (and the run) small for a share.
    if (o.random() < 0.5)
      secrets.push({ name: 'REDIS_URI_CUSTOM', value: `redis://cache-${i}.internal:6379/0` });
    if (o.random() < 0.6) {
      secrets.push({ name: 'POSTGRES_URI_CUSTOM', value: `postgres://app:pw${i}@db-${i}.internal:5432/app` });
    }
    out.push({
      name: `${o.prefix}-${String(i).padStart(4, '0')}`,
      source: 'external_docker',
      source_config: {
        deployment_type: 'prod',
        listener_id: o.listenerId,
        listener_config: { k8s_namespace: o.namespaces[i % o.namespaces.length] as string },
        resource_spec: spec(o.random, i),
      },
      source_revision_config: { image_uri: `registry.example.com/rel/app-${i}:1.0.0` },
      secrets,
    });
  }
  return out;
}

export type ChangeKind = 'image' | 'secrets' | 'scale' | 'labels';

/** The PATCH body of one change to `d` (the n-th change made to it). */
export function changeOf(d: DeploymentRecord, kind: ChangeKind, n: number): DeploymentPatch {
  if (kind === 'image') {
    const image = d.source_revision_config.image_uri ?? 'registry.example.com/rel/app:1.0.0';
    return { source_revision_config: { image_uri: `${image.replace(/:[^:/]+$/, '')}:2.${n}.0` } };
  }
  if (kind === 'secrets') {
    // New values only: the names stay, so the Secret's keys stay the same set.
    return {
      secrets: (d.secrets ?? []).map((s) =>
        s.name === 'API_TOKEN'
          ? { name: s.name, value: `${s.value}-rotated-${n}` }
          : { name: s.name, value: s.value ?? '' },
      ),
    };
  }
  const current = d.source_config.resource_spec ?? {};
  if (kind === 'labels') {
    // A label goes on every object and pod template: the change that rewrites them all.
    return {
      source_config: {
        ...d.source_config,
        resource_spec: { ...current, labels: { ...current.labels, 'example.com/wave': `w${n}` } },
      } as DeploymentPatch['source_config'],
    };
  }
  const min = current.min_scale === 2 ? 1 : 2;
  return {
    source_config: {
      ...d.source_config,
      resource_spec: { ...current, min_scale: min, max_scale: min + (n % 2) * 2 },
    } as DeploymentPatch['source_config'],
  };
}
