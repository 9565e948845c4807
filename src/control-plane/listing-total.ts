/**
 * The listing total: our extension of the interface's list envelope (ADR 0003). The reference
 * control plane answers every list request (deployments, revisions, listeners) with
 * `X-Total-Count: <n>`, the number of records matching the query, counted in the same read as the
 * page. With it a client ends a walk on a full last page without asking for an empty one. The
 * interface does not define the header, so a server may leave it out, and a client must then
 * walk as docs/control-plane.md says: until a page shorter than the limit arrives.
 */

/** The response header (lower case, as Node and undici present header names). */
export const TOTAL_COUNT_HEADER = 'x-total-count';

/** Header values as Node and undici give them. */
export type HeaderValue = string | string[] | undefined;

/**
 * The total a header states, or undefined when it states none we can rely on: absent, repeated,
 * not a plain decimal integer, or beyond exact integers. Leading zeros are accepted (`007` is 7);
 * signs, spaces inside, exponents and fractions are not.
 */
export function parseTotalCount(value: HeaderValue): number | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (!/^[0-9]{1,16}$/.test(text)) return undefined;
  const total = Number(text);
  return Number.isSafeInteger(total) ? total : undefined;
}

/** What the client knows after one page of a walk. */
export interface PageFacts {
  /** The page size asked for. */
  limit: number;
  /** The offset the page was asked for at. */
  requestedOffset: number;
  /** Records on the page (kept and refused alike: both were sent). */
  count: number;
  /** The `offset` the page's envelope gave (where the next page starts). */
  nextOffset: number;
  /** The page's `X-Total-Count`, raw. */
  totalHeader: HeaderValue;
}

/** Whether a walk ends after a page, and why. */
export interface PageVerdict {
  /** True when no further page is read. */
  last: boolean;
  /**
   * What ended the walk: `short` (a page shorter than the limit: docs/control-plane.md's rule, applied
   * first) or `total` (a full page that reaches the header's total exactly).
   */
  endedBy?: 'short' | 'total';
  /** Why a total on a full page was not relied on (for a debug line); never set on a short page. */
  ignoredTotal?: 'unparsable' | 'smaller than the records received' | 'page offset does not follow';
}

/**
 * Decides whether a walk ends after this page. The header may only end a walk early, on a full
 * page, and only when it agrees with the page exactly: the total equals the records seen so far
 * (`requestedOffset + count`) and the envelope's offset points there too. A total that is absent,
 * unparsable, smaller than what was already received, or paired with an offset that does not
 * follow the interface's arithmetic is ignored, and the walk goes on to the short-page rule, so a
 * wrong header costs requests, never records. A header can never extend a walk: a short page ends
 * it whatever the total says.
 */
export function pageVerdict(facts: PageFacts): PageVerdict {
  if (facts.count < facts.limit) return { last: true, endedBy: 'short' };
  if (facts.totalHeader === undefined) return { last: false };
  const total = parseTotalCount(facts.totalHeader);
  if (total === undefined) return { last: false, ignoredTotal: 'unparsable' };
  const seen = facts.requestedOffset + facts.count;
  if (total < seen) return { last: false, ignoredTotal: 'smaller than the records received' };
  if (total > seen) return { last: false };
  if (facts.nextOffset !== seen) return { last: false, ignoredTotal: 'page offset does not follow' };
  return { last: true, endedBy: 'total' };
}
