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

/**
 * Every name `objectNames(base)` gives, in its order (the base name first). Names are compared
 * across kinds, not per kind: which kinds a deployment renders under which of its names changes
 * with its revision (Redis or Postgres turned on, a queue worker added) and is not known where
 * collisions are found (before any revision is fetched), and a name shared across kinds still
 * puts two deployments' objects behind one DNS name or one label value.
 */
export function derivedNames(base: string): string[] {
  return [...new Set(Object.values(objectNames(base)))];
}

/** A deployment refused because an older one in its namespace would use one of its object names. */
export interface NameCollision {
  code: 'MOORING_E_RENDER_NAME_COLLISION';
  namespace: string;
  /** An object name both would use (the first, in `objectNames` order, of the refused one's). */
  name: string;
  /** The older deployment, which keeps running, then the refused one. */
  deploymentIds: [string, string];
  reason: string;
}

/** What collision checks read of a deployment record (names here, URLs in url-claims.ts). */
export type Candidate = Pick<DeploymentRecord, 'id' | 'name' | 'created_at' | 'source_config'>;

/** `deployments` oldest first (created_at, then id), each record once: who keeps a contested name or URL. */
export function oldestFirst<T extends Candidate>(deployments: ReadonlyArray<T>): T[] {
  const seen = new Set<string>();
  return [...deployments]
    .sort((a, b) => cmp(a.created_at, b.created_at) || cmp(a.id, b.id))
    .filter((d) => !seen.has(d.id) && seen.add(d.id));
}

/**
 * Finds deployments that would render an object of the same name as an older deployment in the
 * same namespace: any of their derived names (`derivedNames`), not only their base names, since a
 * deployment named `shop-redis` renders `shop-redis`, the name of `shop`'s Redis. A deployment is
 * refused when ANY older one (created_at, then id) shares a name with it, whether that one runs or
 * is refused itself: a newer deployment then never changes what an older one is told, and one going
 * away can only lift refusals, never refuse a deployment that ran. Deployments without a target
 * namespace are skipped (rendering refuses them anyway); a record listed twice counts once.
 */
export function detectCollisions(deployments: ReadonlyArray<Candidate>): NameCollision[] {
  /** `namespace/name` -> the oldest deployment that would use it. */
  const claimed = new Map<string, Candidate>();
  const collisions: NameCollision[] = [];
  for (const d of oldestFirst(deployments)) {
    const namespace = d.source_config?.listener_config?.k8s_namespace;
    if (!namespace) continue;
    let found: { name: string; older: Candidate } | undefined;
    for (const name of derivedNames(baseNameOf(d.name))) {
      const key = `${namespace}/${name}`;
      const older = claimed.get(key);
      if (older === undefined) claimed.set(key, d);
      else found ??= { name, older };
    }
    if (!found) continue;
    const { name, older } = found;
    collisions.push({
      code: 'MOORING_E_RENDER_NAME_COLLISION',
      namespace,
      name,
      deploymentIds: [older.id, d.id],
      reason:
        `deployments ${older.id} (${JSON.stringify(older.name)}) and ${d.id} (${JSON.stringify(d.name)}) ` +
        `would both use the object name "${name}" in namespace "${namespace}": ` +
        `${older.id} is older, so ${d.id} is refused`,
    });
  }
  return collisions;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
