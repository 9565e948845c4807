import type { ControlStore } from './control-store.ts';

/** Default `--deleted-retention`: one hour, many poll intervals of any agent. */
export const DEFAULT_DELETED_RETENTION_SECONDS = 3600;

/**
 * Removes deleted deployments once their retention has passed (`--deleted-retention`). Until
 * then a deleted deployment is listed as `AWAITING_DELETE`, so an agent that polls within the
 * retention removes its objects on seeing that status; one that polls later finds it absent from
 * two complete listings and removes them then. Called before each request: one indexed read
 * when nothing is due.
 */
export class DeletedRetention {
  readonly #store: ControlStore;
  readonly #retentionMs: number;
  readonly #now: () => Date;

  constructor(store: ControlStore, retentionSeconds: number, now: () => Date) {
    if (!(retentionSeconds >= 0)) throw new Error('deleted retention must be 0 or more seconds');
    this.#store = store;
    this.#retentionMs = retentionSeconds * 1000;
    this.#now = now;
  }

  /** Purges what is due; returns how many deployments went. */
  sweep(): number {
    const earliest = this.#store.lifecycle.earliestDeletedAt();
    if (earliest === undefined) return 0;
    const cutoffMs = this.#now().getTime() - this.#retentionMs;
    if (Date.parse(earliest) > cutoffMs) return 0;
    return this.#store.lifecycle.purgeDeletedBefore(new Date(cutoffMs).toISOString()).purged;
  }
}
