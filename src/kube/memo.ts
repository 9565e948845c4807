/**
 * The apply memo (`ApplyContext.verified`): which objects were found converged, or left so by an
 * apply, for which input key and at which version. Apply consults it before comparing, and a cold
 * start's listing fills it as it compares whole objects page by page (verify-listed.ts). Owned by
 * the agent's `ObservedState` (rule 4 there); `ApplyMemo` is its only writer: an apply or a cold
 * listing remembers, a delete forgets, a restart memo adopts what the memo does not hold yet.
 */
import type { ApplyContext, Verified } from './apply-context.ts';
import { flat, knownVersion, listedVersion, objectVersion } from './object-version.ts';
import type { KubeObject } from '../objects/kube-object.ts';

/** Whether `live` is still the version found converged (or applied) for `key`; see ApplyContext.verified. */
export function isVerified(
  ctx: Pick<ApplyContext, 'dryRun' | 'verified'>,
  id: string,
  key: string | undefined,
  live: KubeObject,
  versionOf: (obj: KubeObject) => string | undefined = knownVersion,
): boolean {
  if (key === undefined || ctx.dryRun || !ctx.verified) return false;
  return ctx.verified.holds(id, key, () => versionOf(live));
}

/** Records that `obj` (live, or the apply's answer) holds what `key` stands for. */
export function remember(
  ctx: Pick<ApplyContext, 'dryRun' | 'verified'>,
  id: string,
  key: string | undefined,
  obj: KubeObject,
  versionOf: (obj: KubeObject) => string | undefined = objectVersion,
): void {
  const version = versionOf(obj);
  if (key === undefined || version === undefined || ctx.dryRun || !ctx.verified) return;
  ctx.verified.remember(id, key, version);
}

/**
 * `remember` for an apply's answer: its version is kept on it, since the pass's check that it left
 * every object verified asks for it again (a new object, the next listing's, is digested anew).
 */
export function rememberAnswer(
  ctx: Pick<ApplyContext, 'dryRun' | 'verified'>,
  id: string,
  key: string | undefined,
  answer: KubeObject,
): void {
  remember(ctx, id, key, answer, listedVersion);
}

/** Object id -> the input key and version it was found converged at; written only through its methods. */
export class ApplyMemo implements Iterable<[string, Verified]> {
  readonly #entries = new Map<string, Verified>();

  get(id: string): Verified | undefined {
    return this.#entries.get(id);
  }

  has(id: string): boolean {
    return this.#entries.has(id);
  }

  get size(): number {
    return this.#entries.size;
  }

  [Symbol.iterator](): Iterator<[string, Verified]> {
    return this.#entries[Symbol.iterator]();
  }

  /** `id` holds what `key` stands for at `version` (found converged, or just applied). */
  remember(id: string, key: string, version: string): void {
    const known = this.#entries.get(id);
    if (known) {
      known.key = key;
      known.version = version;
    } else {
      // A new entry's id in one piece: ids are put together from kind, namespace and name, and the
      // memo keeps one per object for the agent's life.
      this.#entries.set(flat(id), { key, version });
    }
  }

  /**
   * Whether `id` is still what `key` stands for at the version `versionOf` gives (asked only when
   * the key matches: the version of a whole object costs a digest). When it is, the entry keeps
   * the caller's strings for the equal texts it held: an apply's answer made the memo's own
   * copies, while the caller's version is the live entry's (the watch cache holds it anyway) and
   * its key the desired state's, so the copies go. One version string per owned object, at
   * 10,000 deployments 121,485 of them.
   */
  holds(id: string, key: string, versionOf: () => string | undefined): boolean {
    const known = this.#entries.get(id);
    if (known === undefined || known.key !== key) return false;
    const version = versionOf();
    if (version === undefined || known.version !== version) return false;
    known.key = key;
    known.version = version;
    return true;
  }

  /** `id` is being deleted: nothing is known of it any more. */
  forget(id: string): void {
    this.#entries.delete(id);
  }

  /**
   * Takes over a restart memo's `entries` for the objects it holds nothing of (what it holds is
   * newer), emptying `entries` as it goes: each entry moves, never copied, so the snapshot and
   * the memo are never both whole on the heap (a restart's start, bench/README.md, issue 40).
   */
  adopt(entries: Map<string, Verified>): void {
    for (const [id, v] of entries) {
      if (!this.#entries.has(id)) this.#entries.set(id, v);
      entries.delete(id);
    }
  }
}
