/**
 * The events of one watch answer (JSON lines, `{"type": ..., "object": ...}`), each parsed as it
 * arrives and handed on with its object's apiVersion and kind put back: a metadata-only watch
 * sends PartialObjectMetadata, which names neither.
 */
import type { KubeHttp } from './http.ts';
import type { KubeObject } from '../objects/kube-object.ts';

/** One event of a watch; an ERROR event's object is a Status (`code` 410 when the version expired). */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KubeObject & { code?: number; reason?: string };
}

/** Sends the watch `path` and hands each of its events to `onEvent` until the server ends it. */
export function watchEvents(
  http: Pick<KubeHttp, 'watch'>,
  req: { path: string; accept?: string; signal?: AbortSignal | undefined },
  kind: { apiVersion: string; kind: string },
  onEvent: (event: WatchEvent) => void,
  timeoutSeconds: number,
): Promise<void> {
  return http.watch(
    {
      path: req.path,
      ...(req.accept === undefined ? {} : { accept: req.accept }),
      ...(req.signal === undefined ? {} : { signal: req.signal }),
    },
    (line) => {
      const event = JSON.parse(line) as WatchEvent;
      if (event.type !== 'ERROR' && event.object?.metadata !== undefined) {
        event.object.apiVersion = kind.apiVersion;
        event.object.kind = kind.kind;
      }
      onEvent(event);
    },
    // The server ends the watch itself after timeoutSeconds; a stream quiet for longer is broken.
    (timeoutSeconds + 30) * 1000,
  );
}
