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

/**
 * The version a slim entry stands for, kept on the entry itself (a non-enumerable symbol member:
 * no copy, spread or JSON of it carries the member along). It lives and dies with its entry: a
 * new listing makes new entries, so nothing outlives the listing that pinned it.
 */
const PINNED = Symbol('mooring.pinnedVersion');

/**
 * The version of a whole listed object, kept on the object the first time it is asked for (the
 * cold listing's judge, then its slim copy). Nothing changes a listed page's objects between the
 * two, and the member goes with the page.
 */
const LISTED = Symbol('mooring.listedVersion');

type Versioned = KubeObject & { [PINNED]?: string | undefined; [LISTED]?: string | undefined };

/** Keeps `version` on `obj` under `key`, hidden from copies; false when `obj` cannot take it (frozen). */
function keep(obj: KubeObject, key: symbol, version: string | undefined): boolean {
  if (!Object.isExtensible(obj)) return false;
  Object.defineProperty(obj, key, { value: version, enumerable: false, writable: true, configurable: true });
  return true;
}

/** Makes `version` the version of `obj`, a reduced copy of the object it was taken from. */
export function pinVersion(obj: KubeObject, version: string | undefined): void {
  if (!keep(obj, PINNED, version)) throw new TypeError('pinVersion: a slim entry must be extensible');
}

/** Whether `obj` carries a pinned version (it is a slim listing entry). */
export function hasPinnedVersion(obj: KubeObject): boolean {
  return Object.hasOwn(obj, PINNED);
}

/** `objectVersion` of a whole object of a listing page, computed once per object. */
export function listedVersion(obj: KubeObject): string | undefined {
  if (Object.hasOwn(obj, LISTED)) return (obj as Versioned)[LISTED];
  const version = objectVersion(obj);
  keep(obj, LISTED, version);
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
  if (Object.hasOwn(obj, PINNED)) return (obj as Versioned)[PINNED];
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
