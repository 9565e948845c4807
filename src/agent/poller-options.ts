/** What a `Poller` (poller.ts) is given: its control plane, listener, timing and hooks. */
import type { ControlPlaneClient } from '../control-plane/client.ts';
import type { DeploymentRecord } from '../contract/index.ts';
import type { Logger } from '../log.ts';
import type { CollisionRules, DesiredResolver } from '../reconcile/desired-resolver.ts';
import type { Clock } from './clock.ts';
import type { PollCycle } from './poll-cycle.ts';

export type PollClient = Pick<ControlPlaneClient, 'listAllDeployments' | 'getRevision'>;

export interface PollerOptions {
  client: PollClient;
  listenerId: string;
  /** Time between polls. */
  intervalMs: number;
  /** First delay after a failure. Default interval / 8 (at least 250 ms). */
  backoffBaseMs?: number;
  clock?: Clock;
  random?: () => number;
  logger: Logger;
  /**
   * Receives each poll, once its listing is complete (see poll-cycle.ts); the poll (and the
   * next one) waits for what it returns.
   */
  onCycle?: (cycle: PollCycle) => Promise<void> | void;
  /** Metrics hook, once per cycle. */
  onPoll?: (result: 'success' | 'failure', durationMs: number) => void;
  /** What makes two deployments collide (names by tenant, URLs when exposed); default names only. */
  collisions?: CollisionRules;
  /** The resolver of its deployments (one seeded by a restart memo); default a new one. */
  resolver?: DesiredResolver | undefined;
  /**
   * Told how many deployments the listing holds for this listener (every shard's: a replica may
   * come to hold them all), before any revision is read.
   */
  onListed?: (deployments: number) => void;
  /**
   * The deployments this replica works on (the shards it holds, ADR 0015), asked once before each
   * listing; the others are listed and count for collisions, but only their sketch is kept
   * (record-sketch.ts), no revision of theirs is read and none is handed on. Default all.
   */
  scope?: (() => ((deploymentId: string) => boolean) | undefined) | undefined;
  /**
   * Whether the record of a deployment is kept until the next poll (default all): one that waits
   * for memory is not (its record is parsed again from the next listing).
   */
  retains?: (deploymentId: string) => boolean;
  /**
   * Why `deployment` would wait for memory if it were handed on now, or undefined when it would
   * be taken (DeploymentBook.waitsForMemory). One that would wait is handed on without its
   * revision read: holding every listed deployment's revision is itself more than a heap far too
   * small has.
   */
  waits?: (deployment: DeploymentRecord) => string | undefined;
  /** Awaited before each listing, so that `waits` knows what the restart memo vouches for. */
  beforeListing?: (() => Promise<void>) | undefined;
}
