/**
 * Fields an object's create gave us, made ours as if applied (ADR 0007). A create-only write (a
 * POST with field manager `mooring`) records our fields under a managedFields entry of operation
 * `Update`, not `Apply`. Server-side apply keys ownership by manager and operation, so a later
 * apply as `mooring` would share those fields with that entry instead of owning them alone, and a
 * field we stop applying would never be removed: the `Update` entry keeps it (the Kubernetes SSA
 * documentation on upgrading from client-side apply; client-go's `csaupgrade` does the same).
 * Before the first apply of a changed rendering of such an object (its desired hash differs from
 * the live one's), the entry is turned into our `Apply` entry (merged into it when there is one)
 * by a JSON patch of `metadata.managedFields` alone, guarded by `test` operations on the
 * resourceVersion and the entries, so it changes nothing if the object moved meanwhile. One write,
 * once per created object, and only when what we render for it changes: a converged object is
 * never written for it, and a repair of drift applies what the create set, so it drops nothing.
 */
import type { ApplyContext } from './apply-context.ts';
import { httpStatusOf, kubeError } from './errors.ts';
import { objectId } from '../objects/object-id.ts';
import type { KubeObject, ManagedFieldsEntry } from '../objects/kube-object.ts';

type Trie = Record<string, unknown>;

/** The union of two FieldsV1 tries (each node an object of children; `{}` a leaf). */
export function unionFields(a: Trie | undefined, b: Trie | undefined): Trie {
  const out: Trie = { ...(a ?? {}) };
  for (const [k, v] of Object.entries(b ?? {})) {
    const mine = out[k];
    out[k] =
      mine && typeof mine === 'object' && v && typeof v === 'object'
        ? unionFields(mine as Trie, v as Trie)
        : v;
  }
  return out;
}

function entryOf(entries: readonly ManagedFieldsEntry[], manager: string, operation: string): number {
  return entries.findIndex((e) => e.manager === manager && e.operation === operation && !e.subresource);
}

/** Whether `live` carries our `Update` entry (a create-only write made it). */
export function hasCreatedFields(live: KubeObject | undefined, fieldManager: string): boolean {
  return entryOf(live?.metadata.managedFields ?? [], fieldManager, 'Update') >= 0;
}

/**
 * The JSON patch that makes our `Update` entry of `live` (an object as read whole) our `Apply`
 * entry; undefined when there is none, or when both entries are there without their fields.
 */
export function adoptionPatch(live: KubeObject, fieldManager: string): unknown[] | undefined {
  const entries = live.metadata.managedFields ?? [];
  const u = entryOf(entries, fieldManager, 'Update');
  if (u < 0) return undefined;
  const ops: unknown[] = [
    { op: 'test', path: '/metadata/resourceVersion', value: live.metadata.resourceVersion },
    { op: 'test', path: `/metadata/managedFields/${u}/manager`, value: fieldManager },
    { op: 'test', path: `/metadata/managedFields/${u}/operation`, value: 'Update' },
  ];
  const a = entryOf(entries, fieldManager, 'Apply');
  if (a < 0)
    return [...ops, { op: 'replace', path: `/metadata/managedFields/${u}/operation`, value: 'Apply' }];
  const update = entries[u] as ManagedFieldsEntry;
  const applied = entries[a] as ManagedFieldsEntry;
  if (!update.fieldsV1 || !applied.fieldsV1) return undefined;
  return [
    ...ops,
    { op: 'test', path: `/metadata/managedFields/${a}/operation`, value: 'Apply' },
    {
      op: 'replace',
      path: `/metadata/managedFields/${a}/fieldsV1`,
      value: unionFields(applied.fieldsV1, update.fieldsV1),
    },
    { op: 'remove', path: `/metadata/managedFields/${u}` },
  ];
}

/**
 * Makes the fields our create recorded ours as applied, before an apply writes `live` (see the
 * module comment). A listed entry's managedFields may be compacted (entries left out, fields
 * reduced: compact-live.ts), so the patch is made from the object as read, `live` itself when
 * `fresh` says it was just read whole. A patch refused because the object moved (409, or 422 from
 * a failed `test`) is left to the next apply. Not in dry run.
 */
export async function adoptCreatedFields(ctx: ApplyContext, live: KubeObject, fresh: boolean): Promise<void> {
  if (ctx.dryRun || !hasCreatedFields(live, ctx.fieldManager)) return;
  const id = objectId(live);
  let current: KubeObject | undefined = live;
  if (!fresh) {
    try {
      current = await ctx.client.get(live);
    } catch (err) {
      throw kubeError(err, id, 'get');
    }
  }
  const ops = current ? adoptionPatch(current, ctx.fieldManager) : undefined;
  if (!current || !ops) return;
  try {
    await ctx.client.patchJson(current, ops, { fieldManager: ctx.fieldManager, metadataOnly: true });
  } catch (err) {
    const status = httpStatusOf(err);
    if (status === 409 || status === 422) {
      ctx.logger.info(
        { id },
        `${id}: moved before its created fields were adopted; adopted at its next apply`,
      );
      return;
    }
    throw kubeError(err, id, 'patch (managedFields)');
  }
}
