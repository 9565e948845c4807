import { TOTAL_COUNT_HEADER } from '../listing-total.ts';
import type { Reply } from './router.ts';
import type { CountedPage } from './store.ts';

/**
 * The answer to a list request: the interface's envelope `{resources, offset}` as the body, and
 * our extension, `X-Total-Count`, as a header (ADR 0003) so that the body stays exactly what the
 * interface document shows.
 */
export function listReply<T>({ page, total }: CountedPage<T>): Reply {
  return { status: 200, body: page, headers: { [TOTAL_COUNT_HEADER]: String(total) } };
}
