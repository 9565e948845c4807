/**
 * What tells the agent that a deployment changed: a digest of its record (`updated_at` aside) and
 * of the revision it runs, each record digested once by its owner (`RecordDigests`: a parsed
 * record is never changed, so an idle poll digests nothing). Also the depth limit that keeps hostile records from overflowing
 * the recursive walks that digesting and rendering do.
 */
import { hash } from 'node:crypto';
import { nestedDeeperThan } from '../contract/depth.ts';
import type { DeploymentRecord, RevisionRecord } from '../contract/index.ts';
import { canonicalJson } from '../objects/canonical-json.ts';

/**
 * Records nested deeper than this are refused alone. A real deployment is about 10 levels deep,
 * but the tolerant parse keeps unknown members, and the recursive walks downstream (canonical JSON
 * for hashes) overflow Node's default stack at a few thousand levels: the limit sits below that.
 */
export const MAX_RECORD_DEPTH = 2048;

/** The digest of what a deployment record says; `updated_at` alone is not a change. */
function recordText(deployment: DeploymentRecord): string {
  const { updated_at: _ignored, ...rest } = deployment;
  return canonicalJson(rest);
}

/**
 * The hash of what a deployment should look like: its record (`updated_at` aside) and the
 * revision it runs. Made anew at each call (a `RecordDigests` keeps them per record).
 */
export function desiredStateHash(deployment: DeploymentRecord, revision: RevisionRecord | undefined): string {
  return new RecordDigests().desiredStateHash(deployment, revision);
}

/** The digest of a revision record, as `desiredStateHash` takes it (a restart memo keeps it). */
export function revisionDigest(revision: RevisionRecord): string {
  return hash('sha256', canonicalJson(revision), 'hex');
}

/**
 * The digests and depth checks of parsed records, each made once per record object. A parsed
 * record is never changed, so an entry holds as long as its record, and goes with it (keyed
 * weakly by the object): a record listed anew is a new object, digested anew. The resolver keeps
 * one for its life, so an idle poll digests nothing.
 */
export class RecordDigests {
  /** Records (deployments, revisions) found within MAX_RECORD_DEPTH. */
  readonly #withinDepth = new WeakSet<object>();
  /** Digests by record object. */
  readonly #digests = new WeakMap<object, string>();

  #digestOf(record: object, text: () => string): string {
    let digest = this.#digests.get(record);
    if (digest === undefined) {
      digest = hash('sha256', text(), 'hex');
      this.#digests.set(record, digest);
    }
    return digest;
  }

  /** `desiredStateHash`, from the digests kept. */
  desiredStateHash(deployment: DeploymentRecord, revision: RevisionRecord | undefined): string {
    return this.desiredStateHashOf(deployment, revision ? this.revisionDigest(revision) : '');
  }

  /** `revisionDigest`, kept. */
  revisionDigest(revision: RevisionRecord): string {
    return this.#digestOf(revision, () => canonicalJson(revision));
  }

  /** `desiredStateHash` from the revision's digest alone (`revisionDigest`; '' for none). */
  desiredStateHashOf(deployment: DeploymentRecord, digest: string): string {
    const record = this.#digestOf(deployment, () => recordText(deployment));
    return hash('sha256', `${record}\u0000${digest}`, 'hex');
  }

  /** `nestedDeeperThan(record, MAX_RECORD_DEPTH)`, walked once per record object. */
  tooDeep(record: object): boolean {
    if (this.#withinDepth.has(record)) return false;
    if (nestedDeeperThan(record, MAX_RECORD_DEPTH)) return true;
    this.#withinDepth.add(record);
    return false;
  }
}
