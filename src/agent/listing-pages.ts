/**
 * The poller's memo of listing pages (src/control-plane/page-memo.ts, ADR 0016): a page whose
 * bytes are those of a page of the last complete listing is given back as the records the poller
 * holds, unparsed. A page is remembered only when every record it gave is the one the poller then
 * kept (`settle`), so what it gives back is what parsing the same bytes gave; a page with a record
 * not kept (refused, another listener's, one waiting for memory) is parsed again each time. It
 * keeps no bytes and no record of its own: per page a digest, the ids in order, and what the page
 * refused or flagged.
 */
import type { DeploymentRecord, ParsedPage } from '../contract/index.ts';
import type { PageMemo } from '../control-plane/page-memo.ts';

/** A page of the last complete listing, as the held records give it back. */
interface Remembered {
  ids: string[];
  rejected: ParsedPage<DeploymentRecord>['rejected'];
  unsupported: ParsedPage<DeploymentRecord>['unsupported'];
  offset: number;
}

export class ListingPages implements PageMemo<DeploymentRecord> {
  /** The held records, by id, that `#settled` was checked against. */
  #held: ReadonlyMap<string, DeploymentRecord> = new Map();
  /** Pages of the last complete listing whose every record is held, by digest. */
  #settled = new Map<string, Remembered>();
  /** Pages of the listing under way (parsed or recalled), by digest. */
  #noted = new Map<string, ParsedPage<DeploymentRecord>>();

  recall(digest: string): ParsedPage<DeploymentRecord> | undefined {
    const entry = this.#settled.get(digest);
    if (!entry) return undefined;
    const items: DeploymentRecord[] = [];
    for (const id of entry.ids) {
      const record = this.#held.get(id);
      if (!record) return undefined;
      items.push(record);
    }
    const page = { items, rejected: entry.rejected, unsupported: entry.unsupported, offset: entry.offset };
    this.#noted.set(digest, page);
    return page;
  }

  note(digest: string, page: ParsedPage<DeploymentRecord>): void {
    this.#noted.set(digest, page);
  }

  /**
   * The listing under way completed and the poller now holds `held`: its pages whose every record
   * is the very one held are remembered for the next listing, the others forgotten.
   */
  settle(held: ReadonlyMap<string, DeploymentRecord>): void {
    const settled = new Map<string, Remembered>();
    for (const [digest, page] of this.#noted) {
      if (!page.items.every((record) => held.get(record.id) === record)) continue;
      settled.set(digest, {
        ids: page.items.map((record) => record.id),
        rejected: page.rejected,
        unsupported: page.unsupported,
        offset: page.offset,
      });
    }
    this.#held = held;
    this.#settled = settled;
    this.#noted = new Map();
  }

  /** The listing under way failed: what it noted is dropped, the last complete one still counts. */
  abandon(): void {
    this.#noted = new Map();
  }

  /** Pages remembered (for tests and the bench). */
  get size(): number {
    return this.#settled.size;
  }
}
