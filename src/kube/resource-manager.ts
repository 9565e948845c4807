/**
 * The resource manager: one object per agent, holding the Kubernetes client and the field
 * manager, with one method per verb (apply, list, delete). Each write method returns a change set.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { errorCode, MooringError } from '../errors.ts';
import { LABELS } from '../labels.ts';
import { silentLogger } from '../log.ts';
import { type ApplyContext, type ApplyOptions, applyAll } from './apply.ts';
import { ApplyMemo, isVerified } from './memo.ts';
import type { ChangeSet } from '../objects/change-set.ts';
import { type Census, takeCensus } from './census.ts';
import type { RandomBytes } from './create-only.ts';
import { type DeleteAllOptions, deleteAll } from './delete.ts';
import { kubeError } from './errors.ts';
import type { KubeHttp } from './http.ts';
import { FIELD_MANAGER, ownedSelector } from './labels.ts';
import { LISTED_KINDS, type KindInfo } from '../objects/kinds.ts';
import { type Inventory, type ListOwnedOptions, listOwned } from './list.ts';
import { ObjectClient } from './object-client.ts';
import { listedVersion } from './object-version.ts';
import { objectId } from '../objects/object-id.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import { verifyListed } from './verify-listed.ts';

export interface ResourceManagerOptions {
  /** The connection to the API server (`createKubeClient`). */
  kube: KubeHttp;
  /** Field manager for every write (default `mooring`). */
  fieldManager?: string;
  /** Send every write with `dryRun=All`: previews (`mooring diff`, `--dry-run`). */
  dryRun?: boolean;
  logger?: Logger;
  /** Random source for generated secret values (default crypto.randomBytes). */
  random?: RandomBytes;
  /** The memo of objects found converged: the agent's `ObservedState.memo` (default: its own). */
  memo?: ApplyMemo;
}

export class ResourceManager {
  readonly fieldManager: string;
  readonly dryRun: boolean;
  readonly #client: ObjectClient;
  readonly #logger: Logger;
  readonly #verified: ApplyMemo;
  /** What every apply shares (applyAll overrides dryRun per call on a copy). */
  readonly #context: ApplyContext;
  /** What a listing covers unless told otherwise (`alsoList`). */
  #listed: readonly KindInfo[] = LISTED_KINDS;
  /** Kinds the next cycle listing also covers, once (`listOnceMore`). */
  #once: readonly KindInfo[] = [];

  constructor(opts: ResourceManagerOptions) {
    this.fieldManager = opts.fieldManager ?? FIELD_MANAGER;
    this.dryRun = opts.dryRun ?? false;
    this.#client = new ObjectClient(opts.kube);
    this.#logger = opts.logger ?? silentLogger();
    this.#verified = opts.memo ?? new ApplyMemo();
    this.#context = {
      client: this.#client,
      fieldManager: this.fieldManager,
      dryRun: this.dryRun,
      logger: this.#logger,
      random: opts.random ?? randomBytes,
      verified: this.#verified,
    };
  }

  /**
   * Server-side applies `objects` in kind order. Pass the live inventory (from `listOwned`) so that
   * converged objects cost no request at all and absent ones are applied without a read first.
   */
  applyAll(objects: readonly KubeObject[], opts: ApplyOptions = {}): Promise<ChangeSet> {
    return applyAll(this.#context, objects, opts);
  }

  /**
   * Whether a live object is still the version an apply of `key` (an input key) found converged
   * or left: nothing that key renders can differ from it. Never in dry-run.
   */
  isVerified(obj: KubeObject, key: string): boolean {
    return isVerified(this.#context, objectId(obj), key, obj);
  }

  /**
   * Whether `live`, a whole listed object, holds what `desired` (its rendered object) applies for
   * input key `key`; when it does, it enters the memo (a cold start's listing, ADR 0008).
   */
  /** `isVerified` of a whole object of a cold listing's page (its version is taken once). */
  isListedVerified(obj: KubeObject, key: string): boolean {
    return isVerified(this.#context, objectId(obj), key, obj, listedVersion);
  }

  verifyListed(live: KubeObject, desired: KubeObject, key: string): boolean {
    return verifyListed(this.#context, desired, live, key);
  }

  /** A new census of names (census.ts): each kind and namespace listed once, at its first lookup. */
  census(): Census {
    return takeCensus(this.#client);
  }

  /** Every owned object in the namespaces (of one deployment when `deploymentId` is set). */
  listOwned(opts: ListOwnedOptions): Promise<Inventory> {
    const kinds = opts.kinds ?? this.#listed;
    const client = this.#client.withSignal(opts.signal);
    const once = opts.slim && opts.deploymentId === undefined ? this.#once : [];
    if (once.length === 0) return listOwned(client, { ...opts, kinds }, this.fieldManager);
    const warned = new Set<string>();
    const onOptionalFailure = (kind: KindInfo, namespace: string, err: unknown) => {
      if (warned.has(kind.kind)) return;
      warned.add(kind.kind);
      const cause = err instanceof MooringError ? (err.details.cause ?? err.code) : errorCode(err);
      this.#logger.warn(
        { cause, kind: kind.kind, namespace },
        `${kind.kind} objects could not be listed (${String(cause)}): any an earlier exposure setting left stay in place; ` +
          `remove them with: kubectl delete ${kind.plural} -A -l ${LABELS.listenerId}=${opts.listenerId}`,
      );
    };
    return listOwned(
      client,
      { ...opts, kinds, optionalKinds: once, onOptionalFailure },
      this.fieldManager,
    ).then((inventory) => {
      this.#once = [];
      return inventory;
    });
  }

  /**
   * Adds kinds to the next cycle listing only: the exposure kinds not in use, of which an earlier
   * setting may have left objects; its reconciles then prune what they find. A list call of one of
   * them that fails (the Role does not allow it) leaves that kind out, with a warning.
   */
  listOnceMore(kinds: readonly KindInfo[]): void {
    this.#once = kinds.filter((k) => !this.#listed.includes(k));
  }

  /**
   * Adds kinds to every later listing (the exposure kind, once discovery found it served), so
   * that objects of that kind are pruned like the others. A kind not served would fail every listing.
   */
  alsoList(kinds: readonly KindInfo[]): void {
    this.#listed = [...LISTED_KINDS, ...kinds.filter((k) => !LISTED_KINDS.includes(k))];
  }

  /** Deletes live objects in reverse kind order, refusing what is not provably ours. */
  deleteAll(objects: readonly KubeObject[], opts: DeleteAllOptions): Promise<ChangeSet> {
    for (const o of objects) this.#verified.forget(objectId(o));
    return deleteAll(
      { client: this.#client, fieldManager: this.fieldManager, dryRun: this.dryRun, logger: this.#logger },
      objects,
      opts,
    );
  }

  /**
   * This listener's object of `obj`'s kind, namespace and name, metadata only, or undefined: one
   * list call that selects it by name and by the labels a listing selects by (`ownedSelector`).
   * A list, not a GET: the Role lets the agent list claims but not get them.
   */
  async findOwned(
    obj: KubeObject,
    listenerId: string,
    opts: { signal?: AbortSignal } = {},
  ): Promise<KubeObject | undefined> {
    const { apiVersion, kind } = obj;
    const name = obj.metadata.name ?? '';
    try {
      const [found] = await this.#client
        .withSignal(opts.signal)
        .list(apiVersion, kind, obj.metadata.namespace ?? '', ownedSelector(listenerId), undefined, {
          metadataOnly: true,
          fieldSelector: `metadata.name=${name}`,
          pageSize: 1,
        });
      // A server without partial answers sends the whole object: only its metadata is kept.
      return found && { apiVersion, kind, metadata: found.metadata };
    } catch (err) {
      throw kubeError(err, objectId(obj), 'list');
    }
  }

  /** Creates an object (used for Events); errors start with the object id. */
  async create(obj: KubeObject): Promise<KubeObject> {
    try {
      return await this.#client.create(obj, { fieldManager: this.fieldManager, dryRun: this.dryRun });
    } catch (err) {
      throw kubeError(err, objectId(obj), 'create');
    }
  }
}
