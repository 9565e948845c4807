/**
 * The poller: every interval (jittered up to 10% sooner) it lists every page of the remote-reconciled
 * deployments, keeps the ones assigned to this listener, picks the revision each should run
 * (fetched once per revision id once its status is final, else at every poll), and hands a complete snapshot to the agent. Once
 * the listing is complete, each deployment is also handed on as soon as its revision is in
 * (`onDesired`), so that a cold start's applies do not wait for every revision read. A failed
 * listing produces no snapshot and hands nothing on: nothing downstream acts on a partial view,
 * and only a complete snapshot feeds the orphan pass.
 * Failures back off exponentially (capped at the interval, so the agent recovers within one
 * interval of the control plane's return) and a server's Retry-After is honoured.
 */
import { safeErr } from './safe-error.ts';
import { createHash } from 'node:crypto';
import equal from 'fast-deep-equal';
import pMap from 'p-map';
import { CONTROL_PLANE_CONNECTIONS } from '../control-plane/client-http.ts';
import type { ControlPlaneClient } from '../control-plane/client.ts';
import {
  type DeploymentRecord,
  FINAL_REVISION_STATUSES,
  type RejectedRecord,
  type RevisionRecord,
} from '../contract/index.ts';
import { type ErrorCode, errorCode, MooringError } from '../errors.ts';
import { canonicalJson } from '../objects/canonical-json.ts';
import type { Logger } from '../log.ts';
import { chooseRevision } from '../reconcile/revision-choice.ts';
import { detectCollisions } from '../render/names.ts';
import { nestedDeeperThan } from '../contract/depth.ts';
import { tenantMayUse } from '../render/references.ts';
import { type Clock, jitter, sleep, systemClock } from './clock.ts';

/** Polls start up to this fraction of the interval sooner than it (never later). */
export const POLL_JITTER = 0.1;

/**
 * Revision reads in flight at once while a poll resolves its deployments: as many as the client
 * has connections (more would only wait in its pool).
 */
const REVISION_FETCH_CONCURRENCY = CONTROL_PLANE_CONNECTIONS;

/** One deployment as the agent should make it, with the revision it runs. */
export interface DesiredDeployment {
  deployment: DeploymentRecord;
  /** The chosen revision, when there is one to run. */
  revision: RevisionRecord | undefined;
  /** sha256 of deployment + revision: a change means "reconcile now" (and unparks). Internal only. */
  hash: string;
  /** Set when the agent must not act on this deployment (a coded reason, no secret). */
  refused?: { code: string; message: string };
}

/** A complete view of this listener's deployments at one time. */
export interface Snapshot {
  deployments: DesiredDeployment[];
  /** Records refused by the client's tolerant parsing (malformed), with reasons. */
  rejected: RejectedRecord[];
  atMs: number;
}

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
  /** Receives each complete snapshot; the next poll waits for it. */
  onSnapshot: (snapshot: Snapshot) => Promise<void> | void;
  /** Told when a poll's listing is complete, before its revisions are fetched. */
  onListed?: () => void;
  /**
   * Receives each deployment's desired state as soon as its revision is in, before the snapshot
   * that holds it (which still follows, complete): work on it need not wait for the others.
   */
  onDesired?: (deployment: DesiredDeployment) => void;
  /** Metrics hook, once per cycle. */
  onPoll?: (result: 'success' | 'failure', durationMs: number) => void;
  /** Namespace → tenant id (`--namespace-tenants`); default none bound. */
  namespaceTenants?: Readonly<Record<string, string>>;
}

/**
 * Records nested deeper than this are refused alone. A real deployment is about 10 levels deep,
 * but the tolerant parse keeps unknown members, and the recursive walks downstream (canonical JSON
 * for hashes) overflow Node's default stack at a few thousand levels: the limit sits below that.
 */
export const MAX_RECORD_DEPTH = 2048;

/** Records (deployments, revisions) found within MAX_RECORD_DEPTH; a parsed record never changes. */
const withinDepth = new WeakSet<object>();

/** Digests by record object, made once: a parsed record is never changed. */
const digests = new WeakMap<object, string>();

function digestOf(record: object, text: () => string): string {
  let digest = digests.get(record);
  if (digest === undefined) {
    digest = createHash('sha256').update(text()).digest('hex');
    digests.set(record, digest);
  }
  return digest;
}

/** The digest of what a deployment record says; `updated_at` alone is not a change. */
function recordDigest(deployment: DeploymentRecord): string {
  return digestOf(deployment, () => {
    const { updated_at: _ignored, ...rest } = deployment;
    return canonicalJson(rest);
  });
}

/**
 * The hash of what a deployment should look like: its record (`updated_at` aside) and the
 * revision it runs. Each record's digest is made once, so a poll digests only what is new.
 */
export function desiredStateHash(deployment: DeploymentRecord, revision: RevisionRecord | undefined): string {
  const revisionDigest = revision ? digestOf(revision, () => canonicalJson(revision)) : '';
  return createHash('sha256')
    .update(`${recordDigest(deployment)}\u0000${revisionDigest}`)
    .digest('hex');
}

/**
 * Deployments any of whose object names an older deployment in the same namespace would use
 * (`detectCollisions`: every derived name, not only the base name): the oldest keeps its names,
 * the others are refused before anything of theirs is applied (until the collision is gone). A
 * deployment being deleted does not count: its objects are on their way out. Nor does one in a
 * namespace bound to another tenant: rendering refuses it, and it must not hold that tenant's
 * names against it.
 */
function collisionsOf(
  deployments: readonly DeploymentRecord[],
  namespaceTenants: Readonly<Record<string, string>>,
): Map<string, string> {
  const live = deployments.filter(
    (d) =>
      d.status !== 'AWAITING_DELETE' &&
      tenantMayUse(d, d.source_config?.listener_config?.k8s_namespace ?? '', namespaceTenants),
  );
  return new Map(detectCollisions(live).map((c) => [c.deploymentIds[1], c.reason]));
}

export class Poller {
  readonly #o: PollerOptions & { clock: Clock; random: () => number };
  readonly #revisions = new Map<string, RevisionRecord>();
  /**
   * This listener's records of the last complete listing, by id. A record listed again unchanged
   * is the one kept, and the raw copy is neither parsed nor kept (`#known`): otherwise every poll
   * holds two copies of every record until the listing is complete (bench/README.md, "Measured decisions").
   */
  #held = new Map<string, DeploymentRecord>();
  #failures = 0;
  #nextDueAtMs: number | undefined;
  #cycleStartedAtMs: number | undefined;
  #lastRejectedKey = '';

  constructor(options: PollerOptions) {
    this.#o = { clock: systemClock, random: Math.random, ...options };
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
        const snapshot = await this.pollOnce();
        if (signal.aborted) break;
        await this.#o.onSnapshot(snapshot);
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
   * One complete listing with chosen revisions. Throws (and counts a failure) when the listing is
   * incomplete; a revision that cannot be fetched refuses only its deployment for this cycle.
   */
  async pollOnce(): Promise<Snapshot> {
    const { clock, client, listenerId, logger } = this.#o;
    const started = clock.now();
    try {
      const listing = await client.listAllDeployments({ remote_reconciled: true }, (raw) => this.#known(raw));
      const unsupported = new Map(listing.unsupported.map((u) => [u.id, u.reason]));
      const ours = listing.items.filter((d) => d.source_config.listener_id === listenerId);
      const collided = collisionsOf(ours, this.#o.namespaceTenants ?? {});
      this.#o.onListed?.();
      // Revisions not yet cached (all of them at start-up) are fetched a few at a time, in order;
      // each deployment is handed on as soon as its own is in.
      const deployments = await pMap(
        ours,
        async (deployment) => {
          const d = await this.#desired(
            deployment,
            unsupported.get(deployment.id),
            collided.get(deployment.id),
          );
          this.#o.onDesired?.(d);
          return d;
        },
        { concurrency: REVISION_FETCH_CONCURRENCY },
      );
      this.#pruneCache(deployments);
      // Only what was digested: a refused record (one nested too deep, say) is never compared.
      this.#held = new Map(deployments.filter((d) => !d.refused).map((d) => [d.deployment.id, d.deployment]));
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
      return { deployments, rejected: listing.rejected, atMs: clock.now() };
    } catch (err) {
      this.#failures += 1;
      this.#o.onPoll?.('failure', clock.now() - started);
      throw err;
    }
  }

  /**
   * The record held (see `#held`) when the raw one just listed says the same, member by member;
   * else undefined, and the raw record is parsed. An idle poll at 10,000 deployments spent most of
   * its CPU making sure that nothing changed: parsing every record again, then digesting it (a
   * sorted copy, its text and a sha256) to compare. A record that changed is digested once, in
   * `#desired`.
   */
  #known(raw: unknown): DeploymentRecord | undefined {
    const { id, updated_at: updatedAt } = (raw ?? {}) as { id?: unknown; updated_at?: unknown };
    const held = typeof id === 'string' ? this.#held.get(id) : undefined;
    if (held === undefined || held.updated_at !== updatedAt) return undefined;
    try {
      return equal(held, raw) ? held : undefined;
    } catch (err) {
      // Nested too deep to compare: parsed, then `#desired` refuses it alone.
      if (err instanceof RangeError) return undefined;
      throw err;
    }
  }

  /** `nestedDeeperThan(record, MAX_RECORD_DEPTH)`, walked once per record object. */
  #tooDeep(record: object): boolean {
    if (withinDepth.has(record)) return false;
    if (nestedDeeperThan(record, MAX_RECORD_DEPTH)) return true;
    withinDepth.add(record);
    return false;
  }

  async #desired(
    deployment: DeploymentRecord,
    unsupported: string | undefined,
    collision: string | undefined,
  ): Promise<DesiredDeployment> {
    // A refused record is never queued, so its hash only has to be stable, not a digest.
    const refuse = (code: ErrorCode, message: string): DesiredDeployment => ({
      deployment,
      revision: undefined,
      hash: `refused:${deployment.id}`,
      refused: { code, message },
    });
    // A record nested absurdly deep (kept by the tolerant parse as unknown members) would overflow
    // every recursive walk downstream: it is refused alone, before anything walks it.
    if (this.#tooDeep(deployment)) {
      return refuse(
        'MOORING_E_RECORD_INVALID',
        `deployment ${deployment.id}: record nested deeper than ${MAX_RECORD_DEPTH} levels`,
      );
    }
    if (unsupported !== undefined) return refuse('MOORING_E_RECORD_UNSUPPORTED', unsupported);
    if (collision !== undefined) return refuse('MOORING_E_RENDER_NAME_COLLISION', collision);
    // Being deleted, it needs no revision: its reconcile removes what it owns whatever its revisions
    // say. A failed, missing or malformed revision would otherwise refuse it and keep its objects.
    if (deployment.status === 'AWAITING_DELETE') {
      return { deployment, revision: undefined, hash: desiredStateHash(deployment, undefined) };
    }
    // The interface does not promise secret values; without them nothing of it can be rendered.
    const valueless = (deployment.secrets ?? [])
      .filter((s) => typeof s.value !== 'string')
      .map((s) => s.name);
    if (valueless.length > 0) {
      return refuse(
        'MOORING_E_RECORD_INVALID',
        `deployment ${deployment.id}: secret${valueless.length > 1 ? 's' : ''} ${valueless.join(', ')} carr${valueless.length > 1 ? 'y' : 'ies'} no value; nothing of it is applied or pruned until the record carries every value`,
      );
    }
    try {
      const latestId = deployment.latest_revision_id;
      const latest = latestId ? await this.#revision(deployment.id, latestId) : undefined;
      const choice = chooseRevision(deployment, latest);
      if (choice.revisionId === undefined) {
        // No revision to run: the deployment's own source_revision_config is the latest values.
        if (latestId) return refuse('MOORING_E_RENDER_NO_IMAGE', choice.reason);
        return { deployment, revision: undefined, hash: desiredStateHash(deployment, undefined) };
      }
      const revision =
        choice.revisionId === latest?.id ? latest : await this.#revision(deployment.id, choice.revisionId);
      if (this.#tooDeep(revision)) {
        return refuse(
          'MOORING_E_RECORD_INVALID',
          `revision ${revision.id}: record nested deeper than ${MAX_RECORD_DEPTH} levels`,
        );
      }
      return { deployment, revision, hash: desiredStateHash(deployment, revision) };
    } catch (err) {
      // The safety net behind the depth check: a walk still ran out of stack on this record.
      if (err instanceof RangeError) {
        return refuse('MOORING_E_RECORD_INVALID', `deployment ${deployment.id}: record too large to process`);
      }
      // Refused alone: a revision the control plane does not have (404), or one it answers with
      // a malformed body (the listing itself was fine, so the control plane is up). Transport
      // failures still fail the whole poll: the control plane is down, nothing is acted on.
      if (err instanceof MooringError && (!err.retryable || err.code === 'MOORING_E_CP_BAD_RESPONSE')) {
        return refuse(err.code, err.message);
      }
      throw err;
    }
  }

  async #revision(deploymentId: string, revisionId: string): Promise<RevisionRecord> {
    const cached = this.#revisions.get(revisionId);
    if (cached) return cached;
    const revision = await this.#o.client.getRevision(deploymentId, revisionId);
    // Kept only once its status is final: one still moving is read again at the next poll, so
    // that a latest revision turning DEPLOY_FAILED falls back to the active one.
    if (FINAL_REVISION_STATUSES.has(String(revision.status))) this.#revisions.set(revisionId, revision);
    return revision;
  }

  /** Keeps only revisions the current deployments point at, so the cache cannot grow forever. */
  #pruneCache(deployments: DesiredDeployment[]): void {
    const keep = new Set<string>();
    for (const { deployment } of deployments) {
      if (deployment.latest_revision_id) keep.add(deployment.latest_revision_id);
      if (deployment.active_revision_id) keep.add(deployment.active_revision_id);
    }
    for (const id of [...this.#revisions.keys()]) if (!keep.has(id)) this.#revisions.delete(id);
  }

  /** Exponential from the base, capped at the interval; a Retry-After hint wins when longer. */
  #failureDelay(err: unknown): number {
    const { intervalMs } = this.#o;
    const base = this.#o.backoffBaseMs ?? Math.max(250, Math.floor(intervalMs / 8));
    const backoff = Math.min(intervalMs, base * 2 ** Math.min(this.#failures - 1, 20));
    const hint = err instanceof MooringError ? (err.retryAfterMs ?? 0) : 0;
    return Math.max(jitter(backoff, 0.1, this.#o.random), hint);
  }
}
