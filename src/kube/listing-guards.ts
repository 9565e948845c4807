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

/** How a cold listing goes: whether it keeps its entries, and whether any of its lists started over. */
export interface ColdListingMode {
  judgeOnly: boolean;
  restarted: boolean;
}

/**
 * `judge`, giving the cold listing up (it throws) when `short` says the heap is short before a
 * page: a listing that holds every owned object must not run V8 out of heap (rule 5). After each
 * page, `entriesFit`, told how many objects the listing had handed before it, decides whether the
 * entries still fit to the listing's end; once they do not, `mode.judgeOnly` is set for good.
 */
export function boundedJudge(
  judge: PageJudge,
  guard: { short?: (() => boolean) | undefined; entriesFit?: ((listed: number) => boolean) | undefined },
  mode: ColdListingMode,
): PageJudge {
  let listed = 0;
  return async (items) => {
    const before = listed;
    listed += items.length;
    if (guard.short?.()) {
      throw new MooringError(
        'MOORING_E_MEMORY_SHORT',
        'the heap is short: the cold listing of every owned object is given up; reconciles list their own objects',
      );
    }
    await judge(items);
    // Asked after the judge: a restart's judge loads the memo, which tells how many objects there are.
    if (!mode.judgeOnly && guard.entriesFit && !guard.entriesFit(before)) mode.judgeOnly = true;
  };
}
