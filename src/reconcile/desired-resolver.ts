/**
 * From listed records to desired deployments: which revision each should run (fetched once per
 * revision id once its status is final, else at every poll), its desired-state hash, or the coded
 * reason it is refused alone (nested too deep, unsupported, a name collision or a URL another
 * deployment keeps, secrets without values, a revision the control plane does not have).
 */
import type { ControlPlaneClient } from '../control-plane/client.ts';
import { type DeploymentRecord, FINAL_REVISION_STATUSES, type RevisionRecord } from '../contract/index.ts';
import { type ErrorCode, MooringError } from '../errors.ts';
import { chooseRevision } from './revision-choice.ts';
import { detectCollisions } from '../render/names.ts';
import { tenantMayUse } from '../render/references.ts';
import { CustomUrls, detectUrlClaims } from '../render/url-claims.ts';
import type { DesiredDeployment } from '../agent/poll-cycle.ts';
import { MAX_RECORD_DEPTH, RecordDigests } from './record-digest.ts';

/**
 * Deployments any of whose object names an older deployment in the same namespace would use
 * (`detectCollisions`: every derived name, not only the base name): the oldest keeps its names,
 * the others are refused before anything of theirs is applied (until the collision is gone). A
 * deployment being deleted holds its names until its objects are gone (`rules.holdsObjects`; its
 * kept volumes are judged by their labels, reconcile/identity.ts), and is never refused itself:
 * its deletion goes on. Nor does one in a
 * namespace bound to another tenant: rendering refuses it, and it must not hold that tenant's
 * names against it. With `urls` (exposure is on), a custom_url another deployment keeps
 * (`detectUrlClaims`: the one that held it at the previous poll, `urlHolders`, else the oldest)
 * refuses the others too. Returns the refusals by deployment id, and this poll's URL holders.
 * `customUrls` parses custom_url once per record (the poller keeps one).
 */
export function collisionsOf(
  deployments: readonly DeploymentRecord[],
  rules: CollisionRules,
  urlHolders: ReadonlyMap<string, string> = new Map(),
  customUrls: CustomUrls = new CustomUrls(),
): { refused: Map<string, Refusal>; urlHolders: Map<string, string> } {
  const mayUse = (d: DeploymentRecord) =>
    tenantMayUse(d, d.source_config?.listener_config?.k8s_namespace ?? '', rules.namespaceTenants ?? {});
  const deleting = (d: DeploymentRecord) => d.status === 'AWAITING_DELETE';
  const live = deployments.filter((d) => !deleting(d) && mayUse(d));
  // Unknown (no listing yet) counts as holding: a name is released only once seen free.
  const holding = deployments.filter((d) => deleting(d) && mayUse(d) && rules.holdsObjects?.(d.id) !== false);
  const out = new Map<string, Refusal>();
  const held = new Set(holding.map((d) => d.id));
  for (const c of detectCollisions(holding.length > 0 ? [...live, ...holding] : live)) {
    if (!held.has(c.deploymentIds[1])) out.set(c.deploymentIds[1], { code: c.code, message: c.reason });
  }
  const urls = rules.urls?.()
    ? detectUrlClaims(live, urlHolders, customUrls)
    : { claims: [], holders: new Map() };
  for (const c of urls.claims) {
    if (!out.has(c.deploymentIds[1])) out.set(c.deploymentIds[1], { code: c.code, message: c.reason });
  }
  return { refused: out, urlHolders: urls.holders };
}

/** What decides collisions between a listener's deployments. */
export interface CollisionRules {
  /** Namespace → tenant id (`--namespace-tenants`); default none bound. */
  namespaceTenants?: Readonly<Record<string, string>> | undefined;
  /** Whether deployments are exposed at their custom_url (then two may not share one); default not. */
  urls?: (() => boolean) | undefined;
  /**
   * Whether a deployment still owns objects other than its kept volumes, by the agent's latest
   * listing (undefined before one). A deployment being deleted holds its names while it does.
   */
  holdsObjects?: ((deploymentId: string) => boolean | undefined) | undefined;
}

/** A coded refusal of one deployment. */
interface Refusal {
  code: ErrorCode;
  message: string;
}

/** What a restart memo keeps of a revision whose status was final (ADR 0010): no content. */
export interface KnownRevision {
  id: string;
  status: string;
  /** `revisionDigest` of its record. */
  digest: string;
}

/**
 * Resolves deployments to their desired state, with a cache of final revisions. Seeded with the
 * revisions a restart memo knew (`seed`), it reads none of them: their status decides the choice
 * and their digest the hash, and the record itself is read only when the deployment is rendered
 * (`load`). A final revision never changes, so what the memo says of it still holds.
 */
export class DesiredResolver {
  readonly #client: Pick<ControlPlaneClient, 'getRevision'>;
  readonly #revisions = new Map<string, RevisionRecord>();
  readonly #seed: () => Promise<ReadonlyMap<string, KnownRevision> | undefined>;
  #known: Promise<Map<string, KnownRevision>> | undefined;
  /** Reads by `load` in flight, by revision id. */
  readonly #loading = new Map<string, Promise<RevisionRecord>>();
  /** The deployments of the last poll, by id (`knownOf`): the records the agent holds anyway. */
  #listed = new Map<string, DeploymentRecord>();
  /** The seed once read (`knownOf` is synchronous). */
  #knownSync: Map<string, KnownRevision> | undefined;
  /** Digests and depth checks of the records resolved, once per record object. */
  readonly #digests = new RecordDigests();

  constructor(
    client: Pick<ControlPlaneClient, 'getRevision'>,
    seed: () => Promise<ReadonlyMap<string, KnownRevision> | undefined> = async () => undefined,
  ) {
    this.#client = client;
    this.#seed = seed;
  }

  /** The seed, read once; a seed that fails is none. */
  #knownRevisions(): Promise<Map<string, KnownRevision>> {
    this.#known ??= this.#seed().then(
      (m) => {
        this.#knownSync = new Map(m ?? []);
        return this.#knownSync;
      },
      () => {
        this.#knownSync = new Map();
        return this.#knownSync;
      },
    );
    return this.#known;
  }

  /**
   * `deployment`'s desired state, or its refusal. Throws only when the control plane cannot be
   * reached (the whole poll fails then: nothing is acted on).
   */
  async resolve(
    deployment: DeploymentRecord,
    unsupported: string | undefined,
    collision: Refusal | undefined,
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
    if (this.#digests.tooDeep(deployment)) {
      return refuse(
        'MOORING_E_RECORD_INVALID',
        `deployment ${deployment.id}: record nested deeper than ${MAX_RECORD_DEPTH} levels`,
      );
    }
    if (unsupported !== undefined) return refuse('MOORING_E_RECORD_UNSUPPORTED', unsupported);
    if (collision !== undefined) return refuse(collision.code, collision.message);
    // Being deleted, it needs no revision: its reconcile removes what it owns whatever its revisions
    // say. A failed, missing or malformed revision would otherwise refuse it and keep its objects.
    if (deployment.status === 'AWAITING_DELETE') {
      return { deployment, revision: undefined, hash: this.#digests.desiredStateHash(deployment, undefined) };
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
      const known = await this.#knownRevisions();
      const latestId = deployment.latest_revision_id;
      // The latest's record when held or read; its status alone when the memo knew it.
      let latest: RevisionRecord | undefined;
      let latestStatus: KnownRevision | undefined;
      if (latestId) {
        latest = this.#revisions.get(latestId);
        latestStatus = latest ? undefined : known.get(latestId);
        if (!latest && !latestStatus) latest = await this.#revision(deployment.id, latestId);
      }
      const choice = chooseRevision(deployment, latest ?? latestStatus);
      if (choice.revisionId === undefined) {
        // No revision to run: the deployment's own source_revision_config is the latest values.
        if (latestId) return refuse('MOORING_E_RENDER_NO_IMAGE', choice.reason);
        const hash = this.#digests.desiredStateHash(deployment, undefined);
        return { deployment, revision: undefined, hash };
      }
      // Known to the memo and not read: the hash from its digest, the record when rendered.
      const memoized = this.#revisions.has(choice.revisionId) ? undefined : known.get(choice.revisionId);
      if (memoized) {
        return {
          deployment,
          revision: undefined,
          pendingRevision: memoized.id,
          hash: this.#digests.desiredStateHashOf(deployment, memoized.digest),
        };
      }
      const revision =
        choice.revisionId === latest?.id ? latest : await this.#revision(deployment.id, choice.revisionId);
      if (this.#digests.tooDeep(revision)) {
        return refuse(
          'MOORING_E_RECORD_INVALID',
          `revision ${revision.id}: record nested deeper than ${MAX_RECORD_DEPTH} levels`,
        );
      }
      return { deployment, revision, hash: this.#digests.desiredStateHash(deployment, revision) };
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

  /**
   * The revision a deployment resolved without reading (`pendingRevision`), read now to be
   * rendered. It must be the record the memo knew (its digest): one that is not (the control plane
   * rewrote a final revision) is forgotten and refused, so the next poll reads it and hashes it
   * anew. Nested too deep, it is refused as `resolve` refuses it.
   */
  async load(deploymentId: string, revisionId: string): Promise<RevisionRecord> {
    const known = (await this.#knownRevisions()).get(revisionId);
    // The cold listing's judge and the reconcile may want it at once: one read.
    let reading = this.#loading.get(revisionId);
    if (!reading) {
      reading = this.#revision(deploymentId, revisionId).finally(() => this.#loading.delete(revisionId));
      this.#loading.set(revisionId, reading);
    }
    const revision = await reading;
    if (this.#digests.tooDeep(revision)) {
      throw new MooringError(
        'MOORING_E_RECORD_INVALID',
        `revision ${revision.id}: record nested deeper than ${MAX_RECORD_DEPTH} levels`,
      );
    }
    if (known && known.digest !== this.#digests.revisionDigest(revision)) {
      this.#revisions.delete(revisionId);
      (await this.#knownRevisions()).delete(revisionId);
      throw new MooringError(
        'MOORING_E_CP_BAD_RESPONSE',
        `revision ${revisionId}: changed since the restart memo was written; read again at the next poll`,
      );
    }
    return revision;
  }

  /**
   * What a restart memo keeps of a deployment's revisions (by its id, as the last poll listed it):
   * those whose record this resolver holds or whose facts its seed gave, final each (latest and
   * active).
   */
  knownOf(deploymentId: string): KnownRevision[] {
    const deployment = this.#listed.get(deploymentId);
    const out: KnownRevision[] = [];
    if (!deployment) return out;
    for (const id of new Set([deployment.latest_revision_id, deployment.active_revision_id])) {
      if (!id) continue;
      const record = this.#revisions.get(id);
      if (record)
        out.push({ id, status: String(record.status), digest: this.#digests.revisionDigest(record) });
      else {
        const seeded = this.#knownSync?.get(id);
        if (seeded) out.push(seeded);
      }
    }
    return out;
  }

  async #revision(deploymentId: string, revisionId: string): Promise<RevisionRecord> {
    const cached = this.#revisions.get(revisionId);
    if (cached) return cached;
    const revision = await this.#client.getRevision(deploymentId, revisionId);
    // Kept only once its status is final: one still moving is read again at the next poll, so
    // that a latest revision turning DEPLOY_FAILED falls back to the active one.
    if (FINAL_REVISION_STATUSES.has(String(revision.status))) this.#revisions.set(revisionId, revision);
    return revision;
  }

  /**
   * Keeps only revisions the current deployments point at, so the cache cannot grow forever, and
   * the records of those `retains` says are kept (a deployment waiting for memory's is not).
   */
  pruneCache(deployments: readonly DesiredDeployment[], retains: (id: string) => boolean = () => true): void {
    const keep = new Set<string>();
    const kept = deployments.filter((d) => retains(d.deployment.id));
    this.#listed = new Map(kept.map((d) => [d.deployment.id, d.deployment]));
    for (const { deployment } of deployments) {
      if (deployment.latest_revision_id) keep.add(deployment.latest_revision_id);
      if (deployment.active_revision_id) keep.add(deployment.active_revision_id);
    }
    for (const id of [...this.#revisions.keys()]) if (!keep.has(id)) this.#revisions.delete(id);
    if (this.#knownSync)
      for (const id of [...this.#knownSync.keys()]) if (!keep.has(id)) this.#knownSync.delete(id);
  }
}
