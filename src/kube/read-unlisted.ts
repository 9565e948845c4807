/**
 * What an apply batch writes against (ADR 0007): the objects its listing holds, the ones it does
 * not hold looked up in a census or read, and the ownership judgement of each before anything of
 * the batch is written.
 */
import pMap from 'p-map';
import type { MooringError } from '../errors.ts';
import type { ApplyContext, ApplyOptions } from './apply-context.ts';
import { isApiWide, kubeError } from './errors.ts';
import { objectId } from '../objects/object-id.ts';
import { checkOwnership, foreignOwner } from './ownership.ts';
import type { KubeObject } from '../objects/kube-object.ts';

/** Reads of objects a listing does not hold, in flight at once (ADR 0007). */
export const READ_CONCURRENCY = 4;

/** What `readUnlisted` found: the live side to apply against, and the objects that may not be applied. */
export interface Resolved {
  /** Per id: the listed object, the object read, or undefined (read: absent). */
  live: Map<string, KubeObject | undefined>;
  /** Per id: why the object is not applied (its read failed, or it belongs to someone else). */
  errors: Map<string, MooringError>;
  /** An ownership refusal: nothing of the batch is written. */
  refused?: MooringError;
  /** An API-wide failure of a read: nothing more is attempted. */
  stop?: MooringError;
  /** Ids a census found absent (census.ts): created with a create-only write, no read. */
  absent: Set<string>;
}

/**
 * Ownership before any write (ADR 0007). An object absent from a complete listing cannot be taken
 * to be absent from the cluster (the listing selects by our labels: another deployment's, another
 * listener's or another manager's object of the same name is not in it). With a census
 * (`ApplyOptions.census`), its listing of every name says so: a name it does not hold is created
 * with a create-only write and never read, one held by another is refused from the census entry,
 * and one of ours is read whole to compare. Without one, the object is read first: one GET, a 404
 * meaning it is new; without a listing every object is read. Objects the listing holds cost no
 * request. Every object found, listed, in the census or read, must be ours (ownership.ts).
 */
export async function readUnlisted(
  ctx: ApplyContext,
  objects: readonly KubeObject[],
  opts: ApplyOptions,
): Promise<Resolved> {
  const out: Resolved = { live: new Map(), errors: new Map(), absent: new Set() };
  const unlisted: KubeObject[] = [];
  for (const obj of objects) {
    const id = objectId(obj);
    const listed = opts.live?.get(id);
    if (listed) out.live.set(id, listed);
    else unlisted.push(obj);
  }
  const census = opts.live ? opts.census : undefined;
  await pMap(
    unlisted,
    async (obj) => {
      const id = objectId(obj);
      if (out.stop) return;
      try {
        const counted = await census?.find(obj);
        if (counted === null) {
          out.live.set(id, undefined);
          out.absent.add(id);
          return;
        }
        // Another's is refused from the census entry; ours is read whole, to compare.
        if (counted && foreignOwner(counted, obj, ctx.fieldManager)) {
          out.live.set(id, counted);
          return;
        }
        out.live.set(id, await ctx.client.get(obj));
      } catch (err) {
        const error = kubeError(err, id, 'get');
        out.errors.set(id, error);
        if (isApiWide(error)) out.stop ??= error;
      }
    },
    { concurrency: READ_CONCURRENCY },
  );
  for (const obj of objects) {
    const id = objectId(obj);
    try {
      checkOwnership(out.live.get(id), obj, ctx.fieldManager);
    } catch (err) {
      const refusal = err as MooringError;
      out.errors.set(id, refusal);
      out.refused ??= refusal;
    }
  }
  return out;
}
