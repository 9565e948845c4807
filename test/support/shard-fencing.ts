/**
 * The fencing check of a sharded run: every write of a deployment's object must come from the
 * replica holding that deployment's shard Lease at the moment the API server received it. Built
 * from the request log (who wrote what, when), the Leases' terms (who held what, when) and the
 * objects' own deployment-id labels (which deployment an object belongs to, read from the stored
 * object, or for an object never stored from the renders the run asked for; never guessed from its
 * name).
 */
import { LABELS } from '../../src/labels.ts';
import type { KubeApi } from '../../src/sandbox/server.ts';
import type { LeaseTerm, LeaseTerms } from './lease-terms.ts';
import { type ObjectWrite, objectKey } from './writers.ts';

/** The kinds a deployment is rendered into that an agent writes. */
export const DEPLOYMENT_KINDS = [
  { apiVersion: 'v1', kind: 'Secret' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'apps/v1', kind: 'StatefulSet' },
  { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy' },
] as const;

/**
 * Remembers, for every object of those kinds ever stored, the deployment id its labels named (an
 * object deleted later keeps its entry, so its earlier writes can still be checked).
 */
export class DeploymentOfObject {
  readonly #ids = new Map<string, string>();
  readonly #stops: (() => void)[];

  constructor(kube: KubeApi) {
    this.#stops = DEPLOYMENT_KINDS.map((k) =>
      kube.onChange(k.apiVersion, k.kind, ({ object }) => {
        const id = object.metadata.labels?.[LABELS.deploymentId];
        if (id) this.#ids.set(objectKey(k.kind, object.metadata.namespace, object.metadata.name ?? ''), id);
      }),
    );
  }

  get(key: string): string | undefined {
    return this.#ids.get(key);
  }

  stop(): void {
    for (const stop of this.#stops) stop();
  }
}

/**
 * Each object key with the deployment whose render produced it, from (key, deployment id) pairs; a
 * key two deployments render is left out, so its writes stay unattributed (and fail the check)
 * rather than being put down to whichever render came last: a name is no proof of whose.
 */
export function renderOwners(pairs: Iterable<readonly [string, string]>): Map<string, string> {
  const out = new Map<string, string>();
  const shared = new Set<string>();
  for (const [key, id] of pairs) {
    if (out.has(key) && out.get(key) !== id) shared.add(key);
    out.set(key, id);
  }
  for (const key of shared) out.delete(key);
  return out;
}

/**
 * An object's deployment from its stored labels, else from `rendered` (each object key any render
 * the run asked for produces, with its deployment's id): a write that failed before anything was
 * stored is put down to its deployment from what the agent was told to write, not from its name.
 * The objects only `rendered` named are kept in `neverStored`.
 */
export function storedOrRendered(
  stored: Pick<DeploymentOfObject, 'get'>,
  rendered: ReadonlyMap<string, string>,
): Pick<DeploymentOfObject, 'get'> & { neverStored: Set<string> } {
  const neverStored = new Set<string>();
  return {
    neverStored,
    get: (key) => {
      const id = stored.get(key);
      if (id !== undefined || !rendered.has(key)) return id;
      neverStored.add(key);
      return rendered.get(key);
    },
  };
}

/** A write its writer was not entitled to make. */
export interface FencingBreach {
  object: string;
  deploymentId: string;
  write: ObjectWrite;
  /** The shard Lease checked and who held it at that moment ('' when no one). */
  lease: string;
  holders: string[];
}

/** What the check found. */
export interface FencingReport {
  /** Writes by a replica not holding the object's shard at that moment. */
  breaches: FencingBreach[];
  /** Terms (`<lease> <holder> #<leaseTransitions>`) in which one object was written by two replicas. */
  sharedTerms: string[];
  /** Objects written by a replica whose deployment is unknown (no labelled copy stored, no render). */
  unattributed: string[];
  /** How many writes were checked. */
  checked: number;
}

const termName = (t: LeaseTerm) => `${t.lease} ${t.holder} #${t.leaseTransitions}`;

/**
 * Checks every write in `writes` against the Lease of its deployment's shard: `owners` names an
 * object's deployment, `shardLease(deploymentId)` that deployment's Lease. (The namespace patch,
 * shard 0's holder's alone, is checked with an `owners` answering one fixed name.)
 */
export function checkFencing(
  writes: ReadonlyMap<string, readonly ObjectWrite[]>,
  owners: Pick<DeploymentOfObject, 'get'>,
  terms: LeaseTerms,
  shardLease: (deploymentId: string) => string,
): FencingReport {
  const report: FencingReport = { breaches: [], sharedTerms: [], unattributed: [], checked: 0 };
  const writersByTerm = new Map<string, Set<string>>();
  for (const [object, list] of writes) {
    const deploymentId = owners.get(object);
    if (deploymentId === undefined) {
      report.unattributed.push(object);
      continue;
    }
    const lease = shardLease(deploymentId);
    for (const write of list) {
      report.checked += 1;
      // Held when the request arrived and still when the API server was done with it: a write
      // delayed past its writer's term (and applied in the next holder's) is a breach too.
      let breach: FencingBreach | undefined;
      for (const instant of new Set([write.at, write.done])) {
        const current = terms.termsAt(lease, instant);
        // At a term's first millisecond two terms match: the write belongs to its writer's, if either.
        const term = current.find((t) => t.holder === write.writer) ?? current[current.length - 1];
        if (term) {
          const key = `${object} in ${termName(term)}`;
          const writers = writersByTerm.get(key) ?? new Set<string>();
          writers.add(write.writer);
          writersByTerm.set(key, writers);
        }
        if (term?.holder !== write.writer && breach === undefined) {
          const holders = current.map((t) => t.holder);
          breach = { object, deploymentId, write, lease, holders: holders.length ? holders : [''] };
        }
      }
      if (breach) report.breaches.push(breach);
    }
  }
  for (const [key, writers] of writersByTerm) if (writers.size > 1) report.sharedTerms.push(key);
  return report;
}
