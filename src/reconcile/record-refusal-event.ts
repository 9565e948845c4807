/**
 * The Warning Event a refused control-plane record leaves in its namespace: an operator who reads
 * the namespace's Events learns why a deployment never appeared, without the agent's log.
 */
import type { DesiredDeployment } from '../agent/poll-cycle.ts';
import type { EventRecorder } from './events.ts';
import { eventTarget, namespaceOf } from './steps.ts';

/** Records `Refused` for a deployment whose record the agent cannot use, in one of its namespaces. */
export function recordRefusalEvent(
  events: EventRecorder,
  namespaces: readonly string[],
  d: DesiredDeployment,
): void {
  const namespace = namespaceOf(d.deployment);
  if (!d.refused?.code.startsWith('MOORING_E_RECORD_') || !namespace) return;
  if (!namespaces.includes(namespace)) return;
  events.record({
    target: eventTarget(namespace, undefined, new Map()),
    reason: 'Refused',
    type: 'Warning',
    message: `deployment ${d.deployment.id}: ${d.refused.code}: ${d.refused.message}`,
  });
}
