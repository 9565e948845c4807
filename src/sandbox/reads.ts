/** get and list (label and field selectors, limit/continue pagination). */
import type { Cluster } from './cluster.ts';
import { apiVersionOf, type ResourceType } from './resources.ts';
import {
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  pinnedName,
} from './selectors.ts';
import { badRequest, gone, notFound } from './status.ts';
import type { KubeObject, StoredObject } from './types.ts';

export function getObject(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
): StoredObject {
  const obj = cluster.store.get(type, namespace ?? '', name);
  if (!obj) throw notFound(type, name);
  return obj;
}

export interface ListResult {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  /** The stored objects of the page (the response's items are these without apiVersion and kind). */
  objects: StoredObject[];
}

interface ContinueToken {
  rv: number;
  start: string;
}

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: token.rv, start: token.start })).toString(
    'base64url',
  );
}

function decodeContinue(text: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as {
      rv?: unknown;
      start?: unknown;
    };
    if (typeof parsed.rv === 'number' && typeof parsed.start === 'string')
      return { rv: parsed.rv, start: parsed.start };
  } catch {
    // fall through
  }
  throw badRequest(
    'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  );
}

function keyOf(obj: StoredObject): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

/** Items in list responses carry no apiVersion/kind, as a real server encodes them. */
export function listItem(obj: StoredObject): KubeObject {
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

interface Selection {
  /** Candidates in key order: the pinned name, or the stored collection (shared: never mutated). */
  candidates: readonly StoredObject[];
  /** Whether a candidate matches the label and field selectors; undefined when there are none. */
  matches: ((o: StoredObject) => boolean) | undefined;
}

function selection(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  query: URLSearchParams,
): Selection {
  const labels = parseLabelSelector(query.get('labelSelector'));
  const fields = parseFieldSelector(query.get('fieldSelector'), type.kind);
  const name = pinnedName(fields);
  let candidates: readonly StoredObject[];
  if (name !== undefined && namespace !== undefined) {
    const one = cluster.store.get(type, namespace, name);
    candidates = one ? [one] : [];
  } else candidates = cluster.store.list(type, namespace);
  if (labels.length === 0 && fields.length === 0) return { candidates, matches: undefined };
  return { candidates, matches: (o) => matchesLabels(labels, o.metadata.labels) && matchesFields(fields, o) };
}

/** The objects matching a list/watch request's selectors. */
export function selectObjects(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  query: URLSearchParams,
): StoredObject[] {
  const { candidates, matches } = selection(cluster, type, namespace, query);
  return matches ? candidates.filter(matches) : [...candidates];
}

/**
 * GET on a collection. A page is cut from the continue key onward, matching only as many
 * candidates as it needs (etcd reads a range from the key; the apiserver filters as it goes), so
 * paging through a collection costs in proportion to it, not to its size times the pages.
 * `remainingItemCount` is set only for a list without selectors, as the API server does (with
 * one, the count is unknown).
 */
export function listObjects(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  query: URLSearchParams,
): ListResult {
  const { candidates, matches } = selection(cluster, type, namespace, query);
  const limitText = query.get('limit');
  const limit = limitText ? Number.parseInt(limitText, 10) : 0;
  const cont = query.get('continue');
  let rv = cluster.store.currentRv();
  let from = 0;
  if (cont) {
    const token = decodeContinue(cont);
    if (token.rv < cluster.store.oldestResumableRv(type)) {
      throw gone(
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
      );
    }
    rv = token.rv;
    from = firstAfter(candidates, token.start);
  }
  const metadata: ListResult['metadata'] = { resourceVersion: String(rv) };
  const objects: StoredObject[] = [];
  let i = from;
  for (; i < candidates.length; i++) {
    const o = candidates[i] as StoredObject;
    if (matches && !matches(o)) continue;
    if (limit > 0 && objects.length === limit) {
      // One more match than the page holds: there is a next page.
      metadata.continue = encodeContinue({ rv, start: keyOf(objects[limit - 1] as StoredObject) });
      if (!matches) metadata.remainingItemCount = candidates.length - i;
      break;
    }
    objects.push(o);
  }
  return { kind: `${type.kind}List`, apiVersion: apiVersionOf(type), metadata, objects };
}

/** The index of the first candidate whose key sorts after `start` (candidates are in key order). */
function firstAfter(candidates: readonly StoredObject[], start: string): number {
  let lo = 0;
  let hi = candidates.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyOf(candidates[mid] as StoredObject) > start) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// Each stored object's JSON as a list item, made once: stored objects are never mutated, and a
// client that lists (an informer's resync, the agent's inventory every cycle) sees most objects
// unchanged since its last list.
const itemJson = new WeakMap<StoredObject, string>();

function itemText(obj: StoredObject): string {
  let text = itemJson.get(obj);
  if (text === undefined) {
    text = JSON.stringify(listItem(obj));
    itemJson.set(obj, text);
  }
  return text;
}

/** The list response body: the same bytes as `JSON.stringify` of the list with its items. */
export function listJson(list: ListResult): string {
  const parts = new Array<string>(list.objects.length);
  for (let i = 0; i < list.objects.length; i++) parts[i] = itemText(list.objects[i] as StoredObject);
  return `{"kind":${JSON.stringify(list.kind)},"apiVersion":${JSON.stringify(list.apiVersion)},"metadata":${JSON.stringify(list.metadata)},"items":[${parts.join(',')}]}`;
}
