/**
 * Clock skew against a server, from its `Date` header: a token's or certificate's validity, and
 * every timestamp the agent compares with the server's, assume clocks within a few seconds.
 */
import { type CheckResult, result } from './result.ts';

/** Skew beyond this fails the check; the header's one-second resolution and a round trip stay below it. */
export const MAX_CLOCK_SKEW_S = 30;

/** The skew check against `server` from the `Date` header of an answer received at `nowMs`. */
export function clockSkewCheck(
  server: string,
  date: string | string[] | undefined,
  nowMs: number,
): CheckResult {
  const name = `clock skew against the ${server}`;
  const text = Array.isArray(date) ? date[0] : date;
  const at = text ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) return result(name, 'warn', 'the answer had no Date header: not measured');
  const skewS = Math.round((nowMs - at) / 1000);
  const detail = `${Math.abs(skewS)} s ${skewS >= 0 ? 'ahead of' : 'behind'} it (at most ${MAX_CLOCK_SKEW_S} s)`;
  if (Math.abs(skewS) <= MAX_CLOCK_SKEW_S) return result(name, 'ok', detail);
  return result(name, 'fail', detail, {
    fix: "synchronise this machine's clock (NTP) or the server's",
  });
}
