/**
 * Immutable fields: when an apply is refused because it changes a field that may not change, a
 * kind marked safe to recreate (Deployment, Service, ...) is deleted and created again; a
 * StatefulSet only with the operator's opt-in (`recreateStatefulSets`), deleted with
 * `propagationPolicy: Orphan` so its pods and volumes survive; anything else is a TerminalError
 * naming the field. Only an object that is ours is ever deleted (ownership.ts, ADR 0007).
 */
import { cancelledBy, MooringError, TerminalError } from '../errors.ts';
import type { ApplyContext, ApplyOptions } from './apply-context.ts';
import { httpStatusOf, kubeError } from './errors.ts';
import { kindInfo } from '../objects/kinds.ts';
import { objectId } from '../objects/object-id.ts';
import { checkOwnership } from './ownership.ts';
import type { KubeObject } from '../objects/kube-object.ts';

/** Deletes and recreates `desired`, or throws MOORING_E_KUBE_IMMUTABLE when that is not allowed. */
export async function recreate(
  ctx: ApplyContext,
  opts: ApplyOptions,
  desired: KubeObject,
  before: KubeObject | undefined,
  fields: string[],
): Promise<KubeObject> {
  const id = objectId(desired);
  const info = kindInfo(desired.kind);
  const isSts = desired.kind === 'StatefulSet';
  const allowed = info?.recreatable === true || (isSts && opts.recreateStatefulSets === true);
  if (!allowed || !before) {
    const hint = isSts ? ' (set recreateStatefulSets to allow recreating it; its volumes are kept)' : '';
    throw new TerminalError(
      'MOORING_E_KUBE_IMMUTABLE',
      `${id}: field ${fields.join(', ')} is immutable and the object may not be recreated${hint}`,
      { details: { id, immutableFields: fields } },
    );
  }
  // Never another's: the object deleted is the one whose ownership was checked (its uid).
  checkOwnership(before, desired, ctx.fieldManager);
  ctx.logger.warn(
    { id, immutableFields: fields },
    `${id}: immutable field ${fields.join(', ')} changed; recreating`,
  );
  try {
    // Orphan: the StatefulSet's pods and PVCs survive; the new StatefulSet adopts them.
    await ctx.client.delete(before, {
      dryRun: ctx.dryRun,
      propagationPolicy: isSts ? 'Orphan' : 'Background',
      ...(before.metadata.uid ? { uid: before.metadata.uid } : {}),
    });
  } catch (err) {
    throw kubeError(err, id, 'delete (recreate)');
  }
  if (ctx.dryRun) return before;
  // An orphaning delete leaves the object in place (finalizer `orphan`) until the garbage
  // collector has released its dependents; applying to it then would fail the same way.
  await waitGone(ctx, before, opts.signal);
  try {
    return (await ctx.client.apply(desired, { fieldManager: ctx.fieldManager, force: true })).object;
  } catch (err) {
    if (httpStatusOf(err) === 422 || httpStatusOf(err) === 409) {
      throw new MooringError(
        'MOORING_E_KUBE_CONFLICT',
        `${id}: being recreated; the old object is still terminating`,
        {
          details: { id },
        },
      );
    }
    throw kubeError(err, id, 'apply (recreate)');
  }
}

/** How long a recreate waits for the old object to go before giving up (retried next reconcile). */
const RECREATE_WAIT_MS = 5_000;
const RECREATE_POLL_MS = 100;

async function waitGone(ctx: ApplyContext, obj: KubeObject, signal: AbortSignal | undefined): Promise<void> {
  const deadline = Date.now() + RECREATE_WAIT_MS;
  for (;;) {
    // A read that fails counts as "still there": the wait is bounded, and the apply that follows
    // reports what is wrong with the API server. A cancelled one ends the wait.
    const live = await ctx.client.get(obj).catch(() => obj);
    if (signal?.aborted) throw cancelledBy(signal);
    if (!live || live.metadata.uid !== obj.metadata.uid) return;
    if (Date.now() >= deadline) return;
    await new Promise((resolve) => setTimeout(resolve, RECREATE_POLL_MS));
  }
}
