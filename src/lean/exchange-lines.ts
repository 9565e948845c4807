/**
 * One streamed HTTP exchange whose 2xx answer is handed on line by line as it arrives (a
 * Kubernetes watch is JSON lines that may flow for many minutes); any other answer is collected
 * whole (`exchange` with a sink, exchange.ts).
 */
import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { type BodySink, type Exchanged, exchange } from './exchange.ts';

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
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const hand = (line: string) => {
    const trimmed = line.trim();
    if (trimmed !== '') onLine(trimmed);
  };
  const sink: BodySink = {
    write(chunk) {
      pending += decoder.write(chunk);
      let end = pending.indexOf('\n');
      while (end >= 0) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 1);
        hand(line);
        end = pending.indexOf('\n');
      }
    },
    end() {
      const last = pending + decoder.end();
      pending = '';
      hand(last);
    },
  };
  return exchange(dispatcher, options, { signal, sink });
}
