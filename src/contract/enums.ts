/** Enumerated values of the interface document (sections 2.5, 2.6, 3.1, 3.2). */

export const SOURCES = [
  'vcshost',
  'external_docker',
  'internal_docker',
  'internal_source',
  'internal_template',
] as const;
export type Source = (typeof SOURCES)[number];

/** Sources a PATCH may name as `revision_source` (4.7). */
export const REVISION_SOURCES = ['vcshost', 'internal_docker', 'internal_source'] as const;
export type RevisionSource = (typeof REVISION_SOURCES)[number];

export const DEPLOYMENT_TYPES = ['dev_free', 'dev', 'prod'] as const;
export type DeploymentType = (typeof DEPLOYMENT_TYPES)[number];

export const DEPLOYMENT_STATUSES = [
  'AWAITING_DATABASE',
  'READY',
  'UNUSED',
  'AWAITING_DELETE',
  'UNKNOWN',
] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

export const REVISION_STATUSES = [
  'CREATING',
  'QUEUED',
  'AWAITING_BUILD',
  'BUILDING',
  'AWAITING_DEPLOY',
  'DEPLOYING',
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'DEPLOYED',
  'SKIPPED',
  'INTERRUPTED',
  'UNKNOWN',
] as const;
export type RevisionStatus = (typeof REVISION_STATUSES)[number];

/** Revision statuses that mean "do not run this one; keep the active revision" (docs/operator-guide.md). */
export const NON_RUNNABLE_REVISION_STATUSES: ReadonlySet<string> = new Set([
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'SKIPPED',
  'INTERRUPTED',
]);

/**
 * Revision statuses that do not change any more: deployed, or one of the non-runnable ones. A
 * revision in any other status (building, deploying, unknown) may still turn into a failure, so
 * the agent reads it again at every poll.
 */
export const FINAL_REVISION_STATUSES: ReadonlySet<string> = new Set([
  'DEPLOYED',
  ...NON_RUNNABLE_REVISION_STATUSES,
]);

export const COMPUTE_TYPES = ['k8s'] as const;
export type ComputeType = (typeof COMPUTE_TYPES)[number];
