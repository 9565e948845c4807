/**
 * The calls the resource manager makes (apply, create, JSON patch, get, list, delete) on any kind, as
 * plain REST over `KubeHttp`. Objects go out and come back as the wire's JSON. Errors are left as
 * they come (`KubeApiError`, network errors): callers map them with `kubeError` and the object id.
 */
import { httpStatusOf } from './errors.ts';
import type { KubeHttp, KubeRequest, KubeResponse } from './http.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import { LIST_PAGE_SIZE, type PageSize, pageSizeNow } from './list-page-size.ts';
import { objectPath, query, resourcePath } from './resource-path.ts';
import { type WatchEvent, watchEvents } from './watch-events.ts';

export { resourcePath } from './resource-path.ts';

/** How many times one list call starts over after its continue token expired (410 Gone). */
export const LIST_RESTARTS = 2;

export interface WriteOptions {
  fieldManager: string;
  dryRun?: boolean;
  force?: boolean;
  /**
   * Ask for the answer as metadata only (PartialObjectMetadata): the new resourceVersion,
   * generation, labels, annotations and managedFields, without the spec and status sent back.
   * A server that cannot answer so sends the whole object; either way `Applied.partial` says
   * which came.
   */
  metadataOnly?: boolean;
}

export interface DeleteOptions {
  dryRun?: boolean;
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  /** Delete only this very object (409 Conflict when another object now has its name). */
  uid?: string;
}

/** What an apply answered: the object as it now stands, and whether the apply created it (201). */
export interface Applied {
  /** With `partial`, the sent object's apiVersion and kind with the answer's metadata, no more. */
  object: KubeObject;
  created: boolean;
  /** The answer was metadata only (`WriteOptions.metadataOnly`): spec and status are not known. */
  partial: boolean;
}

/** Metadata only, else the whole object (a server or aggregated API without partial answers). */
function metadataOnly(as: 'PartialObjectMetadata' | 'PartialObjectMetadataList'): string {
  return `application/json;as=${as};g=meta.k8s.io;v=v1,application/json`;
}
const METADATA_ONLY = metadataOnly('PartialObjectMetadata');
const METADATA_LIST = metadataOnly('PartialObjectMetadataList');

/** List items come without apiVersion and kind: put back, so that ids and later calls work. */
function withKind(item: KubeObject, apiVersion: string, kind: string): KubeObject {
  item.apiVersion = apiVersion;
  item.kind = kind;
  return item;
}

export class ObjectClient {
  readonly #http: KubeHttp;
  readonly #signal: AbortSignal | undefined;

  constructor(http: KubeHttp, signal?: AbortSignal) {
    this.#http = http;
    this.#signal = signal;
  }

  /**
   * This client with every request bound to `signal`: once it aborts, the request in flight is cut
   * (its promise rejects with the signal's reason) and none is sent after it. A batch of writes
   * takes its reconcile's signal this way, so a deposed leader or a timed-out reconcile stops
   * mid-batch instead of finishing each request. Without a signal, this very client.
   */
  withSignal(signal: AbortSignal | undefined): ObjectClient {
    return signal === undefined || signal === this.#signal ? this : new ObjectClient(this.#http, signal);
  }

  #request<T>(req: KubeRequest): Promise<KubeResponse<T>> {
    return this.#http.request<T>(this.#signal === undefined ? req : { ...req, signal: this.#signal });
  }

  /**
   * Server-side apply (`application/apply-patch+yaml`; JSON is YAML). `body`, when given, is
   * `obj` already serialized (see `prepareForApply`).
   */
  async apply(obj: KubeObject, opts: WriteOptions, body?: string): Promise<Applied> {
    const res = await this.#request<KubeObject>({
      method: 'PATCH',
      path: `${objectPath(obj)}${query({ fieldManager: opts.fieldManager, force: opts.force ?? false, dryRun: opts.dryRun ? 'All' : undefined })}`,
      body: body ?? obj,
      contentType: 'application/apply-patch+yaml',
      ...(opts.metadataOnly ? { accept: METADATA_ONLY } : {}),
    });
    const created = res.status === 201;
    if (res.body?.kind !== 'PartialObjectMetadata') return { object: res.body, created, partial: false };
    return {
      object: { apiVersion: obj.apiVersion, kind: obj.kind, metadata: res.body.metadata },
      created,
      partial: true,
    };
  }

  /** POST: fails with 409 AlreadyExists when the object exists (never overwrites). */
  async create(obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    const res = await this.#request<KubeObject>({
      method: 'POST',
      path: `${objectPath(obj, false)}${query({ fieldManager: opts.fieldManager, dryRun: opts.dryRun ? 'All' : undefined })}`,
      body: obj,
    });
    return res.body;
  }

  /**
   * POST, answered as metadata only when asked (`WriteOptions.metadataOnly`, as `apply`): fails
   * with 409 AlreadyExists when the object exists, so it never writes over one. `body`, when
   * given, is `obj` already serialized as JSON.
   */
  async createNew(obj: KubeObject, opts: WriteOptions, body?: string): Promise<Applied> {
    const res = await this.#http.request<KubeObject>({
      method: 'POST',
      path: `${objectPath(obj, false)}${query({ fieldManager: opts.fieldManager, dryRun: opts.dryRun ? 'All' : undefined })}`,
      body: body ?? obj,
      ...(opts.metadataOnly ? { accept: METADATA_ONLY } : {}),
    });
    if (res.body?.kind !== 'PartialObjectMetadata')
      return { object: res.body, created: true, partial: false };
    return {
      object: { apiVersion: obj.apiVersion, kind: obj.kind, metadata: res.body.metadata },
      created: true,
      partial: true,
    };
  }

  /** PATCH with a JSON patch (RFC 6902): `test` operations make it all or nothing. */
  async patchJson(obj: KubeObject, ops: readonly unknown[], opts: WriteOptions): Promise<KubeObject> {
    const res = await this.#http.request<KubeObject>({
      method: 'PATCH',
      path: `${objectPath(obj)}${query({ fieldManager: opts.fieldManager, dryRun: opts.dryRun ? 'All' : undefined })}`,
      body: ops,
      contentType: 'application/json-patch+json',
      ...(opts.metadataOnly ? { accept: METADATA_ONLY } : {}),
    });
    return res.body;
  }

  /** GET; undefined on 404. */
  async get(obj: KubeObject): Promise<KubeObject | undefined> {
    try {
      return (await this.#request<KubeObject>({ method: 'GET', path: objectPath(obj) })).body;
    } catch (err) {
      if (httpStatusOf(err) === 404) return undefined;
      throw err;
    }
  }

  /**
   * Every object of a kind in a namespace matching a label selector, over all pages (started over,
   * at most LIST_RESTARTS times, when its continue token expires). `each` maps
   * every item as it arrives, before the rest of its page (each item's raw JSON is garbage once
   * mapped; with `onPage`, as its page is); an item it maps to undefined is left out.
   * With `metadataOnly`, items carry only their metadata where the server can list so
   * (PartialObjectMetadataList; otherwise whole objects come). `pageSize` overrides LIST_PAGE_SIZE
   * (a function is asked again before each page).
   * `onPage` sees each page's items, as they came, before `each` maps them (and may wait).
   */
  async list(
    apiVersion: string,
    kind: string,
    namespace: string,
    labelSelector: string,
    each: (item: KubeObject) => KubeObject | undefined = (item) => item,
    opts: {
      metadataOnly?: boolean;
      pageSize?: PageSize;
      onPage?: (items: KubeObject[]) => Promise<void> | void;
      /** Told the list's resourceVersion (its first page's: every page is of one snapshot). */
      onVersion?: (resourceVersion: string) => void;
      /** Told when the list starts over (its pages are then handed again from the first). */
      onRestart?: () => void;
      /** A field selector besides the labels (`metadata.name=x`: one object by name). */
      fieldSelector?: string;
    } = {},
  ): Promise<KubeObject[]> {
    const out: KubeObject[] = [];
    const path = resourcePath(apiVersion, kind, namespace);
    const size = opts.pageSize ?? LIST_PAGE_SIZE[opts.metadataOnly ? 'metadataOnly' : 'wholeObjects'];
    let token: string | undefined;
    let restarts = 0;
    for (;;) {
      let res: KubeResponse<{
        items?: KubeObject[];
        metadata?: { continue?: string; resourceVersion?: string };
      }>;
      // Each item is parsed as it arrives (list-items.ts), so a page is never held whole as text
      // and objects at once; it is mapped at once too, unless `onPage` must see the page first.
      const page: KubeObject[] = [];
      const onItem = (raw: unknown) => {
        const item = withKind(raw as KubeObject, apiVersion, kind);
        if (opts.onPage) return void page.push(item);
        const entry = each(item);
        if (entry !== undefined) out.push(entry);
      };
      try {
        res = await this.#request({
          method: 'GET',
          path: `${path}${query({ labelSelector, fieldSelector: opts.fieldSelector, limit: pageSizeNow(size), continue: token })}`,
          ...(opts.metadataOnly ? { accept: METADATA_LIST } : {}),
          onItem,
        });
      } catch (err) {
        // A continue token expires (410 Gone) when a listing stays open longer than the server
        // keeps its snapshot (a judged cold listing on a busy cluster): the list starts over from a
        // fresh snapshot, instead of failing the whole listing and its cycle.
        if (token === undefined || httpStatusOf(err) !== 410 || restarts >= LIST_RESTARTS) throw err;
        restarts += 1;
        opts.onRestart?.();
        out.length = 0;
        token = undefined;
        continue;
      }
      const version = res.body?.metadata?.resourceVersion;
      if (token === undefined && typeof version === 'string') opts.onVersion?.(version);
      // A client that answers whole (a test's) has the items here.
      const whole = (res.body?.items ?? []).map((item) => withKind(item, apiVersion, kind));
      const items = page.length > 0 ? page : whole;
      if (opts.onPage && items.length > 0) await opts.onPage(items);
      for (const item of items) {
        const entry = each(item);
        if (entry !== undefined) out.push(entry);
      }
      token = res.body?.metadata?.continue || undefined;
      if (token === undefined) return out;
    }
  }

  /**
   * Watches a kind in a namespace from `resourceVersion`, with bookmarks, until the server ends it
   * or `opts.signal` (else the client's) aborts; events as watch-events.ts hands them on.
   */
  async watch(
    apiVersion: string,
    kind: string,
    namespace: string,
    labelSelector: string,
    resourceVersion: string,
    onEvent: (event: WatchEvent) => void,
    opts: { metadataOnly?: boolean; timeoutSeconds: number; signal?: AbortSignal },
  ): Promise<void> {
    const path = `${resourcePath(apiVersion, kind, namespace)}${query({
      watch: 1,
      labelSelector,
      resourceVersion,
      allowWatchBookmarks: true,
      timeoutSeconds: opts.timeoutSeconds,
    })}`;
    await watchEvents(
      this.#http,
      {
        path,
        ...(opts.metadataOnly ? { accept: METADATA_ONLY } : {}),
        signal: opts.signal ?? this.#signal,
      },
      { apiVersion, kind },
      onEvent,
      opts.timeoutSeconds,
    );
  }

  /** DELETE; 'absent' on 404 (already gone counts as deleted). */
  async delete(obj: KubeObject, opts: DeleteOptions = {}): Promise<'deleted' | 'absent'> {
    try {
      await this.#request({
        method: 'DELETE',
        path: `${objectPath(obj)}${query({ dryRun: opts.dryRun ? 'All' : undefined })}`,
        body: {
          apiVersion: 'v1',
          kind: 'DeleteOptions',
          propagationPolicy: opts.propagationPolicy ?? 'Background',
          ...(opts.uid === undefined ? {} : { preconditions: { uid: opts.uid } }),
        },
      });
      return 'deleted';
    } catch (err) {
      if (httpStatusOf(err) === 404) return 'absent';
      throw err;
    }
  }
}
