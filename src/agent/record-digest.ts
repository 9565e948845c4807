/**
 * What tells the agent that a deployment changed: a digest of its record (`updated_at` aside) and
 * of the revision it runs, each record digested once (a parsed record is never changed, so an
 * idle poll digests nothing). Also the depth limit that keeps hostile records from overflowing
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

/** Records (deployments, revisions) found within MAX_RECORD_DEPTH; a parsed record never changes. */
const withinDepth = new WeakSet<object>();

/** Digests by record object, made once: a parsed record is never changed. */
const digests = new WeakMap<object, string>();

function digestOf(record: object, text: () => string): string {
  let digest = digests.get(record);
  if (digest === undefined) {
    digest = hash('sha256', text(), 'hex');
    digests.set(record, digest);
  }
  return digest;
}

/** The digest of what a deployment record says; `updated_at` alone is not a change. */
function recordDigest(deployment: DeploymentRecord): string {
  return digestOf(deployment, () => {
    const { updated_at: _ignored, ...rest } = deployment;
    return canonicalJson(rest);
  });
}

/**
 * The hash of what a deployment should look like: its record (`updated_at` aside) and the
 * revision it runs. Each record's digest is made once, so a poll digests only what is new.
 */
export function desiredStateHash(deployment: DeploymentRecord, revision: RevisionRecord | undefined): string {
  return desiredStateHashOf(deployment, revision ? revisionDigest(revision) : '');
}

/** The digest of a revision record, as `desiredStateHash` takes it (a restart memo keeps it). */
export function revisionDigest(revision: RevisionRecord): string {
  return digestOf(revision, () => canonicalJson(revision));
}

/** `desiredStateHash` from the revision's digest alone (`revisionDigest`; '' for none). */
export function desiredStateHashOf(deployment: DeploymentRecord, digest: string): string {
  return hash('sha256', `${recordDigest(deployment)}\u0000${digest}`, 'hex');
}

/** `nestedDeeperThan(record, MAX_RECORD_DEPTH)`, walked once per record object. */
export function tooDeep(record: object): boolean {
  if (withinDepth.has(record)) return false;
  if (nestedDeeperThan(record, MAX_RECORD_DEPTH)) return true;
  withinDepth.add(record);
  return false;
}
