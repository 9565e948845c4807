/**
 * Waiting for a deployment's desired state while a poll resolves it. A cold start's listing
 * (ADR 0008) compares each listed object with what its deployment renders, and the listing may
 * begin before that deployment's revision is in: its page waits until the poll has taken the
 * deployment, or until the poll ended (complete or failed), whichever comes first. Nothing waits
 * beyond the poll under way.
 */
export class DesiredWaiters<T> {
  readonly #waiting = new Map<string, ((value: T | undefined) => void)[]>();

  /** A promise of `id`'s value, settled by `settle(id, …)` or `settleAll`. */
  wait(id: string): Promise<T | undefined> {
    return new Promise((resolve) => {
      const list = this.#waiting.get(id);
      if (list) list.push(resolve);
      else this.#waiting.set(id, [resolve]);
    });
  }

  /** Settles the waits for `id` with `value`. */
  settle(id: string, value: T | undefined): void {
    const list = this.#waiting.get(id);
    if (!list) return;
    this.#waiting.delete(id);
    for (const resolve of list) resolve(value);
  }

  /** Settles every wait, each with `current(id)`: the poll ended. */
  settleAll(current: (id: string) => T | undefined): void {
    for (const id of [...this.#waiting.keys()]) this.settle(id, current(id));
  }
}
