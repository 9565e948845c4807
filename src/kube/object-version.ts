/**
 * What the apply memo (`ApplyContext.verified`) pins a verified object's state to. Any change to
 * the object must change it; nothing else should:
 * - kinds whose API server keeps `metadata.generation` (Deployment, StatefulSet, the autoscaler,
 *   the disruption budget): the generation, which moves on every spec change and on no status
 *   write, plus a digest of the labels and annotations, which it does not cover. A rollout's
 *   progress or an autoscaler's sync every few seconds then leaves a verified object verified
 *   (the idiom of controller-runtime's GenerationChangedPredicate); and the uid, since an object
 *   deleted and made again (`kubectl replace --force`) starts at generation 1 again. The digest
 *   leaves out the annotation the Deployment controller sets after every rollout
 *   (`deployment.kubernetes.io/revision`, written with the status): it is never ours, and
 *   counting it made the first resync after each rollout read every rolled-out Deployment again;
 * - every other kind: the resourceVersion, which moves on any change (a new object's too).
 */
import { Buffer } from 'node:buffer';
import { hash } from 'node:crypto';
import { sortedKeys } from '../objects/canonical-json.ts';
import type { KubeObject } from '../objects/kube-object.ts';

/** Annotations that controllers keep on the objects we apply; no apply of ours sets them. */
const CONTROLLER_ANNOTATIONS: ReadonlySet<string> = new Set(['deployment.kubernetes.io/revision']);

/** `JSON.stringify` of the [key, value] pairs of `map` in key order, `leaveOut` left out; made directly. */
function sortedPairs(map: Record<string, string> | undefined, leaveOut?: ReadonlySet<string>): string {
  if (!map) return '[]';
  let s = '[';
  for (const k of sortedKeys(map)) {
    if (leaveOut?.has(k)) continue;
    s += `${s.length > 1 ? ',' : ''}[${JSON.stringify(k)},${JSON.stringify(map[k]) ?? 'null'}]`;
  }
  return `${s}]`;
}

/** Versions taken from whole objects before they were slimmed (compact-live.ts). */
const pinned = new WeakMap<KubeObject, string | undefined>();

/** Makes `version` the version of `obj`, a reduced copy of the object it was taken from. */
export function pinVersion(obj: KubeObject, version: string | undefined): void {
  pinned.set(obj, version);
}

/** Whether `obj` carries a pinned version (it is a slim listing entry). */
export function hasPinnedVersion(obj: KubeObject): boolean {
  return pinned.has(obj);
}

/**
 * Versions of whole listed objects, each taken once for a cold listing's judge and its slim copy:
 * nothing changes a listed page's objects between the two.
 */
const listed = new WeakMap<KubeObject, string | undefined>();

/** `objectVersion` of a whole object of a listing page, computed once per object. */
export function listedVersion(obj: KubeObject): string | undefined {
  if (listed.has(obj)) return listed.get(obj);
  const version = objectVersion(obj);
  listed.set(obj, version);
  return version;
}

/**
 * A copy of `text` in one piece. A string put together from parts is kept as a tree of them (about
 * three times the bytes of its text), and the memo and a listing's entries hold one version per
 * object: at 10,000 deployments, several MiB of the heap.
 */
export function flat(text: string): string {
  return Buffer.from(text, 'latin1').toString('latin1');
}

/** The object's version for the memo; undefined when it has none (never memoized). */
export function objectVersion(obj: KubeObject): string | undefined {
  if (pinned.has(obj)) return pinned.get(obj);
  const { generation, resourceVersion, uid, labels, annotations } = obj.metadata;
  if (typeof generation === 'number' && generation > 0) {
    const digest = hash(
      'sha1',
      `[${JSON.stringify(uid ?? null)},${sortedPairs(labels)},${sortedPairs(annotations, CONTROLLER_ANNOTATIONS)}]`,
      'base64url',
    ).slice(0, 16);
    return flat(`g${generation}#${digest}`);
  }
  return resourceVersion || undefined;
}
