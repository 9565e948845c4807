/**
 * One streamed HTTP exchange on an undici dispatcher: a 2xx answer's body goes to a sink chunk by
 * chunk as it arrives (a watch's JSON lines, a list page's items), never held whole; any other
 * answer is collected whole, as `exchange` does (exchange.ts), so that its Status can be read.
 */
import type { Dispatcher } from 'undici';
import { abortLink, type Exchanged } from './exchange.ts';

/** Where a 2xx answer's body goes. A throw from either aborts the exchange and rejects with it. */
export interface BodySink {
  write(chunk: Buffer): void;
  /** The body is complete. */
  end(): void;
}

/**
 * Sends `options` on `dispatcher` and hands a 2xx answer's body to `sink`; resolves when the
 * server ends the answer (a 2xx answer's `text` is then ''), rejects with undici's error, a throw
 * of the sink, or `signal`'s reason once it aborts.
 */
export function exchangeStreamed(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  sink: BodySink,
  signal?: AbortSignal,
): Promise<Exchanged> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const { onRequestStart, done } = abortLink(signal);
    let status = 0;
    let headers: Exchanged['headers'] = {};
    const other: Buffer[] = [];
    let failed: unknown;
    const streaming = () => status >= 200 && status < 300;
    try {
      dispatcher.dispatch(options, {
        onRequestStart,
        onResponseStart(_c, statusCode, responseHeaders) {
          if (statusCode < 200) return;
          status = statusCode;
          headers = responseHeaders;
        },
        onResponseData(c, chunk) {
          if (failed !== undefined) return;
          if (!streaming()) {
            other.push(chunk);
            return;
          }
          try {
            sink.write(chunk);
          } catch (err) {
            failed = err;
            c.abort(err as Error);
          }
        },
        onResponseEnd() {
          done();
          if (!streaming()) {
            resolve({ status, headers, text: Buffer.concat(other).toString('utf8') });
            return;
          }
          try {
            sink.end();
          } catch (err) {
            reject(err);
            return;
          }
          resolve({ status, headers, text: '' });
        },
        onResponseError(_c, err) {
          done();
          reject(failed ?? (signal?.aborted ? signal.reason : err));
        },
      });
    } catch (err) {
      done();
      reject(err);
    }
  });
}
