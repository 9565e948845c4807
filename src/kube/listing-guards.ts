/** What ObservedState (observed-state.ts) asks of a listing: its owners, and a judge with a heap bound. */
import { MooringError } from '../errors.ts';
import { kindInfo } from '../objects/kinds.ts';
import type { Inventory, ListOwnedOptions } from './list.ts';
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
 * `judge`, with the heap's bounds of a cold listing (rule 5). A listing that holds every owned
 * object must not run V8 out of heap: when `memoryShort` says the heap is short before a page, the
 * listing goes judge-only (`mode.judgeOnly`, set for good) if it holds no entry yet or none any
 * more, and is given up (it throws) if it has kept some. After each page, `entriesFit`, told how
 * many objects the listing had handed before it, decides whether the entries still fit to the
 * listing's end; once they do not, the listing goes judge-only too.
 */
export function boundedJudge(
  judge: PageJudge,
  guard: Pick<ColdListingGuard, 'memoryShort' | 'entriesFit'>,
  mode: ColdListingMode,
): PageJudge {
  let listed = 0;
  return async (items) => {
    const before = listed;
    listed += items.length;
    // Nothing kept (the first page, or judge-only already): judged and let go, it holds nothing more.
    const short = guard.memoryShort?.() === true;
    if (short && before === 0) mode.judgeOnly = true;
    if (short && !mode.judgeOnly) {
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

/** What bounds a cold listing's heap (`boundedJudge`), and who is told how it ended. */
export interface ColdListingGuard {
  memoryShort?: (() => boolean) | undefined;
  entriesFit?: ((listed: number) => boolean) | undefined;
  onColdListed?: ((judgeOnly: boolean, complete: boolean) => void) | undefined;
}

/** A cold listing, when `judge` is one: its options, and how it went. */
export interface ColdListing {
  options: Pick<ListOwnedOptions, 'judge' | 'keepsEntries' | 'onRestart'>;
  /** Tells `onColdListed` that it ended; whether it was judge-only (it is then no listing to serve). */
  ended(): boolean;
}

/** The options of a cold listing judged by `judge` (none without one: not a cold listing). */
export function coldListing(judge: PageJudge | undefined, guard: ColdListingGuard): ColdListing {
  if (!judge) return { options: {}, ended: () => false };
  const mode: ColdListingMode = { judgeOnly: false, restarted: false };
  const options = {
    judge: boundedJudge(judge, guard, mode),
    keepsEntries: () => !mode.judgeOnly,
    onRestart: () => {
      mode.restarted = true;
    },
  };
  const ended = () => {
    guard.onColdListed?.(mode.judgeOnly, !mode.restarted);
    return mode.judgeOnly;
  };
  return { options, ended };
}
