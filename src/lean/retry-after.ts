/**
 * The `Retry-After` header (RFC 9110 §10.2.3), as both of the agent's HTTP clients read it: the
 * control plane's and the Kubernetes API's.
 */

/**
 * `Retry-After` as milliseconds: delta-seconds or an HTTP date, capped at `capMs`; undefined
 * when absent or unreadable.
 */
export function parseRetryAfter(
  value: string | undefined,
  capMs: number,
  nowMs = Date.now(),
): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  let ms: number;
  if (/^\d+$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    const date = Date.parse(trimmed);
    if (Number.isNaN(date)) return undefined;
    ms = date - nowMs;
  }
  return Math.min(Math.max(ms, 0), capMs);
}
