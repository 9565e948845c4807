/**
 * The poller: every interval (jittered up to 10% sooner) it lists every page of the remote-reconciled
 * deployments, keeps the ones assigned to this listener, and resolves each to its desired state
 * (desired-resolver.ts). It hands the poll on as one `PollCycle` (poll-cycle.ts): each deployment
 * as soon as its revision is in, so that a cold start's applies do not wait for every revision
 * read, then the complete snapshot. A deployment that changed goes as soon as its page is in
 * (early-changes.ts); the rest once the listing is complete. A page whose bytes are those of the
 * last complete listing's is not parsed again (listing-pages.ts). A failed listing makes no cycle
 * unless a change went early; a poll failing later fails its cycle: nothing but those changes acts
 * on a partial view, and only a complete snapshot feeds deletions and the orphan pass.
 * Failures back off (src/backoff.ts: capped at the interval, so the agent recovers within one
 * interval of the control plane's return) and a server's Retry-After is honoured.
 */
import equal from 'fast-deep-equal';
import pMap from 'p-map';
import { backoffDelay, pollBackoff } from '../backoff.ts';
import { CONTROL_PLANE_CONNECTIONS } from '../control-plane/client-http.ts';
import type { ControlPlaneClient } from '../control-plane/client.ts';
import type { DeploymentRecord } from '../contract/index.ts';
import { errorCode, MooringError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { type Clock, sleep, systemClock } from './clock.ts';
import { type CollisionRules, DesiredResolver } from '../reconcile/desired-resolver.ts';
import { CollisionMemo } from '../reconcile/collision-memo.ts';
import { ListingPages } from './listing-pages.ts';
import { openPollCycle, type PollCycle, type Snapshot } from './poll-cycle.ts';
import { EarlyChanges } from './early-changes.ts';
import { safeErr } from './safe-error.ts';
import { CustomUrls } from '../render/url-claims.ts';

export type { DesiredDeployment, PollCycle, Snapshot } from './poll-cycle.ts';
export { desiredStateHash, MAX_RECORD_DEPTH } from '../reconcile/record-digest.ts';

/** Polls start up to this fraction of the interval sooner than it (never later). */
export const POLL_JITTER = 0.1;

/**
 * Revision reads in flight at once while a poll resolves its deployments: as many as the client
 * has connections (more would only wait in its pool).
 */
const REVISION_FETCH_CONCURRENCY = CONTROL_PLANE_CONNECTIONS;

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
  /** Told how many deployments the listing holds for this listener, before any revision is read. */
  onListed?: (deployments: number) => void;
  /**
   * The deployments this replica works on (the shards it holds, ADR 0015); the others are listed
   * and count for collisions, but no revision of theirs is read and none is handed on. Default all.
   */
  scope?: (() => ((deploymentId: string) => boolean) | undefined) | undefined;
  /**
   * Whether the record of a deployment is kept until the next poll (default all): one that waits
   * for memory is not (its record is parsed again from the next listing).
   */
  retains?: (deploymentId: string) => boolean;
}

export class Poller {
  readonly #o: PollerOptions & { clock: Clock; random: () => number };
  readonly #resolver: DesiredResolver;
  /**
   * This listener's records of the last complete listing, by id. A record listed again unchanged
   * is the one kept, and the raw copy is neither parsed nor kept (`#known`): otherwise every poll
   * holds two copies of every record until the listing is complete (bench/README.md, "Measured decisions").
   */
  #held = new Map<string, DeploymentRecord>();
  /** Ids of `#held` records of other shards' deployments (listed, never resolved). */
  #others = new Set<string>();
  /** Pages of the last complete listing, recognised by their bytes (listing-pages.ts). */
  readonly #pages = new ListingPages();
  /**
   * custom_url -> the deployment that kept it at the last poll (it keeps it while it has it). A
   * poller lives for one term: a new leader starts from the older-keeps rule.
   */
  #urlHolders = new Map<string, string>();
  /** The records' custom_url, parsed once per record for the poller's life. */
  readonly #customUrls = new CustomUrls();
  readonly #collisions = new CollisionMemo();
  #failures = 0;
  #nextDueAtMs: number | undefined;
  #cycleStartedAtMs: number | undefined;
  #lastRejectedKey = '';

  constructor(options: PollerOptions) {
    this.#o = { clock: systemClock, random: Math.random, ...options };
    this.#resolver = options.resolver ?? new DesiredResolver(options.client);
  }

  /** When the loop means to poll next (liveness: a loop far past this is stalled). */
  get nextDueAtMs(): number | undefined {
    return this.#nextDueAtMs;
  }

  /** When the current cycle started, while one is running (liveness: a cycle may hang). */
  get cycleStartedAtMs(): number | undefined {
    return this.#cycleStartedAtMs;
  }

  /** Polls now and then every interval until `signal` aborts. Never throws. */
  async run(signal: AbortSignal): Promise<void> {
    const { clock, logger, intervalMs } = this.#o;
    while (!signal.aborted) {
      let delayMs: number;
      this.#nextDueAtMs = undefined;
      this.#cycleStartedAtMs = clock.now();
      try {
        await this.pollOnce();
        if (signal.aborted) break;
        // The next poll starts at most one interval after this one started (jittered up to 10%
        // sooner, so replicas and agents spread out): a change waits at most one interval, however
        // long the listing and the orphan pass took.
        const elapsedMs = clock.now() - (this.#cycleStartedAtMs ?? clock.now());
        delayMs = Math.max(0, Math.round(intervalMs * (1 - POLL_JITTER * this.#o.random())) - elapsedMs);
      } catch (err) {
        if (signal.aborted) break;
        delayMs = this.#failureDelay(err);
        logger.warn(
          { err: safeErr(err), code: errorCode(err), failures: this.#failures, retryInMs: delayMs },
          'poll failed; no snapshot this cycle',
        );
      }
      this.#cycleStartedAtMs = undefined;
      this.#nextDueAtMs = clock.now() + delayMs;
      try {
        await sleep(clock, delayMs, signal);
      } catch {
        break;
      }
    }
  }

  /**
   * One complete listing with chosen revisions, handed on as a cycle (`onCycle`) and returned
   * once the cycle's consumer is done with it. Throws (and counts a failure) when the listing is
   * incomplete; a revision that cannot be fetched refuses only its deployment for this cycle.
   * What the consumer throws is thrown too, but is no failure of the poll. A deployment that
   * changed is handed on as soon as its page is in (early-changes.ts), before the listing is complete.
   */
  async pollOnce(): Promise<Snapshot> {
    const { clock, client, listenerId, logger } = this.#o;
    const started = clock.now();
    let consumed: Promise<{ ok: true } | { ok: false; err: unknown }> | undefined;
    let snapshot: Snapshot;
    let writer: ReturnType<typeof openPollCycle> | undefined;
    // Handed on once, at its first deployment or when the listing is complete, whichever is first:
    // the consumer decides what this poll does while nothing of it is queued yet.
    const open = (): ReturnType<typeof openPollCycle> => {
      if (writer) return writer;
      const cycle = openPollCycle();
      writer = cycle;
      consumed = (async () => this.#o.onCycle?.(cycle.cycle))().then(
        () => ({ ok: true as const }),
        (err: unknown) => ({ ok: false as const, err }),
      );
      return cycle;
    };
    // The scope as the poll starts, for its early changes; the complete listing reads it again.
    let inScope = this.#o.scope?.();
    const early = new EarlyChanges({
      held: this.#held,
      others: this.#others,
      listenerId,
      inScope,
      resolver: this.#resolver,
      open,
    });
    try {
      const listing = await client.listAllDeployments(
        { remote_reconciled: true },
        {
          known: (raw) => this.#known(raw),
          memo: this.#pages,
          onPage: (page) => early.page(page),
        },
      );
      const unsupported = new Map(listing.unsupported.map((u) => [u.id, u.reason]));
      const ours = listing.items.filter((d) => d.source_config.listener_id === listenerId);
      inScope = this.#o.scope?.();
      const scoped = inScope;
      const mine = scoped ? ours.filter((d) => scoped(d.id)) : ours;
      this.#o.onListed?.(mine.length);
      const { refused: collided, urlHolders } = this.#collisions.of(
        ours,
        this.#o.collisions ?? {},
        this.#urlHolders,
        this.#customUrls,
      );
      this.#urlHolders = urlHolders;
      const cycle = open();
      // Revisions not yet cached (all of them at start-up) are fetched a few at a time, in order;
      // each deployment is handed on as soon as its own is in. One handed on early is handed on
      // again only when the complete listing says otherwise of it (a later copy, a collision).
      const deployments = await pMap(
        mine,
        async (deployment) => {
          const reason = unsupported.get(deployment.id);
          const collision = collided.get(deployment.id);
          const handed = early.handed(deployment, reason, collision);
          if (handed) return handed;
          const d = await this.#resolver.resolve(deployment, reason, collision);
          cycle.ready(d);
          return d;
        },
        { concurrency: REVISION_FETCH_CONCURRENCY },
      );
      const retains = this.#o.retains ?? (() => true);
      this.#resolver.pruneCache(deployments, retains);
      // Only what was digested: a refused record (one nested too deep, say) is never compared.
      this.#held = new Map(
        deployments
          .filter((d) => !d.refused && retains(d.deployment.id))
          .map((d) => [d.deployment.id, d.deployment]),
      );
      // Another shard's records are kept too, so that their next listing is not parsed again
      // (never resolved, so never handed on early: `#others`).
      this.#others = new Set();
      if (mine !== ours)
        for (const d of ours)
          if (!inScope?.(d.id)) {
            this.#held.set(d.id, d);
            this.#others.add(d.id);
          }
      this.#pages.settle(this.#held);
      // Log refused records when the set changes, not at every poll.
      const rejectedKey = listing.rejected.map((r) => `${r.id ?? r.index}:${r.reason}`).join('|');
      if (rejectedKey !== this.#lastRejectedKey) {
        this.#lastRejectedKey = rejectedKey;
        for (const r of listing.rejected) {
          logger.warn({ deploymentId: r.id, code: r.code, reason: r.reason }, 'deployment record refused');
        }
      }
      this.#failures = 0;
      this.#o.onPoll?.('success', clock.now() - started);
      snapshot = { deployments, rejected: listing.rejected, atMs: clock.now() };
    } catch (err) {
      this.#failures += 1;
      this.#pages.abandon();
      this.#o.onPoll?.('failure', clock.now() - started);
      writer?.fail(err);
      await consumed;
      throw err;
    }
    open().complete(snapshot);
    const outcome = await consumed;
    if (outcome && !outcome.ok) throw outcome.err;
    return snapshot;
  }

  /**
   * The record held (see `#held`) when the raw one just listed says the same, member by member;
   * else undefined, and the raw record is parsed. An idle poll at 10,000 deployments spent most of
   * its CPU making sure that nothing changed: parsing every record again, then digesting it (a
   * sorted copy, its text and a sha256) to compare. A record that changed is digested once, when
   * it is resolved.
   */
  #known(raw: unknown): DeploymentRecord | undefined {
    const { id, updated_at: updatedAt } = (raw ?? {}) as { id?: unknown; updated_at?: unknown };
    const held = typeof id === 'string' ? this.#held.get(id) : undefined;
    if (held === undefined || held.updated_at !== updatedAt) return undefined;
    try {
      return equal(held, raw) ? held : undefined;
    } catch (err) {
      // Nested too deep to compare: parsed, then the resolver refuses it alone.
      if (err instanceof RangeError) return undefined;
      throw err;
    }
  }

  /** The poll's backoff (src/backoff.ts); a Retry-After hint wins when longer. */
  #failureDelay(err: unknown): number {
    const policy = pollBackoff(this.#o.intervalMs, this.#o.backoffBaseMs);
    const hint = err instanceof MooringError ? (err.retryAfterMs ?? 0) : 0;
    return Math.max(backoffDelay(policy, this.#failures, this.#o.random), hint);
  }
}
