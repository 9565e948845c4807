/** How the resource manager uses the ownership labels (`../labels.ts`): its field manager and selector. */
import { LABELS, MANAGED_BY } from '../labels.ts';

export const FIELD_MANAGER = 'mooring';

/** The label selector for what one listener (and optionally one deployment) owns. */
export function ownedSelector(listenerId: string, deploymentId?: string): string {
  const parts = [`${LABELS.managedBy}=${MANAGED_BY}`, `${LABELS.listenerId}=${listenerId}`];
  if (deploymentId !== undefined) parts.push(`${LABELS.deploymentId}=${deploymentId}`);
  return parts.join(',');
}
