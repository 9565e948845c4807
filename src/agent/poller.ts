/**
 * The poller: every interval (jittered up to 10% sooner) it lists every page of the remote-reconciled
 * deployments, keeps the ones assigned to this listener, and resolves each to its desired state
 * (desired-resolver.ts). It hands the poll on as one `PollCycle` (poll-cycle.ts): each deployment
 * as soon as its revision is in, so that a cold start's applies do not wait for every revision
 * read, then the complete snapshot. A deployment that changed goes as soon as its page is in
 * (early-changes.ts); the rest once the listing is complete. A page whose bytes are those of the
 * last complete listing's is not parsed again (listing-pages.ts), and a record is held whole only
 * while this replica works on it (listed-records.ts). A failed listing makes no cycle
 * unless a change went early; a poll failing later fails its cycle: nothing but those changes acts
 * on a partial view, and only a complete snapshot feeds deletions and the orphan pass.
 * Failures back off (src/backoff.ts: capped at the interval, so the agent recovers within one
 * interval of the control plane's return) and a server's Retry-After is honoured.
 */
import pMap from 'p-map';
import { backoffDelay, pollBackoff } from '../backoff.ts';
import { CONTROL_PLANE_CONNECTIONS } from '../control-plane/client-http.ts';
import type { Listing } from '../control-plane/client.ts';
import type { DeploymentRecord } from '../contract/index.ts';
import { errorCode, MooringError } from '../errors.ts';
import { ListingPool, shareStrings } from '../objects/string-pool.ts';
import { type Clock, sleep, systemClock } from './clock.ts';
import { DesiredResolver } from '../reconcile/desired-resolver.ts';
import { CollisionMemo } from '../reconcile/collision-memo.ts';
import { ListingPages } from './listing-pages.ts';
import { type DesiredDeployment, openPollCycle, type Snapshot } from './poll-cycle.ts';
import { EarlyChanges } from './early-changes.ts';
import { ListedRecords } from './listed-records.ts';
import { isSketch, sketch } from './record-sketch.ts';
import type { PollerOptions } from './poller-options.ts';
import { safeErr } from './safe-error.ts';
import { CustomUrls } from '../render/url-claims.ts';

export type { DesiredDeployment, PollCycle, Snapshot } from './poll-cycle.ts';
export type { PollClient, PollerOptions } from './poller-options.ts';
export { desiredStateHash, MAX_RECORD_DEPTH } from '../reconcile/record-digest.ts';

/** Polls start up to this fraction of the interval sooner than it (never later). */
export const POLL_JITTER = 0.1;

/**
 * Revision reads in flight at once while a poll resolves its deployments: as many as the client
 * has connections (more would only wait in its pool).
 */
const REVISION_FETCH_CONCURRENCY = CONTROL_PLANE_CONNECTIONS;

/** Why one listed as a sketch waits when the heap had room again by the time its turn came. */
const LISTED_WAITING =
  'MOORING_E_MEMORY_SHORT: the heap had no room when this deployment was listed; it is taken at the next poll';

export class Poller {
  readonly #o: PollerOptions & { clock: Clock; random: () => number };
  readonly #resolver: DesiredResolver;
  /**
   * What is kept of the last complete listing's records (listed-records.ts). A record listed again
   * unchanged is the one kept, and the raw copy is neither parsed nor kept: otherwise every poll
   * holds two copies of every record until the listing is complete (bench/README.md, "Measured decisions").
   */
  readonly #records: ListedRecords;
  /** The scope of the listing under way (`#scopeOfListing`). */
  #listingScope: { inScope: ((deploymentId: string) => boolean) | undefined } | undefined;
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
    this.#records = new ListedRecords({ listenerId: options.listenerId, waits: options.waits });
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
    const { clock, client, logger } = this.#o;
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
    const early = new EarlyChanges({
      held: this.#records.held,
      listenerId: this.#o.listenerId,
      inScope: (id) => this.#scopeOfListing()?.(id) ?? true,
      resolver: this.#resolver,
      open,
    });
    try {
      await this.#o.beforeListing?.();
      this.#listingScope = undefined;
      const { mine, collided, unsupported, rejected } = this.#cut(
        await client.listAllDeployments(
          { remote_reconciled: true },
          {
            known: (raw) => this.#records.known(raw, this.#scopeOfListing()),
            slim: (record) => this.#records.slim(record, this.#scopeOfListing()),
            memo: this.#pages,
            onPage: (page) => early.page(page),
          },
        ),
      );
      const cycle = open();
      // Revisions not yet cached (all of them at start-up) are fetched a few at a time, in order;
      // each deployment is handed on as soon as its own is in. One handed on early is handed on
      // again only when the complete listing says otherwise of it (a later copy, a collision).
      const pool = new ListingPool();
      let sketchedWhole = false;
      const deployments = await pMap(
        mine,
        async (deployment) => {
          const reason = unsupported.get(deployment.id);
          const collision = collided.get(deployment.id);
          const handed = early.handed(deployment, reason, collision);
          if (handed) return handed;
          // One that would wait for memory goes on without its revision read (PollerOptions.waits),
          // as its sketch; so does one listed as a sketch, which cannot be resolved.
          const waits =
            reason === undefined && !collision
              ? (this.#o.waits?.(deployment) ?? (isSketch(deployment) ? LISTED_WAITING : undefined))
              : undefined;
          sketchedWhole ||= waits !== undefined && !isSketch(deployment);
          const d: DesiredDeployment =
            waits === undefined
              ? await this.#resolver.resolve(deployment, reason, collision)
              : { deployment: sketch(deployment), revision: undefined, hash: '', waitsForMemory: waits };
          if (waits === undefined) this.#shareParsed(d, pool);
          cycle.ready(d);
          return d;
        },
        { concurrency: REVISION_FETCH_CONCURRENCY },
      );
      const retains = this.#o.retains ?? (() => true);
      this.#resolver.pruneCache(deployments, retains);
      // The collision memo holds the listing's records: whole ones now sketched must go.
      if (this.#records.settle(deployments, retains) || sketchedWhole) this.#collisions.forget();
      this.#pages.settle(this.#records.held);
      // Log refused records when the set changes, not at every poll.
      const rejectedKey = rejected.map((r) => `${r.id ?? r.index}:${r.reason}`).join('|');
      if (rejectedKey !== this.#lastRejectedKey) {
        this.#lastRejectedKey = rejectedKey;
        for (const r of rejected) {
          logger.warn({ deploymentId: r.id, code: r.code, reason: r.reason }, 'deployment record refused');
        }
      }
      this.#failures = 0;
      this.#o.onPoll?.('success', clock.now() - started);
      snapshot = { deployments, rejected, atMs: clock.now() };
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
   * This listener's deployments of `listing` in `inScope`, with the collisions judged over all of
   * them; the other shards' records are kept as sketches only. Apart from the poll so that the
   * listing's whole records are garbage while the revisions of this replica's are read.
   */
  #cut(listing: Listing<DeploymentRecord>) {
    const inScope = this.#scopeOfListing();
    const { listenerId } = this.#o;
    const ours = listing.items.filter((d) => d.source_config?.listener_id === listenerId);
    const mine = inScope ? ours.filter((d) => inScope(d.id)) : ours;
    this.#o.onListed?.(ours.length);
    const { refused: collided, urlHolders } = this.#collisions.of(
      ours,
      this.#o.collisions ?? {},
      this.#urlHolders,
      this.#customUrls,
    );
    this.#urlHolders = urlHolders;
    this.#records.keepOthers(inScope ? ours.filter((d) => !inScope(d.id)) : []);
    return {
      mine,
      collided,
      unsupported: new Map(listing.unsupported.map((u) => [u.id, u.reason])),
      rejected: listing.rejected,
    };
  }

  /**
   * A record this poll parsed (not the held one) and its revision share their equal short strings
   * through the poll's pool, before anyone is handed them (the redactor, the status keep what they
   * are given): JSON parsing makes a new string for every value, and a fleet's records repeat most
   * of theirs (images, paths, variable names, the listener's id). The pool goes with the poll, so
   * nothing outlives the records that hold it.
   */
  #shareParsed({ deployment, revision, refused }: DesiredDeployment, pool: ListingPool): void {
    // A refused record is left as it is: one nested too deep would overflow the walk.
    if (refused || this.#records.held.get(deployment.id) === deployment) return;
    shareStrings(deployment, pool);
    if (revision) shareStrings(revision, pool);
  }

  /**
   * One scope for a whole listing, taken when its first record arrives (the shards a replica gains
   * in one round are all held by then): a sketch is given only for an id outside it, so none is
   * ever handed on as a deployment of this replica.
   */
  #scopeOfListing(): ((deploymentId: string) => boolean) | undefined {
    this.#listingScope ??= { inScope: this.#o.scope?.() };
    return this.#listingScope.inScope;
  }

  /** The poll's backoff (src/backoff.ts); a Retry-After hint wins when longer. */
  #failureDelay(err: unknown): number {
    const policy = pollBackoff(this.#o.intervalMs, this.#o.backoffBaseMs);
    const hint = err instanceof MooringError ? (err.retryAfterMs ?? 0) : 0;
    return Math.max(backoffDelay(policy, this.#failures, this.#o.random), hint);
  }
}
