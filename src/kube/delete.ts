/**
 * Delete: reverse kind order, only what is provably ours. An object is deleted only when it carries
 * our ownership labels AND our field manager appears in its managedFields (PVCs made by a
 * StatefulSet from our claim template carry our labels but the controller's manager: for them the
 * labels suffice). Volumes are kept unless the operator opted in.
 */
import type { Logger } from 'pino';
import { bound, entryFor } from './apply-context.ts';
import { cancelledBy } from '../errors.ts';
import type { ChangeSet } from '../objects/change-set.ts';
import { httpStatusOf, isApiWide, kubeError } from './errors.ts';
import { isManagedBy } from './field-owners.ts';
import { kindInfo, sortForDelete } from '../objects/kinds.ts';
import { LABELS, MANAGED_BY } from '../labels.ts';
import type { ObjectClient } from './object-client.ts';
import { isPaused, PAUSED_NOTE } from './pause.ts';
import type { KubeObject } from '../objects/kube-object.ts';

/** The note of a volume a prune left in place (its entry's detail is `volume-kept`). */
const VOLUME_KEPT = 'volume kept (deleteVolumes is off)';

export interface DeleteContext {
  client: ObjectClient;
  fieldManager: string;
  dryRun: boolean;
  logger: Logger;
}

export interface DeleteAllOptions {
  /** Delete PersistentVolumeClaims too (data loss: off by default). */
  deleteVolumes: boolean;
  /** When set, objects labelled for another listener are refused. */
  listenerId?: string;
  /** Overrides the manager's dry-run setting for this call. */
  dryRun?: boolean;
  /** The reconcile's signal: an abort cuts the delete in flight and sends no other (apply.ts alike). */
  signal?: AbortSignal;
}

/** Why an object may not be deleted by us; undefined when it may. */
export function refuseDelete(
  obj: KubeObject,
  fieldManager: string,
  opts: DeleteAllOptions,
): string | undefined {
  const labels = obj.metadata.labels ?? {};
  if (labels[LABELS.managedBy] !== MANAGED_BY || !labels[LABELS.deploymentId] || !labels[LABELS.listenerId]) {
    return 'not ours: ownership labels missing';
  }
  if (opts.listenerId !== undefined && labels[LABELS.listenerId] !== opts.listenerId) {
    return 'not ours: another listener';
  }
  if (isPaused(obj)) return PAUSED_NOTE;
  const volume = kindInfo(obj.kind)?.volume === true;
  if (volume && !opts.deleteVolumes) return VOLUME_KEPT;
  if (!volume && !isManagedBy(obj, fieldManager)) return `not ours: field manager ${fieldManager} absent`;
  return undefined;
}

/** Deletes live objects (as listed: they carry their labels and managedFields). */
export async function deleteAll(
  base: DeleteContext,
  objects: readonly KubeObject[],
  opts: DeleteAllOptions,
): Promise<ChangeSet> {
  const ctx = bound(opts.dryRun === undefined ? base : { ...base, dryRun: opts.dryRun }, opts.signal);
  const cs: ChangeSet = { entries: [], dryRun: ctx.dryRun };
  let stopped: string | undefined;
  for (const obj of sortForDelete(objects)) {
    if (opts.signal?.aborted) throw cancelledBy(opts.signal);
    const entry = entryFor(obj, 'unknown');
    cs.entries.push(entry);
    if (stopped) {
      entry.action = 'skipped';
      entry.note = `not attempted: ${stopped}`;
      continue;
    }
    const refusal = refuseDelete(obj, ctx.fieldManager, opts);
    if (refusal) {
      entry.action = 'skipped';
      entry.note = refusal;
      if (refusal === VOLUME_KEPT) entry.detail = 'volume-kept';
      continue;
    }
    if (obj.metadata.deletionTimestamp) {
      // Already being deleted: asking again would be a write that changes nothing.
      entry.action = 'deleted';
      entry.note = 'already terminating';
      entry.detail = 'already-terminating';
      continue;
    }
    try {
      // The uid makes it this very object: one deleted and made again under the same name since
      // it was listed (by its owner, or by us) answers 409 and stays (recreate.ts alike).
      const { uid } = obj.metadata;
      const outcome = await ctx.client.delete(obj, {
        dryRun: ctx.dryRun,
        propagationPolicy: 'Background',
        ...(uid ? { uid } : {}),
      });
      entry.action = 'deleted';
      if (outcome === 'absent') {
        entry.note = 'already gone';
        entry.detail = 'already-gone';
      }
      // The client reads the answer as a Status, so whether the object lingers is judged from
      // what was listed: finalizers hold it until their controllers release it.
      else if ((obj.metadata.finalizers as string[] | undefined)?.length) {
        entry.note = 'terminating: finalizers pending';
        entry.detail = 'terminating';
      }
      ctx.logger.info({ id: entry.id, dryRun: ctx.dryRun }, `${entry.id}: deleted`);
    } catch (err) {
      if (opts.signal?.aborted) throw cancelledBy(opts.signal);
      if (obj.metadata.uid && httpStatusOf(err) === 409) {
        // Not ours any more: what we listed is gone and the name holds a successor. Nothing to retry.
        entry.action = 'skipped';
        entry.note = 'not deleted: replaced under the same name since it was listed';
        entry.detail = 'replaced';
        ctx.logger.info(
          { id: entry.id },
          `${entry.id}: replaced under the same name since it was listed; not deleted`,
        );
        continue;
      }
      entry.error = kubeError(err, entry.id, 'delete');
      ctx.logger.error({ id: entry.id, code: entry.error.code }, entry.error.message);
      if (isApiWide(entry.error)) stopped = entry.error.code;
    }
  }
  return cs;
}
