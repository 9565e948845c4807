/**
 * One streamed HTTP exchange on an undici dispatcher: a 2xx answer's body is handed on line by line
 * as it arrives (a Kubernetes watch is JSON lines that may flow for many minutes), any other answer
 * is collected whole, as `exchange` does (exchange.ts), so that its Status can be read.
 */
import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { abortLink, type Exchanged } from './exchange.ts';

/**
 * Sends `options` on `dispatcher` and calls `onLine` with each non-empty line of a 2xx answer;
 * resolves when the server ends the answer (a 2xx answer's `text` is then ''), rejects with
 * undici's error, or `signal`'s reason once it aborts. A throw from `onLine` aborts the exchange
 * and rejects with it.
 */
export function exchangeLines(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  onLine: (line: string) => void,
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
    const decoder = new StringDecoder('utf8');
    let pending = '';
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
          pending += decoder.write(chunk);
          if (!streaming()) return;
          let end = pending.indexOf('\n');
          while (end >= 0) {
            const line = pending.slice(0, end).trim();
            pending = pending.slice(end + 1);
            if (line !== '') {
              try {
                onLine(line);
              } catch (err) {
                failed = err;
                c.abort(err as Error);
                return;
              }
            }
            end = pending.indexOf('\n');
          }
        },
        onResponseEnd() {
          done();
          pending += decoder.end();
          if (streaming()) {
            const last = pending.trim();
            pending = '';
            if (last !== '') {
              try {
                onLine(last);
              } catch (err) {
                reject(err);
                return;
              }
            }
            resolve({ status, headers, text: '' });
            return;
          }
          resolve({ status, headers, text: pending });
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
