/**
 * Apply: server-side apply with field manager `mooring` and force, one object at a time in kind
 * order, skipping what is already converged (desired-hash annotation equal AND live still holds
 * every field we apply). Each object gets a change-set entry, also when the batch fails halfway.
 */
import { MooringError } from '../errors.ts';
import { type ApplyContext, type ApplyOptions, entryFor } from './apply-context.ts';
import type { ChangeSet, ChangeSetEntry } from './change-set.ts';
import { isSlim } from './compact-live.ts';
import { isCreateOnly, withGeneratedKeys } from './create-only.ts';
import { liveHash, prepareForApply } from './desired-hash.ts';
import { httpStatusOf, immutableFields, isApiWide, kubeError } from './errors.ts';
import { takenFields } from './field-owners.ts';
import { sortForApply } from './kinds.ts';
import { findDrift } from './live-compare.ts';
import { objectId } from './object-id.ts';
import type { Applied } from './object-client.ts';
import { objectVersion } from './object-version.ts';
import { recreate } from './recreate.ts';
import { HANDOVER_MANAGER, handOverReplicas } from './replicas-handover.ts';
import type { KubeObject } from './types.ts';

export type { ApplyContext, ApplyOptions } from './apply-context.ts';
export { HANDOVER_MANAGER } from './replicas-handover.ts';
export { RECREATE_WAIT_MS } from './recreate.ts';

async function createOnce(
  ctx: ApplyContext,
  opts: ApplyOptions,
  desired: KubeObject,
  live: KubeObject | undefined,
): Promise<ChangeSetEntry> {
  const entry = entryFor(desired, 'unchanged');
  let created: KubeObject | undefined;
  if (!live && !opts.live) {
    try {
      live = await ctx.client.get(desired);
    } catch (err) {
      throw kubeError(err, entry.id, 'get');
    }
  }
  if (live) {
    entry.note = 'create-only: exists, never updated';
    opts.observed?.set(entry.id, live);
    // Nothing of it is compared; remembered so that a resync can tell it is still there unchanged.
    remember(ctx, entry.id, opts.inputKey, live);
    return entry;
  }
  try {
    created = await ctx.client.create(withGeneratedKeys(desired, ctx.random), {
      fieldManager: ctx.fieldManager,
      dryRun: ctx.dryRun,
    });
    entry.action = 'created';
    opts.observed?.set(entry.id, created);
  } catch (err) {
    if (httpStatusOf(err) !== 409) throw kubeError(err, entry.id, 'create');
    entry.note = 'create-only: exists, never updated';
  }
  return entry;
}

/** Whether `live` is still the version found converged (or applied) for `key`; see ApplyContext.verified. */
export function isVerified(
  ctx: ApplyContext,
  id: string,
  key: string | undefined,
  live: KubeObject,
): boolean {
  if (key === undefined || ctx.dryRun) return false;
  const memo = ctx.verified?.get(id);
  // The memo first: the version of a whole object costs a digest of its labels and annotations.
  return memo !== undefined && memo.key === key && memo.version === objectVersion(live);
}

/** Records that `obj` (live, or the apply's answer) holds what `key` stands for. */
function remember(ctx: ApplyContext, id: string, key: string | undefined, obj: KubeObject): void {
  const version = objectVersion(obj);
  if (key !== undefined && version !== undefined && !ctx.dryRun) ctx.verified?.set(id, { key, version });
}

/**
 * The object as an apply left it, for health and the memo. A metadata-only answer carries the
 * new resourceVersion, generation, labels, annotations and managedFields. Its spec and status:
 * - the generation did not move: the apply changed no spec, so the live object's spec and status
 *   still stand (the listing keeps both for the kinds health reads); kinds without a generation
 *   have no status health reads;
 * - it moved (or the object is new): no controller has observed the new generation yet, which is
 *   all the whole answer's status would have said; health reads it so from the missing status.
 */
function observedAfter(applied: Applied, live: KubeObject | undefined): KubeObject {
  const { object } = applied;
  const generation = object.metadata.generation;
  if (!applied.partial || typeof generation !== 'number' || live?.metadata.generation !== generation)
    return object;
  return { ...live, metadata: object.metadata };
}

/** Applies one object; throws a MooringError whose message starts with the object id. */
export async function applyOne(
  ctx: ApplyContext,
  opts: ApplyOptions,
  raw: KubeObject,
): Promise<ChangeSetEntry> {
  const id = objectId(raw);
  let live = opts.live?.get(id);
  if (isCreateOnly(raw)) return createOnce(ctx, opts, raw, live);
  if (live && !live.metadata.deletionTimestamp && isVerified(ctx, id, opts.inputKey, live)) {
    opts.observed?.set(id, live);
    return entryFor(raw, 'unchanged');
  }
  const { object: desired, body } = prepareForApply(raw);
  const key = opts.inputKey ?? liveHash(desired);
  const entry = entryFor(desired, 'unchanged');
  if ((!live && !opts.live) || (live && isSlim(live))) {
    // No listing to go by, or a slim entry to compare against: one read. With a complete listing,
    // an absent object is new (or stripped of our labels by hand): apply it straight away; the
    // answer says whether it was created.
    try {
      live = await ctx.client.get(desired);
    } catch (err) {
      throw kubeError(err, id, 'get');
    }
  }
  if (live && liveHash(live) === liveHash(desired) && !live.metadata.deletionTimestamp) {
    const drift = findDrift(desired, live);
    if (!drift || isVerified(ctx, id, key, live)) {
      opts.observed?.set(id, live);
      remember(ctx, id, key, live);
      return entry;
    }
    ctx.logger.info({ id, path: drift }, `${id}: drift at ${drift}; restoring`);
  }
  if (live?.metadata.deletionTimestamp) {
    entry.action = 'skipped';
    entry.note = 'terminating; applied once it is gone';
    throw Object.assign(
      new MooringError('MOORING_E_KUBE_CONFLICT', `${id}: is terminating; will apply once it is gone`, {
        details: { id },
      }),
      { entry },
    );
  }
  if (await handOverReplicas(ctx, desired, live)) entry.note = 'replicas handed over to the autoscaler';
  let after: KubeObject;
  let created: boolean;
  try {
    // Of the answer only its metadata is read (see observedAfter), dry run or not.
    const applied = await ctx.client.apply(
      desired,
      { fieldManager: ctx.fieldManager, dryRun: ctx.dryRun, force: true, metadataOnly: true },
      body,
    );
    after = observedAfter(applied, live);
    created = applied.created;
  } catch (err) {
    const fields = immutableFields(err);
    if (fields.length === 0) throw kubeError(err, id, 'apply');
    after = await recreate(ctx, opts, desired, live, fields);
    opts.observed?.set(id, after);
    entry.recreated = true;
    entry.action = 'created';
    entry.note = `recreated: immutable field ${fields.join(', ')} changed`;
    return entry;
  }
  opts.observed?.set(id, after);
  remember(ctx, id, key, after);
  // Absent from a complete listing yet not created (201): it existed without our labels.
  if (!live) entry.action = created || !opts.live ? 'created' : 'configured';
  else
    entry.action =
      after.metadata.resourceVersion === live.metadata.resourceVersion ? 'unchanged' : 'configured';
  // Taking replicas back from our own hand-over manager (autoscaling turned off) is no conflict.
  const taken = takenFields(live, after, ctx.fieldManager).filter((t) => t.manager !== HANDOVER_MANAGER);
  if (taken.length > 0) {
    entry.conflicts = taken;
    ctx.logger.warn(
      { id, conflicts: taken },
      `${id}: forced apply took fields from ${taken.map((t) => t.manager).join(', ')}`,
    );
  }
  return entry;
}

/** Applies every object in kind order; see the module comment. */
export async function applyAll(
  base: ApplyContext,
  objects: readonly KubeObject[],
  opts: ApplyOptions = {},
): Promise<ChangeSet> {
  const ctx = opts.dryRun === undefined ? base : { ...base, dryRun: opts.dryRun };
  const cs: ChangeSet = { entries: [], dryRun: ctx.dryRun };
  let stop: MooringError | undefined;
  for (const obj of sortForApply(objects)) {
    if (stop) {
      const e = entryFor(obj, 'skipped');
      e.note = `not attempted: ${stop.code}`;
      cs.entries.push(e);
      continue;
    }
    try {
      cs.entries.push(await applyOne(ctx, opts, obj));
    } catch (err) {
      const error = err instanceof MooringError ? err : kubeError(err, objectId(obj), 'apply');
      const carried = (err as { entry?: ChangeSetEntry }).entry;
      const e = carried ?? entryFor(obj, 'unknown');
      e.error = error;
      cs.entries.push(e);
      ctx.logger.error({ id: e.id, code: error.code }, error.message);
      if (isApiWide(error)) stop = error;
    }
  }
  return cs;
}
