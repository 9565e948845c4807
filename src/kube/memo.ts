/**
 * The apply memo (`ApplyContext.verified`): which objects were found converged, or left so by an
 * apply, for which input key and at which version. Apply consults it before comparing, and a cold
 * start's listing fills it as it compares whole objects page by page (verify-listed.ts).
 */
import type { ApplyContext } from './apply-context.ts';
import { flat, objectVersion } from './object-version.ts';
import type { KubeObject } from '../objects/kube-object.ts';

/** Whether `live` is still the version found converged (or applied) for `key`; see ApplyContext.verified. */
export function isVerified(
  ctx: Pick<ApplyContext, 'dryRun' | 'verified'>,
  id: string,
  key: string | undefined,
  live: KubeObject,
  versionOf: (obj: KubeObject) => string | undefined = objectVersion,
): boolean {
  if (key === undefined || ctx.dryRun) return false;
  const memo = ctx.verified?.get(id);
  // The memo first: the version of a whole object costs a digest of its labels and annotations.
  return memo !== undefined && memo.key === key && memo.version === versionOf(live);
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
  const known = ctx.verified.get(id);
  if (known) {
    known.key = key;
    known.version = version;
  } else {
    // A new entry's id in one piece: ids are put together from kind, namespace and name, and the
    // memo keeps one per object for the agent's life.
    ctx.verified.set(flat(id), { key, version });
  }
}
