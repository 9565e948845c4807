/**
 * The settings of Lease timing and sharding (rows of the settings table), and their checks taken
 * together: a lease too short to renew within, and shards without leader election (several
 * replicas would each write every shard).
 */
import type { Setting } from './setting.ts';

/** `--lease-duration` and `--shards`, after `--lease-namespace` in the settings table. */
export const LEASE_SETTINGS_ROWS: readonly Setting[] = [
  {
    key: 'leaseDuration',
    flag: 'lease-duration',
    env: 'MOORING_LEASE_DURATION',
    kind: 'seconds',
    value: '15',
    defaultText: '15',
    unit: 'seconds',
    description:
      'how long a Lease holds without renewal (at least 3); the holder gives up after 2/3 of it and retries every 2/15',
  },
  {
    key: 'shards',
    flag: 'shards',
    env: 'MOORING_SHARDS',
    kind: 'int',
    value: '1',
    defaultText: '1',
    description:
      "split the listener's deployments into N shards (1-256), each on its own Lease; N > 1 needs --leader-election",
  },
];

/** The most shards: each costs every replica two Lease requests a retry period. */
export const MAX_SHARDS = 256;

/** The shortest `--lease-duration`: its retry period (2/15) must leave a request time to finish. */
export const MIN_LEASE_DURATION_SECONDS = 3;

/** A problem line that carries its own code (`agent-flags.ts` prints it with that code). */
export const SHARDS_INVALID = 'MOORING_E_SHARDS_INVALID';

/**
 * Adds a line to `problems` for each Lease setting that cannot work: `--lease-duration` under 3 s,
 * `--shards` over 256, or above 1 without `--leader-election`.
 */
export function leaseProblems(
  values: Record<string, unknown>,
  durationLabel: string,
  shardsLabel: string,
  problems: string[],
): void {
  const duration = values.leaseDuration as number | undefined;
  if (duration !== undefined && duration < MIN_LEASE_DURATION_SECONDS)
    problems.push(
      `${durationLabel}: must be at least ${MIN_LEASE_DURATION_SECONDS} seconds (got "${duration}")`,
    );
  const shards = values.shards as number | undefined;
  if (shards === undefined) return;
  if (shards > MAX_SHARDS)
    problems.push(`${SHARDS_INVALID}: ${shardsLabel}: must be at most ${MAX_SHARDS} (got "${shards}")`);
  else if (shards > 1 && values.leaderElection !== true)
    problems.push(
      `${SHARDS_INVALID}: ${shardsLabel}: ${shards} shards need --leader-election (MOORING_LEADER_ELECTION): without it every replica would write every shard`,
    );
}
