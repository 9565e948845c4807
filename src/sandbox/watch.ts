/**
 * Watches: chunked JSON lines `{"type": ..., "object": ...}`. Without a resourceVersion (or "0")
 * the current objects come first as ADDED; with one, the retained history after it is replayed,
 * or a 410 Gone ERROR event is sent when that history was already compacted.
 */
import type { ServerResponse } from 'node:http';
import type { Cluster } from './cluster.ts';
import { apiVersionOf, type ResourceType } from './resources.ts';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from './selectors.ts';
import { badRequest } from './status.ts';
import type { StoreEvent } from './store.ts';
import type { KubeObject, StoredObject } from './types.ts';

export interface WatchOptions {
  /** How often a BOOKMARK is sent when the client allows them. */
  bookmarkIntervalMs: number;
  /** Ends the stream after this long (fault injection: watch reset). */
  resetAfterMs?: number;
  /** Converts an object before it is written (e.g. to a Table row); identity by default. */
  render?: (object: StoredObject) => KubeObject;
}

function line(type: string, object: unknown): string {
  return `${JSON.stringify({ type, object })}\n`;
}

/** Serves one watch request until the timeout, the client leaving, or a reset. */
export function serveWatch(
  cluster: Cluster,
  type: ResourceType,
  namespace: string | undefined,
  query: URLSearchParams,
  res: ServerResponse,
  options: WatchOptions,
): void {
  const labels = parseLabelSelector(query.get('labelSelector'));
  const fields = parseFieldSelector(query.get('fieldSelector'), type.kind);
  const rvText = query.get('resourceVersion') ?? '';
  const rv = rvText === '' ? 0 : Number(rvText);
  if (!Number.isInteger(rv) || rv < 0)
    throw badRequest(`resourceVersion: Invalid value: "${rvText}": must be a non-negative integer`);
  const render = options.render ?? ((o: StoredObject) => o);
  const matches = (o: StoredObject): boolean =>
    (namespace === undefined || o.metadata.namespace === namespace) &&
    matchesLabels(labels, o.metadata.labels) &&
    matchesFields(fields, o);

  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Transfer-Encoding': 'chunked',
    'Cache-Control': 'no-cache, private',
  });
  res.flushHeaders(); // clients return from watch() once headers arrive, even before any event
  const timers: NodeJS.Timeout[] = [];
  let unsubscribe = (): void => {};
  let closed = false;
  const end = (): void => {
    if (closed) return;
    closed = true;
    unsubscribe();
    for (const t of timers) clearTimeout(t);
    res.end();
  };
  res.on('close', end);

  // As the watch cache does: an object that comes to match is ADDED, one that stops matching is
  // DELETED with its last matching state (at the event's resourceVersion).
  const send = (event: StoreEvent): void => {
    if (closed) return;
    const now = matches(event.object);
    const before = event.previous !== undefined && matches(event.previous);
    if (event.type !== 'MODIFIED' || (now && before)) {
      if (now) res.write(line(event.type, render(event.object)));
    } else if (now) res.write(line('ADDED', render(event.object)));
    else if (before) {
      const previous = event.previous as StoredObject;
      const gone = { ...previous, metadata: { ...previous.metadata, resourceVersion: String(event.rv) } };
      res.write(line('DELETED', render(gone)));
    }
  };

  const initialEvents = query.get('sendInitialEvents') === 'true';
  if (rvText === '' || rv === 0 || initialEvents) {
    for (const obj of cluster.store.list(type, namespace))
      if (matches(obj)) res.write(line('ADDED', render(obj)));
    if (initialEvents) {
      // Streaming lists (WatchList): a bookmark marks the end of the initial state.
      res.write(
        line('BOOKMARK', {
          kind: type.kind,
          apiVersion: apiVersionOf(type),
          metadata: {
            resourceVersion: String(cluster.store.currentRv()),
            annotations: { 'k8s.io/initial-events-end': 'true' },
          },
        }),
      );
    }
  } else {
    const replay = cluster.store.eventsSince(type, rv);
    if (replay === undefined) {
      const oldest = cluster.store.oldestResumableRv(type);
      res.write(
        line('ERROR', {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `too old resource version: ${rv} (${oldest + 1})`,
          reason: 'Expired',
          code: 410,
        }),
      );
      end();
      return;
    }
    for (const event of replay) send(event);
  }
  unsubscribe = cluster.store.subscribe(type, send);

  const timeoutSeconds = Number(query.get('timeoutSeconds') ?? '0');
  // A real server caps watches at a randomised 30-60 min; clients reconnect either way.
  const timeoutMs = timeoutSeconds > 0 ? timeoutSeconds * 1000 : 30 * 60 * 1000;
  timers.push(setTimeout(end, timeoutMs));
  if (options.resetAfterMs !== undefined) timers.push(setTimeout(end, options.resetAfterMs));
  if (query.get('allowWatchBookmarks') === 'true') {
    const tick = (): void => {
      if (closed) return;
      const bookmark = {
        kind: type.kind,
        apiVersion: apiVersionOf(type),
        metadata: { resourceVersion: String(cluster.store.currentRv()) },
      };
      res.write(line('BOOKMARK', bookmark));
      timers.push(setTimeout(tick, options.bookmarkIntervalMs).unref());
    };
    timers.push(setTimeout(tick, options.bookmarkIntervalMs).unref());
  }
}
