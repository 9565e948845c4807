/**
 * A cold start's comparison of listed objects (ADR 0008). With its memo empty, the agent used to
 * read every object again (one GET each) before it could tell that a slim listing entry was still
 * converged. A cold start's listing instead comes whole, page by page, and each listed object is
 * compared here with the object its deployment renders, exactly as an apply would compare it;
 * one found converged enters the memo, so its reconcile skips it without a request.
 */
import type { ApplyContext } from './apply-context.ts';
import { isCreateOnly } from './create-only.ts';
import { liveHash, prepareForApply } from './desired-hash.ts';
import { findDrift } from './live-compare.ts';
import { remember } from './memo.ts';
import { listedVersion } from './object-version.ts';
import { objectId } from '../objects/object-id.ts';
import { foreignOwner } from './ownership.ts';
import type { KubeObject } from '../objects/kube-object.ts';

/**
 * Whether `live` (a whole listed object) holds everything `raw` (the rendered object of the same
 * id) applies, for input key `key`; when it does, the memo records it. An object that is not ours
 * to write, terminating, or different in any field we apply is left to the reconcile (which then
 * reads, refuses or applies it as before).
 */
export function verifyListed(
  ctx: Pick<ApplyContext, 'dryRun' | 'verified' | 'fieldManager'>,
  raw: KubeObject,
  live: KubeObject,
  key: string,
): boolean {
  if (ctx.dryRun || live.metadata.deletionTimestamp) return false;
  if (foreignOwner(live, raw, ctx.fieldManager)) return false;
  const id = objectId(raw);
  if (objectId(live) !== id) return false;
  if (isCreateOnly(raw)) {
    // Never updated: present and ours is converged (apply.ts, foundCreateOnly).
    remember(ctx, id, key, live, listedVersion);
    return true;
  }
  const { object: desired } = prepareForApply(raw);
  if (liveHash(live) !== liveHash(desired) || findDrift(desired, live) !== undefined) return false;
  remember(ctx, id, key, live, listedVersion);
  return true;
}
