/**
 * Apply: server-side apply with field manager `mooring` and force, one object at a time in kind
 * order, skipping what is already converged (desired-hash annotation equal AND live still holds
 * every field we apply). Each object gets a change-set entry, also when the batch fails halfway.
 * Ownership comes before every write (ADR 0007, ownership.ts): an object the listing does not hold
 * is read first, or looked up in a census of names and, when absent, created with a create-only
 * write; one that belongs to another deployment, listener or manager refuses the whole batch
 * before anything is written.
 */
import { cancelledBy, MooringError } from '../errors.ts';
import { type ApplyContext, type ApplyOptions, bound, entryFor } from './apply-context.ts';
import type { ChangeSet, ChangeSetEntry } from '../objects/change-set.ts';
import { compactLive, isSlim } from './compact-live.ts';
import { adoptCreatedFields } from './created-fields.ts';
import { isCreateOnly, withGeneratedKeys } from './create-only.ts';
import { liveHash, prepareForApply } from './desired-hash.ts';
import { httpStatusOf, immutableFields, isApiWide, kubeError } from './errors.ts';
import { takenFields } from './field-owners.ts';
import { sortForApply } from '../objects/kinds.ts';
import { findDrift } from './live-compare.ts';
import { isVerified, remember, rememberAnswer } from './memo.ts';
import { objectId } from '../objects/object-id.ts';
import type { Applied } from './object-client.ts';
import { checkOwnership } from './ownership.ts';
import { isPaused, leaveAlone } from './pause.ts';
import { readUnlisted } from './read-unlisted.ts';
import { recreate } from './recreate.ts';
import { HANDOVER_MANAGER, handOverReplicas } from './replicas-handover.ts';
import type { KubeObject } from '../objects/kube-object.ts';

export type { ApplyContext, ApplyOptions } from './apply-context.ts';

async function createOnce(
  ctx: ApplyContext,
  opts: ApplyOptions,
  desired: KubeObject,
  live: KubeObject | undefined,
): Promise<ChangeSetEntry> {
  const entry = entryFor(desired, 'unchanged');
  let created: KubeObject | undefined;
  if (live) return foundCreateOnly(ctx, opts, entry, desired, live);
  try {
    created = await ctx.client.create(withGeneratedKeys(desired, ctx.random), {
      fieldManager: ctx.fieldManager,
      dryRun: ctx.dryRun,
    });
    entry.action = 'created';
    opts.observed?.set(entry.id, created);
    // Remembered as a found one is, so that the pass that created it can leave it verified.
    rememberAnswer(ctx, entry.id, opts.inputKey, created);
  } catch (err) {
    if (httpStatusOf(err) !== 409) throw kubeError(err, entry.id, 'create');
    // Made since our read said it was absent: whose it is decides, as for one found at once.
    let found: KubeObject | undefined;
    try {
      found = await ctx.client.get(desired);
    } catch (e) {
      throw kubeError(e, entry.id, 'get');
    }
    if (found) return foundCreateOnly(ctx, opts, entry, desired, found);
    entry.note = 'create-only: exists, never updated';
  }
  return entry;
}

/** A create-only object that exists: never updated, but ours only if it is ours (ADR 0007). */
function foundCreateOnly(
  ctx: ApplyContext,
  opts: ApplyOptions,
  entry: ChangeSetEntry,
  desired: KubeObject,
  live: KubeObject,
): ChangeSetEntry {
  // Another's Secret under our name would hand its content to our workloads: refused like a write.
  checkOwnership(live, desired, ctx.fieldManager);
  entry.note = 'create-only: exists, never updated';
  opts.observed?.set(entry.id, live);
  // Nothing of it is compared; remembered so that a resync can tell it is still there unchanged.
  remember(ctx, entry.id, opts.inputKey, live);
  return entry;
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

/**
 * An apply's answer as the pass keeps it, its managedFields reduced in place as a listing's are:
 * our own entry's field tree, most of the answer and unread after the apply, is garbage at once.
 */
function kept(ctx: ApplyContext, answer: KubeObject): KubeObject {
  return compactLive(answer, ctx.fieldManager);
}

/**
 * Creates an object a census found absent with a create-only write (ADR 0007): the entry when it
 * was created, undefined when it exists after all (409 AlreadyExists: made since the census).
 */
async function createAbsent(
  ctx: ApplyContext,
  opts: ApplyOptions,
  desired: KubeObject,
  body: string,
  key: string | undefined,
  entry: ChangeSetEntry,
): Promise<ChangeSetEntry | undefined> {
  let applied: Applied;
  try {
    applied = await ctx.client.createNew(
      desired,
      { fieldManager: ctx.fieldManager, dryRun: ctx.dryRun, metadataOnly: true },
      body,
    );
  } catch (err) {
    if (httpStatusOf(err) === 409) return undefined;
    throw kubeError(err, entry.id, 'create');
  }
  opts.observed?.set(entry.id, kept(ctx, applied.object));
  rememberAnswer(ctx, entry.id, key, applied.object);
  entry.action = 'created';
  return entry;
}

/**
 * Applies one object against `found`, the object as the listing holds it or as it was read
 * (undefined: absent; see `readUnlisted`); `absent` when a census found no object of its name, so
 * that it is created without a read. Throws a MooringError whose message starts with the object id.
 */
async function applyOne(
  ctx: ApplyContext,
  opts: ApplyOptions,
  raw: KubeObject,
  found: KubeObject | undefined,
  absent = false,
): Promise<ChangeSetEntry> {
  const id = objectId(raw);
  let live = found;
  // An operator paused it (pause.ts): not compared, not written, not recreated.
  if (isPaused(live)) return leaveAlone(raw, live!, opts.observed);
  if (isCreateOnly(raw)) return createOnce(ctx, opts, raw, live);
  if (live && !live.metadata.deletionTimestamp && isVerified(ctx, id, opts.inputKey, live)) {
    opts.observed?.set(id, live);
    return entryFor(raw, 'unchanged');
  }
  const { object: desired, body } = prepareForApply(raw);
  const key = opts.inputKey ?? liveHash(desired);
  const entry = entryFor(desired, 'unchanged');
  let fresh = false;
  if (absent) {
    const created = await createAbsent(ctx, opts, desired, body, key, entry);
    if (created) return created;
    // Made since the census: whose it is decides, as for an object read before any write.
    try {
      live = await ctx.client.get(desired);
    } catch (err) {
      throw kubeError(err, id, 'get');
    }
    fresh = true;
    checkOwnership(live, desired, ctx.fieldManager);
  }
  if (live && isSlim(live)) {
    // A slim entry to compare against: one read.
    try {
      live = await ctx.client.get(desired);
    } catch (err) {
      throw kubeError(err, id, 'get');
    }
    fresh = true;
    checkOwnership(live, desired, ctx.fieldManager);
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
  // Fields our create-only write recorded become ours as applied first, so that an apply of
  // changed objects prunes what it no longer sets (a repair of drift sets what the create did).
  if (live && liveHash(live) !== liveHash(desired)) await adoptCreatedFields(ctx, live, fresh);
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
  if (!live && !created) {
    // Read as absent, yet not created by this apply: someone made it in between and the forced
    // apply took it over. A refusal, and not verified: the next pass reads it again.
    entry.action = 'configured';
    const why = `${id}: appeared between its read and our apply; the forced apply took it over`;
    const conflict = new MooringError('MOORING_E_KUBE_APPLY_CONFLICT', why, { details: { id } });
    throw Object.assign(conflict, { entry });
  }
  rememberAnswer(ctx, id, key, after);
  const same = live?.metadata.resourceVersion === after.metadata.resourceVersion;
  entry.action = !live ? 'created' : same ? 'unchanged' : 'configured';
  // Taking replicas back from our own hand-over manager (autoscaling turned off) is no conflict.
  const taken = takenFields(live, after, ctx.fieldManager).filter((t) => t.manager !== HANDOVER_MANAGER);
  if (taken.length > 0) {
    entry.conflicts = taken;
    ctx.logger.warn(
      { id, conflicts: taken },
      `${id}: forced apply took fields from ${taken.map((t) => t.manager).join(', ')}`,
    );
  }
  // Read whole by takenFields just above; nothing after it reads our own entry's fields.
  kept(ctx, after);
  return entry;
}

/** Applies every object in kind order; see the module comment. */
export async function applyAll(
  base: ApplyContext,
  objects: readonly KubeObject[],
  opts: ApplyOptions = {},
): Promise<ChangeSet> {
  const ctx = bound(opts.dryRun === undefined ? base : { ...base, dryRun: opts.dryRun }, opts.signal);
  const cs: ChangeSet = { entries: [], dryRun: ctx.dryRun };
  const sorted = sortForApply(objects);
  const found = await readUnlisted(ctx, sorted, opts);
  let stop: MooringError | undefined = found.refused ?? found.stop;
  for (const obj of sorted) {
    if (opts.signal?.aborted) throw cancelledBy(opts.signal); // cut: nothing more sent or reported
    const id = objectId(obj);
    const failed = found.errors.get(id);
    if (failed) {
      const e = entryFor(obj, 'skipped');
      e.note =
        failed.code === 'MOORING_E_KUBE_OWNERSHIP'
          ? `not ours: belongs to ${String(failed.details.owner)}`
          : 'not read';
      e.error = failed;
      cs.entries.push(e);
      ctx.logger.error({ id, code: failed.code }, failed.message);
      continue;
    }
    if (stop || !found.live.has(id)) {
      const e = entryFor(obj, 'skipped');
      e.note = `not attempted: ${stop?.code ?? 'not read'}`;
      cs.entries.push(e);
      continue;
    }
    try {
      cs.entries.push(await applyOne(ctx, opts, obj, found.live.get(id), found.absent.has(id)));
    } catch (err) {
      if (opts.signal?.aborted) throw cancelledBy(opts.signal);
      const error = err instanceof MooringError ? err : kubeError(err, id, 'apply');
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
