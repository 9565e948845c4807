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
import { type KeyRange, storeKey } from './store.ts';

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

/** Items in list responses carry no apiVersion/kind, as a real server encodes them. */
export function listItem(obj: StoredObject): KubeObject {
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

/** Whether an object matches a request's label and field selectors; undefined when it has none. */
type Matcher = ((o: StoredObject) => boolean) | undefined;

function selectors(
  type: ResourceType,
  query: URLSearchParams,
): { matches: Matcher; name: string | undefined } {
  const labels = parseLabelSelector(query.get('labelSelector'));
  const fields = parseFieldSelector(query.get('fieldSelector'), type.kind);
  const name = pinnedName(fields);
  if (labels.length === 0 && fields.length === 0) return { matches: undefined, name };
  return { matches: (o) => matchesLabels(labels, o.metadata.labels) && matchesFields(fields, o), name };
}

/**
 * The candidates of a request in etcd's key order, after `after` when given: the one object a
 * `metadata.name` field selector pins, or a range of the store's index.
 */
function candidates(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  name: string | undefined,
  after?: string,
): KeyRange {
  if (name === undefined || namespace === undefined) return cluster.store.keyRange(type, namespace, after);
  const one = cluster.store.get(type, namespace, name);
  const keys = one && (after === undefined || storeKey(one) > after) ? [storeKey(one)] : [];
  return { keys, from: 0, to: keys.length, object: () => one as StoredObject };
}

/**
 * The matches of a range in key order, at most `limit` of them (0: all); `next` is the index of the
 * first match past the limit, when there is one.
 */
function collect(
  range: KeyRange,
  matches: Matcher,
  limit: number,
): { objects: StoredObject[]; next?: number } {
  const objects: StoredObject[] = [];
  for (let i = range.from; i < range.to; i++) {
    const o = range.object(range.keys[i] as string);
    if (matches && !matches(o)) continue;
    if (limit > 0 && objects.length === limit) return { objects, next: i };
    objects.push(o);
  }
  return { objects };
}

/** The objects matching a list/watch request's selectors. */
export function selectObjects(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  query: URLSearchParams,
): StoredObject[] {
  const { matches, name } = selectors(type, query);
  return collect(candidates(cluster, type, namespace, name), matches, 0).objects;
}

/**
 * GET on a collection. A page is read from its continue key onward, matching only as many
 * objects as it returns (etcd reads a range from the key; the API server filters as it goes), so
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
  const { matches, name } = selectors(type, query);
  const limitText = query.get('limit');
  const limit = limitText ? Number.parseInt(limitText, 10) : 0;
  const cont = query.get('continue');
  let rv = cluster.store.currentRv();
  let after: string | undefined;
  if (cont) {
    const token = decodeContinue(cont);
    if (token.rv < cluster.store.oldestResumableRv(type)) {
      throw gone(
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
      );
    }
    rv = token.rv;
    after = token.start;
  }
  const range = candidates(cluster, type, namespace, name, after);
  const metadata: ListResult['metadata'] = { resourceVersion: String(rv) };
  const { objects, next } = collect(range, matches, limit);
  if (next !== undefined) {
    // A match past the page: there is a next page.
    metadata.continue = encodeContinue({ rv, start: storeKey(objects[limit - 1] as StoredObject) });
    if (!matches) metadata.remainingItemCount = range.to - next;
  }
  return { kind: `${type.kind}List`, apiVersion: apiVersionOf(type), metadata, objects };
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
