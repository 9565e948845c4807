/**
 * Apply: server-side apply with field manager `mooring` and force, one object at a time in kind
 * order, skipping what is already converged (desired-hash annotation equal AND live still holds
 * every field we apply). Each object gets a change-set entry, also when the batch fails halfway.
 */
import type { Logger } from 'pino';
import { MooringError, TerminalError } from '../errors.ts';
import type { ChangeSet, ChangeSetEntry } from './change-set.ts';
import { isCreateOnly, type RandomBytes, withGeneratedKeys } from './create-only.ts';
import { liveHash, prepareDesired } from './desired-hash.ts';
import { httpStatusOf, immutableFields, isApiWide, kubeError } from './errors.ts';
import { ownsField, takenFields } from './field-owners.ts';
import { kindInfo, sortForApply } from './kinds.ts';
import { findDrift } from './live-compare.ts';
import type { ObjectClient } from './object-client.ts';
import { objectId } from './object-id.ts';
import type { KubeObject } from './types.ts';

/**
 * The field manager that holds `.spec.replicas` between our letting go of it and the autoscaler
 * taking it (Kubernetes SSA docs, "Transferring ownership"): without it, the API server would
 * remove the field and the workload would drop to the default of one replica.
 */
export const HANDOVER_MANAGER = 'mooring-handover-to-hpa';

export interface ApplyContext {
  client: ObjectClient;
  fieldManager: string;
  dryRun: boolean;
  logger: Logger;
  random: RandomBytes;
  /**
   * Objects whose last apply changed nothing although the comparison saw a difference (a mutating
   * admission webhook, a normalization the comparison does not know): id → `hash@resourceVersion`.
   * While both stay the same, the object counts as converged, so such a difference costs one
   * write, not one per cycle.
   */
  settled?: Map<string, string>;
}

export interface ApplyOptions {
  /** Live objects by id (from listOwned); objects absent from it are read once before applying. */
  live?: ReadonlyMap<string, KubeObject>;
  /** Allow delete + recreate of a StatefulSet on an immutable change (pods orphaned, PVCs kept). */
  recreateStatefulSets?: boolean;
  /** Overrides the manager's dry-run setting for this call. */
  dryRun?: boolean;
  /** Filled with each object as it stands after the call (apply response or the listed object), for health. */
  observed?: Map<string, KubeObject>;
}

function entryFor(obj: KubeObject, action: ChangeSetEntry['action']): ChangeSetEntry {
  const e: ChangeSetEntry = {
    id: objectId(obj),
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    name: obj.metadata.name ?? '',
    action,
  };
  if (obj.metadata.namespace) e.namespace = obj.metadata.namespace;
  return e;
}

const SCALABLE = new Set(['Deployment', 'StatefulSet']);

function specOf(obj: KubeObject | undefined): Record<string, unknown> {
  return ((obj?.spec as Record<string, unknown> | undefined) ?? {}) as Record<string, unknown>;
}

/**
 * When the desired workload stops carrying replicas (an autoscaler now owns the count) and we own
 * the field live, first hand the field to HANDOVER_MANAGER at its live value. A 409 means another
 * manager (the HPA controller) already holds it: nothing to hand over.
 */
async function handOverReplicas(
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

async function createOnce(
  ctx: ApplyContext,
  opts: ApplyOptions,
  desired: KubeObject,
  live: KubeObject | undefined,
): Promise<ChangeSetEntry> {
  const entry = entryFor(desired, 'unchanged');
  let created: KubeObject | undefined;
  if (!live) {
    try {
      live = await ctx.client.get(desired);
    } catch (err) {
      throw kubeError(err, entry.id, 'get');
    }
  }
  if (live) {
    entry.note = 'create-only: exists, never updated';
    opts.observed?.set(entry.id, live);
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

async function recreate(
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
  ctx.logger.warn(
    { id, immutableFields: fields },
    `${id}: immutable field ${fields.join(', ')} changed; recreating`,
  );
  try {
    // Orphan: the StatefulSet's pods and PVCs survive; the new StatefulSet adopts them.
    await ctx.client.delete(before, {
      dryRun: ctx.dryRun,
      propagationPolicy: isSts ? 'Orphan' : 'Background',
    });
  } catch (err) {
    throw kubeError(err, id, 'delete (recreate)');
  }
  if (ctx.dryRun) return before;
  // An orphaning delete leaves the object in place (finalizer `orphan`) until the garbage
  // collector has released its dependents; applying to it then would fail the same way.
  await waitGone(ctx, before);
  try {
    return await ctx.client.apply(desired, { fieldManager: ctx.fieldManager, force: true });
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
export const RECREATE_WAIT_MS = 5_000;
const RECREATE_POLL_MS = 100;

async function waitGone(ctx: ApplyContext, obj: KubeObject): Promise<void> {
  const deadline = Date.now() + RECREATE_WAIT_MS;
  for (;;) {
    const live = await ctx.client.get(obj).catch(() => obj);
    if (!live || live.metadata.uid !== obj.metadata.uid) return;
    if (Date.now() >= deadline) return;
    await new Promise((resolve) => setTimeout(resolve, RECREATE_POLL_MS));
  }
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
  const desired = prepareDesired(raw);
  const entry = entryFor(desired, 'unchanged');
  if (!live) {
    // Not in the listing (new, deleted by hand, relabelled by hand, or a kind we do not list): one read.
    try {
      live = await ctx.client.get(desired);
    } catch (err) {
      throw kubeError(err, id, 'get');
    }
  }
  if (live && liveHash(live) === liveHash(desired) && !live.metadata.deletionTimestamp) {
    const drift = findDrift(desired, live);
    if (!drift || ctx.settled?.get(id) === `${liveHash(live)}@${live.metadata.resourceVersion}`) {
      opts.observed?.set(id, live);
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
  try {
    after = await ctx.client.apply(desired, {
      fieldManager: ctx.fieldManager,
      dryRun: ctx.dryRun,
      force: true,
    });
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
  if (!live) entry.action = 'created';
  else
    entry.action =
      after.metadata.resourceVersion === live.metadata.resourceVersion ? 'unchanged' : 'configured';
  if (!ctx.dryRun) {
    if (live && entry.action === 'unchanged')
      ctx.settled?.set(id, `${liveHash(desired)}@${after.metadata.resourceVersion}`);
    else ctx.settled?.delete(id);
  }
  const taken = takenFields(live, after, ctx.fieldManager);
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
