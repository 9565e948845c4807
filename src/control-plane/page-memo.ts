/**
 * Pages of a listing recognised by their bytes (ADR 0016): an unchanged listing of 10,000
 * deployments is 100 pages the agent parsed, validated and compared at every poll to learn that
 * nothing changed. A caller that keeps a `PageMemo` is asked, for each page, whether the exact
 * bytes of it (their sha256) gave a page it still vouches for; only a page whose bytes are new is
 * parsed. sha256 and not a cheaper hash: the control plane is not trusted, and a page it could
 * make collide with another would be taken unread.
 */
import { createHash } from 'node:crypto';
import type { ParsedPage } from '../contract/index.ts';
import { type Answer, type Call, parseJson } from './client-http.ts';

/** What a listing's caller remembers of its pages, by the digest of their bytes. */
export interface PageMemo<T> {
  /**
   * The page that bytes of this digest gave before, as the caller still holds it; undefined to
   * have the page parsed. It must be exactly what parsing the same bytes gives.
   */
  recall(digest: string): ParsedPage<T> | undefined;
  /** A page parsed from bytes of this digest. */
  note(digest: string, page: ParsedPage<T>): void;
}

/** The digest a page is remembered by: sha256 of its bytes as received. */
export function pageDigest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64');
}

/** The page `memo` remembers for a `raw` answer's bytes, else the page parsed from them (and noted). */
export function recallOrParse<T>(
  call: Pick<Call, 'method' | 'route'>,
  answer: Answer,
  parse: (body: unknown) => ParsedPage<T>,
  memo: PageMemo<T>,
): ParsedPage<T> {
  const bytes = answer.bytes ?? Buffer.alloc(0);
  const digest = pageDigest(bytes);
  const known = memo.recall(digest);
  if (known) return known;
  const page = parse(parseJson(call, bytes.toString('utf8')));
  memo.note(digest, page);
  return page;
}
