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
import type { KubeObject, ObjectMeta } from '../objects/kube-object.ts';

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
 * A slim listing entry (compact-live.ts) with the version it stands for in a private field: no
 * copy, spread or JSON of it carries the version along, and the field lives inside the object. A
 * symbol member defined after the fact (the form before) took a separate property store of its
 * own, 40 bytes per entry, and the watch cache holds one entry per owned object.
 * It lives and dies with its entry: a new listing makes new entries, so nothing outlives the
 * listing that pinned it.
 */
export class PinnedEntry implements KubeObject {
  [key: string]: unknown;
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  readonly #version: string | undefined;

  constructor(apiVersion: string, kind: string, metadata: ObjectMeta, version: string | undefined) {
    this.apiVersion = apiVersion;
    this.kind = kind;
    this.metadata = metadata;
    this.#version = version;
  }

  /** The version `entry` stands for. */
  static versionOf(entry: PinnedEntry): string | undefined {
    return entry.#version;
  }

  /** Whether `obj` is a slim entry (its version pinned). */
  static is(obj: object): obj is PinnedEntry {
    return #version in obj;
  }
}

/**
 * The version of a whole object the agent read, kept on the object the first time it is asked
 * for: a listed page's (the cold listing's judge, then its slim copy) or an apply's answer (the
 * memo's entry, then the pass's check that it left every object verified). Nothing changes such an
 * object's metadata once read (a copy is made for what is sent), and the member goes with it.
 */
const LISTED = Symbol('mooring.listedVersion');

type Versioned = KubeObject & { [LISTED]?: string | undefined };

/** Keeps `version` on `obj` under `key`, hidden from copies; false when `obj` cannot take it (frozen). */
function keep(obj: KubeObject, key: symbol, version: string | undefined): boolean {
  if (!Object.isExtensible(obj)) return false;
  Object.defineProperty(obj, key, { value: version, enumerable: false, writable: true, configurable: true });
  return true;
}

/** Whether `obj` carries a pinned version (it is a slim listing entry). */
export function hasPinnedVersion(obj: KubeObject): boolean {
  return PinnedEntry.is(obj);
}

/** `objectVersion` of a whole object of a listing page or an apply's answer, computed once per object. */
export function listedVersion(obj: KubeObject): string | undefined {
  if (Object.hasOwn(obj, LISTED)) return (obj as Versioned)[LISTED];
  const version = objectVersion(obj);
  keep(obj, LISTED, version);
  return version;
}

/** `objectVersion`, the one `listedVersion` kept on `obj` when it did (nothing is kept here). */
export function knownVersion(obj: KubeObject): string | undefined {
  return Object.hasOwn(obj, LISTED) ? (obj as Versioned)[LISTED] : objectVersion(obj);
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
  if (PinnedEntry.is(obj)) return PinnedEntry.versionOf(obj);
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
