import { TOTAL_COUNT_HEADER } from '../listing-total.ts';
import { JsonBytes } from './http-io.ts';
import type { Reply } from './router.ts';
import type { CountedPage, Page, StoredJson } from './store.ts';

/**
 * The answer to a list request: the interface's envelope `{resources, offset}` as the body, and
 * our extension, `X-Total-Count`, as a header (ADR 0003) so that the body stays exactly what the
 * interface document shows.
 */
export function listReply({ page, total }: CountedPage<StoredJson>): Reply {
  return { status: 200, body: envelope(page), headers: { [TOTAL_COUNT_HEADER]: String(total) } };
}

const OPEN = Buffer.from('{"resources":[');
const COMMA = Buffer.from(',');

/**
 * `{"resources":[...],"offset":N}` around the stored documents, as `JSON.stringify` of the page
 * writes it: the documents are spliced in unparsed, which is most of what a listing used to cost.
 */
export function envelope(page: Page<StoredJson>): JsonBytes {
  const parts: Uint8Array[] = [OPEN];
  page.resources.forEach((doc, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(doc);
  });
  parts.push(Buffer.from(`],"offset":${JSON.stringify(page.offset)}}`));
  return new JsonBytes(Buffer.concat(parts));
}
