/**
 * Which revision runs (docs/operator-guide.md, "How the agent works"): the latest, unless its
 * status says it must not (a failure, SKIPPED or INTERRUPTED); then the active one. An unknown
 * status is not a refusal: it runs.
 */
import { NON_RUNNABLE_REVISION_STATUSES } from '../contract/index.ts';

export interface RevisionChoice {
  /** The revision id to run, or undefined when there is none to run. */
  revisionId: string | undefined;
  /** Why, for logs and status. */
  reason: string;
}

export interface RevisionPointers {
  latest_revision_id: string | null;
  active_revision_id: string | null;
}

/**
 * Chooses from the deployment's pointers and the latest revision's status (when it was fetched).
 * Fetch the latest revision first; fetch the active one only when this returns its id instead.
 */
export function chooseRevision(
  deployment: RevisionPointers,
  latest?: { id: string; status?: string | null },
): RevisionChoice {
  const latestId = deployment.latest_revision_id;
  const activeId = deployment.active_revision_id;
  if (!latestId) {
    return activeId
      ? { revisionId: activeId, reason: 'no latest revision; running the active one' }
      : { revisionId: undefined, reason: 'no revision' };
  }
  const status = latest && latest.id === latestId ? latest.status : undefined;
  if (status && NON_RUNNABLE_REVISION_STATUSES.has(status)) {
    if (activeId && activeId !== latestId) {
      return {
        revisionId: activeId,
        reason: `latest revision ${latestId} is ${status}; running the active revision`,
      };
    }
    return {
      revisionId: undefined,
      reason: `latest revision ${latestId} is ${status} and there is no other active revision`,
    };
  }
  return { revisionId: latestId, reason: 'latest revision' };
}
