/** The ownership labels and annotations mooring puts on (and reads from) every object it manages. */

export const FIELD_MANAGER = 'mooring';

export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_VALUE = 'mooring';
export const LABEL_LISTENER_ID = 'mooring.dev/listener-id';
export const LABEL_DEPLOYMENT_ID = 'mooring.dev/deployment-id';
export const LABEL_COMPONENT = 'app.kubernetes.io/component';

export const ANNOTATION_REVISION_ID = 'mooring.dev/revision-id';
/** sha256 of the desired object as last applied: the no-op check's first half. */
export const ANNOTATION_DESIRED_HASH = 'mooring.dev/desired-hash';
/** `"true"`: created once, never updated or overwritten (the Postgres credentials Secret). */
export const ANNOTATION_CREATE_ONLY = 'mooring.dev/create-only';
/** Comma list of Secret keys filled with CSPRNG values when a create-only Secret is created. */
export const ANNOTATION_GENERATE_KEYS = 'mooring.dev/generate-keys';

/** The label selector for what one listener (and optionally one deployment) owns. */
export function ownedSelector(listenerId: string, deploymentId?: string): string {
  const parts = [`${LABEL_MANAGED_BY}=${MANAGED_BY_VALUE}`, `${LABEL_LISTENER_ID}=${listenerId}`];
  if (deploymentId !== undefined) parts.push(`${LABEL_DEPLOYMENT_ID}=${deploymentId}`);
  return parts.join(',');
}
