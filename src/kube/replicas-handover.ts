/**
 * Turning autoscaling on without resetting the workload. When we stop applying `.spec.replicas`
 * (an HPA now owns the count), server-side apply would remove the field we owned and the API
 * server would default it to one replica. The Kubernetes SSA documentation ("Transferring
 * ownership") hands the field over instead: first apply only `replicas`, at its live value, with a
 * separate field manager; then apply without it. That manager keeps the field until the autoscaler
 * writes it.
 */
import type { ApplyContext } from './apply-context.ts';
import { httpStatusOf, kubeError } from './errors.ts';
import { ownsField } from './field-owners.ts';
import { objectId } from '../objects/object-id.ts';
import type { KubeObject } from '../objects/kube-object.ts';

/**
 * The field manager that holds `.spec.replicas` between our letting go of it and the autoscaler
 * taking it (Kubernetes SSA docs, "Transferring ownership"): without it, the API server would
 * remove the field and the workload would drop to the default of one replica.
 */
export const HANDOVER_MANAGER = 'mooring-handover-to-hpa';

const SCALABLE: ReadonlySet<string> = new Set(['Deployment', 'StatefulSet']);

function specOf(obj: KubeObject | undefined): Record<string, unknown> {
  return ((obj?.spec as Record<string, unknown> | undefined) ?? {}) as Record<string, unknown>;
}

/**
 * When the desired workload stops carrying replicas (an autoscaler now owns the count) and we own
 * the field live, first hand the field to HANDOVER_MANAGER at its live value. A 409 means another
 * manager (the HPA controller) already holds it: nothing to hand over.
 */
export async function handOverReplicas(
  ctx: ApplyContext,
  desired: KubeObject,
  before: KubeObject | undefined,
): Promise<boolean> {
  if (!before || !SCALABLE.has(desired.kind) || specOf(desired).replicas !== undefined) return false;
  const liveReplicas = specOf(before).replicas;
  if (typeof liveReplicas !== 'number' || !ownsField(before, ctx.fieldManager, '.spec.replicas'))
    return false;
  const patch: KubeObject = {
    apiVersion: desired.apiVersion,
    kind: desired.kind,
    metadata: { name: desired.metadata.name, namespace: desired.metadata.namespace },
    spec: { replicas: liveReplicas },
  };
  try {
    await ctx.client.apply(patch, { fieldManager: HANDOVER_MANAGER, dryRun: ctx.dryRun, force: false });
    ctx.logger.info(
      { id: objectId(desired), replicas: liveReplicas },
      `${objectId(desired)}: replicas handed over to the autoscaler at ${liveReplicas}`,
    );
    return true;
  } catch (err) {
    if (httpStatusOf(err) === 409) return false;
    throw kubeError(err, objectId(desired), 'apply (replicas handover)');
  }
}
