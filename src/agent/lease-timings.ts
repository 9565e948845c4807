/** The timings of a Lease held by leader election (leader-election.ts). */

/**
 * The renew deadline and retry period for a lease duration, in client-go's 15/10/2 ratio: the
 * holder gives up well before the lease expires, so a new holder never overlaps a writing one.
 */
export function leaseTimings(leaseDurationMs: number): {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
} {
  return {
    leaseDurationMs,
    renewDeadlineMs: Math.round((leaseDurationMs * 2) / 3),
    retryPeriodMs: Math.round((leaseDurationMs * 2) / 15),
  };
}
