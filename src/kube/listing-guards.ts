/** What ObservedState (observed-state.ts) asks of a listing: its owners, and a judge with a heap bound. */
import { MooringError } from '../errors.ts';
import { kindInfo } from '../objects/kinds.ts';
import type { Inventory } from './list.ts';
import type { PageJudge } from './slim-listing.ts';

/** Deployments with objects other than volumes (kept on purpose) in `inventory`. */
export function deploymentsWithObjects(inventory: Inventory): Set<string> {
  const out = new Set<string>();
  for (const [id, objects] of inventory.byDeployment) {
    if (objects.some((o) => kindInfo(o.kind)?.volume !== true)) out.add(id);
  }
  return out;
}

/**
 * `judge`, giving the cold listing up (it throws) when `short`, told how many objects the listing
 * has handed so far, says the heap is short before a page: a listing that holds every owned
 * object must not run V8 out of heap (rule 5).
 */
export function boundedJudge(judge: PageJudge, short: ((listed: number) => boolean) | undefined): PageJudge {
  if (!short) return judge;
  let listed = 0;
  return (items) => {
    const before = listed;
    listed += items.length;
    if (short(before)) {
      throw new MooringError(
        'MOORING_E_MEMORY_SHORT',
        'the heap is short: the cold listing of every owned object is given up; reconciles list their own objects',
      );
    }
    return judge(items);
  };
}
