import type { ParsedPage, RejectedRecord, UnsupportedRecord } from '../contract/index.ts';
import { MooringError } from '../errors.ts';
import type { PageMemo } from './page-memo.ts';

/** Every record of a listing, gathered from all its pages. */
export interface Listing<T> {
  items: T[];
  rejected: RejectedRecord[];
  unsupported: UnsupportedRecord[];
}

/** What a caller that holds records from an earlier listing gives a new one. */
export interface ListingOptions<T> {
  /** Answers for a record the caller holds, equal to the raw one (see `parsePage`). */
  known?: (raw: unknown) => T | undefined;
  /** Pages remembered by their bytes (page-memo.ts): a page whose bytes it knows is not parsed. */
  memo?: PageMemo<T>;
  /**
   * What the listing holds of each record it parsed (default the record): a caller that works on
   * only some records keeps less of the others than their whole, from their page on.
   */
  slim?: (record: T) => T;
  /** Told of each page as it arrives, before the walk goes on (a walk begun again tells again). */
  onPage?: (page: ParsedPage<T>) => void;
}

/** How many times a whole listing is walked again when its records shift under it. */
export const LISTING_WALKS = 3;

/**
 * A whole listing, walked again from the start (up to `LISTING_WALKS` times) when records left
 * it while it was read (`MOORING_E_CP_LISTING_SHIFTED`, ADR 0011); after the last try the error
 * goes to the caller, so a listing that may have missed a record is never returned as complete.
 */
export async function collectStable<T extends { id: string }>(
  walk: () => AsyncIterable<ParsedPage<T>>,
  onPage?: (page: ParsedPage<T>) => void,
): Promise<Listing<T>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await collect(walk(), onPage);
    } catch (err) {
      if (
        attempt >= LISTING_WALKS ||
        !(err instanceof MooringError) ||
        err.code !== 'MOORING_E_CP_LISTING_SHIFTED'
      ) {
        throw err;
      }
    }
  }
}

/**
 * The records of all pages. A record added while the walk runs pushes the others one place
 * back, so one may come twice, at a page boundary: it is kept once, in the later (fresher) copy.
 */
async function collect<T extends { id: string }>(
  pages: AsyncIterable<ParsedPage<T>>,
  onPage: ((page: ParsedPage<T>) => void) | undefined,
): Promise<Listing<T>> {
  const listing: Listing<T> = { items: [], rejected: [], unsupported: [] };
  const at = new Map<string, number>();
  const seenRefused = new Set<string>();
  for await (const page of pages) {
    onPage?.(page);
    for (const item of page.items) {
      const index = at.get(item.id);
      if (index === undefined) {
        at.set(item.id, listing.items.length);
        listing.items.push(item);
      } else {
        listing.items[index] = item;
      }
    }
    for (const r of page.rejected) {
      if (r.id !== undefined && seenRefused.has(`r:${r.id}`)) continue;
      if (r.id !== undefined) seenRefused.add(`r:${r.id}`);
      listing.rejected.push(r);
    }
    for (const u of page.unsupported) {
      if (seenRefused.has(`u:${u.id}`)) continue;
      seenRefused.add(`u:${u.id}`);
      listing.unsupported.push(u);
    }
  }
  return listing;
}
