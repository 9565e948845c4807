/**
 * Items per page of a list call. Items are parsed and reduced one by one as they arrive, but a
 * cold start's judged page is held parsed until judged, so its size bounds memory there. The sizes
 * make pages of about as many bytes whatever they hold (a workload's metadata is about half its
 * object; slim-listing.ts). `coldStart` pages a cold start's whole listing of the smaller kinds;
 * its workloads come in pages of `wholeObjects` (bench/README.md, "Measured decisions").
 */
export const LIST_PAGE_SIZE = {
  wholeObjects: 100,
  metadataOnly: 500,
  workloadMetadata: 200,
  coldStart: 250,
} as const;

/** A page size, or a function asked again before each page (smaller pages while memory is tight). */
export type PageSize = number | (() => number);

/** The size to ask for now: at least one item. */
export function pageSizeNow(size: PageSize): number {
  return Math.max(1, Math.round(typeof size === 'number' ? size : size()));
}
