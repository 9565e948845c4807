/**
 * One HTTP exchange on an undici dispatcher through its handler interface: the status, the
 * headers and the body's text, nothing streamed. Both of the agent's clients (Kubernetes and the
 * control plane) use it; it needs none of the request API that undici's index adds to its
 * dispatchers, which src/lean/undici.ts does not load. The agent sends thousands of small JSON
 * requests while it converges; undici's `request()` wraps each answer in a readable stream and an
 * abort signal, which costs markedly more CPU per request than collecting the chunks here
 * (bench/README.md, "Measured decisions").
 */
import type { Dispatcher } from 'undici';

export interface Exchanged {
  status: number;
  /** The answer's headers, names in lower case. */
  headers: Record<string, string | string[] | undefined>;
  /** The body decoded as UTF-8 ('' when there is none), decoded when first read. */
  readonly text: string;
  /** The body's bytes as received (empty when there is none), where the exchange keeps them. */
  bytes?: Buffer;
}

/** The answer's body passed the size the caller allows: the exchange was aborted, the rest unread. */
export class BodyTooLargeError extends Error {
  readonly limitBytes: number;

  constructor(limitBytes: number) {
    super(`response body larger than ${limitBytes} bytes`);
    this.name = 'BodyTooLargeError';
    this.limitBytes = limitBytes;
  }
}

/**
 * Ties `signal` to one dispatch: once it aborts, the exchange is aborted with its reason (at once if
 * it already has when the request starts); `done` lets the signal go when the exchange is over.
 */
export function abortLink(signal: AbortSignal | undefined): {
  onRequestStart: (c: Dispatcher.DispatchController) => void;
  done: () => void;
} {
  let controller: Dispatcher.DispatchController | undefined;
  const onAbort = () => controller?.abort(signal?.reason as Error);
  signal?.addEventListener('abort', onAbort, { once: true });
  return {
    onRequestStart(c) {
      controller = c;
      if (signal?.aborted) c.abort(signal.reason as Error);
    },
    done: () => signal?.removeEventListener('abort', onAbort),
  };
}

/** Where a streamed 2xx answer's body goes. A throw from either aborts the exchange and rejects with it. */
export interface BodySink {
  write(chunk: Buffer): void;
  /** The body is complete. */
  end(): void;
}

/** What an exchange may be given besides the request (see `exchange`). */
export interface ExchangeOptions {
  signal?: AbortSignal | undefined;
  maxBodyBytes?: number | undefined;
  sink?: BodySink | undefined;
}

/**
 * Sends `options` on `dispatcher`; rejects with undici's error, or `signal`'s reason once it aborts.
 * With `maxBodyBytes`, an answer whose body grows past it is aborted at once (the connection closed,
 * nothing more read or held) and the exchange rejects with a {@link BodyTooLargeError}. With
 * `sink`, a 2xx answer's body goes to it chunk by chunk as it arrives (a watch's JSON lines, a list
 * page's items), never held whole, and the answer's `text` is ''; any other answer is collected
 * whole, so that its Status can be read.
 */
export function exchange(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  { signal, maxBodyBytes = Number.POSITIVE_INFINITY, sink }: ExchangeOptions = {},
): Promise<Exchanged> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const { onRequestStart, done } = abortLink(signal);
    let status = 0;
    let headers: Exchanged['headers'] = {};
    const chunks: Buffer[] = [];
    let bytes = 0;
    let tooLarge: BodyTooLargeError | undefined;
    let failed: unknown;
    const streaming = () => sink !== undefined && status >= 200 && status < 300;
    try {
      dispatcher.dispatch(options, {
        onRequestStart,
        onResponseStart(_c, statusCode, responseHeaders) {
          // 1xx informational answers come first and are not the answer.
          if (statusCode < 200) return;
          status = statusCode;
          headers = responseHeaders;
        },
        onResponseData(c, chunk) {
          if (tooLarge || failed !== undefined) return;
          bytes += chunk.length;
          if (bytes > maxBodyBytes) {
            tooLarge = new BodyTooLargeError(maxBodyBytes);
            chunks.length = 0;
            c.abort(tooLarge);
            return;
          }
          if (!streaming()) {
            chunks.push(chunk);
            return;
          }
          try {
            sink?.write(chunk);
          } catch (err) {
            failed = err;
            c.abort(err as Error);
          }
        },
        onResponseEnd() {
          done();
          if (streaming()) {
            try {
              sink?.end();
            } catch (err) {
              reject(err);
              return;
            }
            resolve({ status, headers, text: '' });
            return;
          }
          const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
          // Decoded only when read: a caller that digests the bytes first may never need the text.
          let text: string | undefined;
          resolve({
            status,
            headers,
            bytes,
            get text() {
              text ??= bytes.toString('utf8');
              return text;
            },
          });
        },
        onResponseError(_c, err) {
          done();
          reject(failed ?? tooLarge ?? (signal?.aborted ? signal.reason : err));
        },
      });
    } catch (err) {
      // Options undici refuses at once (a malformed header, say).
      done();
      reject(err);
    }
  });
}
