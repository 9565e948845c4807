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

/** The objects matching a list/watch request's selectors. */
export function selectObjects(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  query: URLSearchParams,
): StoredObject[] {
  const labels = parseLabelSelector(query.get('labelSelector'));
  const fields = parseFieldSelector(query.get('fieldSelector'), type.kind);
  const name = pinnedName(fields);
  let candidates: StoredObject[];
  if (name !== undefined && namespace !== undefined) {
    const one = cluster.store.get(type, namespace, name);
    candidates = one ? [one] : [];
  } else candidates = cluster.store.list(type, namespace);
  if (labels.length === 0 && fields.length === 0) return candidates;
  return candidates.filter((o) => matchesLabels(labels, o.metadata.labels) && matchesFields(fields, o));
}

/** GET on a collection. */
export function listObjects(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  query: URLSearchParams,
): ListResult {
  const all = selectObjects(cluster, type, namespace, query);
  const limitText = query.get('limit');
  const limit = limitText ? Number.parseInt(limitText, 10) : 0;
  const cont = query.get('continue');
  let rv = cluster.store.currentRv();
  let items = all;
  if (cont) {
    const token = decodeContinue(cont);
    if (token.rv < cluster.store.oldestResumableRv(type)) {
      throw gone(
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
      );
    }
    rv = token.rv;
    items = items.filter((o) => keyOf(o) > token.start);
  }
  const metadata: ListResult['metadata'] = { resourceVersion: String(rv) };
  if (limit > 0 && items.length > limit) {
    const page = items.slice(0, limit);
    metadata.continue = encodeContinue({ rv, start: keyOf(page[page.length - 1] as StoredObject) });
    metadata.remainingItemCount = items.length - limit;
    items = page;
  }
  return { kind: `${type.kind}List`, apiVersion: apiVersionOf(type), metadata, objects: items };
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
