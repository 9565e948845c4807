/**
 * Loads the restart memo for a cold start and saves it when the leader stops (restart-memo.ts,
 * ADR 0010). Every failure only costs speed: the start then compares every listed object, as
 * without a memo, so failures are logged and never thrown.
 */
import { hash } from 'node:crypto';
import type { ApplyMemo } from '../kube/observed-state.ts';
import type { Logger } from '../log.ts';
import { canonicalJson } from '../objects/canonical-json.ts';
import type { ColdPasses } from './cold-passes.ts';
import type { ColdPass } from './cold-start.ts';
import { codeFingerprint } from './code-fingerprint.ts';
import { openMemo, type RestartMemo, sealMemo, snapshotEntries } from './restart-memo.ts';
import type { KnownRevision } from '../reconcile/desired-resolver.ts';
import { safeErr } from './safe-error.ts';

/** Where the snapshot is kept (src/kube/restart-memo-store.ts: one ConfigMap). */
export interface RestartMemoStore {
  /** The stored (sealed) snapshot; undefined when there is none. */
  read(): Promise<Buffer | undefined>;
  write(data: Buffer, signal?: AbortSignal): Promise<void>;
  /** The most it holds (default MAX_SNAPSHOT_BYTES, one ConfigMap); past it the first deployments that fit are kept. */
  readonly maxBytes?: number;
}

/** How long a stopping leader waits for its snapshot to be written. */
const SAVE_TIMEOUT_MS = 5000;

export interface RestartMemoKeeperOptions {
  store: RestartMemoStore;
  /** Seals the snapshot (the API key): who cannot read it can neither read nor forge one. */
  secret: string;
  /** What else decides what the agent renders and owns (render settings, listener, namespaces). */
  settings: () => unknown;
  /** The apply memo the snapshot fills and is made from. */
  memo: ApplyMemo;
  logger: Logger;
  /** The agent's code (code-fingerprint.ts); a parameter for tests. */
  code?: () => Promise<string>;
  /** What the snapshot keeps of a deployment's final revisions (the poller's `knownRevisions`). */
  revisionsOf?: (deploymentId: string) => readonly KnownRevision[];
}

/** What the agent does with a restart memo (a RestartMemoKeeper, or NO_RESTART_MEMO when there is none). */
export type RestartMemoUse = Pick<RestartMemoKeeper, 'vouch' | 'load' | 'revisions' | 'save'>;

/** No restart memo (none configured, or dry run): nothing is read, nothing is saved. */
export const NO_RESTART_MEMO: RestartMemoUse = Object.freeze({
  vouch: async () => {},
  load: async () => 0,
  revisions: async () => undefined,
  save: async () => {},
});

export class RestartMemoKeeper {
  readonly #o: RestartMemoKeeperOptions;
  /** The digest of the snapshot stored now, as far as this process knows: an unchanged one is not written again. */
  #stored: string | undefined;
  #opened: Promise<(RestartMemo & { digest: string }) | undefined> | undefined;
  #objectsOfAnotherBuild = 0;
  #vouched = false;

  /** The code's digest, started at once: reading the sources must not delay the first listing. */
  readonly #code: Promise<string>;

  constructor(o: RestartMemoKeeperOptions) {
    this.#o = o;
    this.#code = (o.code ?? codeFingerprint)();
    // Awaited (and its failure logged) where it is used.
    this.#code.catch(() => {});
  }

  async #fingerprint(): Promise<string> {
    const code = await this.#code;
    return hash('sha256', `${code}\u0000${canonicalJson(this.#o.settings())}`, 'base64url');
  }

  /**
   * The stored snapshot, opened, when it can be trusted; read once for the process (the first poll
   * wants its revisions, the cold listing its objects), since only this leader writes it.
   */
  #open(): Promise<(RestartMemo & { digest: string }) | undefined> {
    this.#opened ??= this.#read();
    return this.#opened;
  }

  async #read(): Promise<(RestartMemo & { digest: string }) | undefined> {
    const { store, logger } = this.#o;
    try {
      const stored = await store.read();
      if (!stored) return undefined;
      const memo = openMemo(stored, {
        secret: this.#o.secret,
        fingerprint: await this.#fingerprint(),
        objectsOfAnotherBuild: (objects) => {
          this.#objectsOfAnotherBuild = objects;
        },
      });
      if (typeof memo === 'string') {
        const why = {
          seal: 'it does not open (sealed with another API key, or not by the agent)',
          fingerprint: 'another build or other settings wrote it',
          size: 'it is too large',
          format: 'it cannot be read',
        }[memo];
        logger.info({ reason: memo }, `restart memo not used: ${why}; every listed object is compared`);
        return undefined;
      }
      this.#stored = memo.digest;
      return memo;
    } catch (err) {
      logger.warn({ err: safeErr(err) }, 'restart memo not read; every listed object is compared');
      return undefined;
    }
  }

  /**
   * Tells `passes` which deployments the stored snapshot vouches for, when it can be trusted, once
   * for the process: a start's first listing judges their room on the heap before `load` runs.
   */
  async vouch(passes: ColdPasses): Promise<void> {
    const memo = await this.#open();
    if (this.#vouched || !memo) return;
    this.#vouched = true;
    passes.vouch(memo.passes.keys());
  }

  /**
   * Fills the memo (objects it does not hold yet) and `passes` from the stored snapshot, when it
   * can be trusted. Returns how many objects a snapshot of another build held (0 otherwise): an
   * upgrade's start cannot use it, but the memory budget sizes the start's listing by it.
   */
  async load(passes: ColdPasses): Promise<number> {
    const memo = await this.#open();
    if (!memo) return this.#objectsOfAnotherBuild;
    // Moved, not copied (the snapshot's map is emptied): the apply memo now holds its entries
    // (and newer ones), and a copy would hold every object twice (121k at 10,000 deployments).
    // A later cold listing of this process judges what it holds instead.
    this.#o.memo.adopt(memo.memo);
    for (const [id, pass] of memo.passes) {
      // Once vouched for, one taken since (its first reconcile ran) or no longer listed is not again.
      if (!this.#vouched) passes.restore(id, pass);
      else if (passes.restored(id)) passes.set(id, pass);
    }
    this.#o.logger.info({ deployments: memo.passes.size }, 'restart memo taken over');
    memo.passes.clear();
    return 0;
  }

  /**
   * The final revisions the stored snapshot knew, by id (none when it cannot be trusted), handed
   * over: the resolver keeps them (desired-resolver.ts), and a copy kept here too would hold every
   * one twice for the life of the process. A later call gets none.
   */
  async revisions(): Promise<ReadonlyMap<string, KnownRevision> | undefined> {
    const memo = await this.#open();
    if (!memo) return undefined;
    const { revisions } = memo;
    memo.revisions = new Map();
    return revisions;
  }

  /** Saves what `passes` and the memo hold, unless the stored snapshot already says the same. */
  async save(passes: Iterable<[string, ColdPass]>): Promise<void> {
    const { store, logger } = this.#o;
    try {
      const entries = snapshotEntries(this.#o.memo, passes, this.#o.revisionsOf);
      const encoded = sealMemo(entries, {
        secret: this.#o.secret,
        fingerprint: await this.#fingerprint(),
        ...(store.maxBytes === undefined ? {} : { maxBytes: store.maxBytes }),
      });
      if (!encoded) {
        logger.info({ deployments: entries.length }, 'restart memo not saved: too large for a ConfigMap');
        return;
      }
      if (encoded.digest === this.#stored) {
        logger.debug('restart memo unchanged: not written');
        return;
      }
      // Bounded: a stop must not wait on an API server that does not answer.
      await store.write(encoded.data, AbortSignal.timeout(SAVE_TIMEOUT_MS));
      this.#stored = encoded.digest;
      logger.info(
        { deployments: encoded.deployments, of: entries.length, bytes: encoded.data.length },
        'restart memo saved',
      );
    } catch (err) {
      logger.warn({ err: safeErr(err) }, 'restart memo not saved; the next start compares every object');
    }
  }
}
