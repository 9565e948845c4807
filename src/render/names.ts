import { createHash } from 'node:crypto';
import type { DeploymentRecord } from '../contract/index.ts';

/**
 * Object names. The base name `b` is the deployment's name as a DNS-1035 label (Service names
 * must start with a letter), at most `MAX_BASE_NAME_LENGTH` characters so that every derived name
 * fits: `b-orchestrator` (a pod label value, 63) and `b-postgres` (a StatefulSet name, whose
 * `controller-revision-hash` label adds 11 characters). When the name had to be altered, a stable
 * 6-hex suffix of its sha256 keeps two altered names apart.
 */

export const MAX_BASE_NAME_LENGTH = 40;
const HASH_LENGTH = 6;
const DNS_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** The base name of a deployment named `name`; pure and stable across versions of mooring. */
export function baseNameOf(name: string): string {
  if (name.length <= MAX_BASE_NAME_LENGTH && DNS_1035.test(name)) return name;
  let s = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
  if (!/^[a-z]/.test(s)) s = s ? `d-${s}` : 'd';
  const hash = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, HASH_LENGTH);
  const head = s.slice(0, MAX_BASE_NAME_LENGTH - HASH_LENGTH - 1).replace(/-+$/, '');
  return `${head}-${hash}`;
}

/** The names of every object one deployment can become. */
export function objectNames(base: string) {
  return {
    apiServer: base,
    queue: `${base}-queue`,
    orchestrator: `${base}-orchestrator`,
    executor: `${base}-executor`,
    redis: `${base}-redis`,
    postgres: `${base}-postgres`,
    postgresCredentials: `${base}-postgres-credentials`,
    env: `${base}-env`,
    networkPolicy: `${base}-datastores`,
  } as const;
}
export type ObjectNames = ReturnType<typeof objectNames>;

/** Two or more deployments whose objects would share names in one namespace. */
export interface NameCollision {
  code: 'MOORING_E_RENDER_NAME_COLLISION';
  namespace: string;
  baseName: string;
  /** Oldest first (created_at, then id): keeping the first and refusing the rest is stable. */
  deploymentIds: string[];
  reason: string;
}

/**
 * Finds deployments that would render objects with the same names in the same namespace.
 * Deployments without a target namespace are skipped (rendering refuses them anyway).
 */
export function detectCollisions(
  deployments: ReadonlyArray<Pick<DeploymentRecord, 'id' | 'name' | 'created_at' | 'source_config'>>,
): NameCollision[] {
  const groups = new Map<string, typeof deployments extends ReadonlyArray<infer T> ? T[] : never>();
  for (const d of deployments) {
    const ns = d.source_config?.listener_config?.k8s_namespace;
    if (!ns) continue;
    const key = `${ns}/${baseNameOf(d.name)}`;
    const group = groups.get(key) ?? [];
    group.push(d);
    groups.set(key, group);
  }
  const collisions: NameCollision[] = [];
  for (const [key, group] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const ids = [...new Set(group.map((d) => d.id))];
    if (ids.length < 2) continue;
    const sorted = [...group]
      .sort((a, b) => cmp(a.created_at, b.created_at) || cmp(a.id, b.id))
      .map((d) => d.id)
      .filter((id, i, all) => all.indexOf(id) === i);
    const [namespace = '', baseName = ''] = key.split('/');
    collisions.push({
      code: 'MOORING_E_RENDER_NAME_COLLISION',
      namespace,
      baseName,
      deploymentIds: sorted,
      reason: `deployments ${sorted.join(', ')} would all use the object name "${baseName}" in namespace "${namespace}"`,
    });
  }
  return collisions;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
