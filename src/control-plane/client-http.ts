import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import { CONTROL_PLANE_REQUEST_BACKOFF, pRetryBackoff } from '../backoff.ts';
import { BodyTooLargeError, exchange } from '../lean/exchange.ts';
import type { ConnectionOptions } from 'node:tls';
import type { Dispatcher } from 'undici';
import { Pool, ProxyAgent } from '../lean/undici.ts';
import { MooringError } from '../errors.ts';
import { type Logger, silentLogger } from '../log.ts';
import { describeProxy, proxyForUrl } from '../proxy/from-environment.ts';
import { parseRetryAfter } from '../lean/retry-after.ts';
import { shouldRetry, statusError, transportError } from './client-errors.ts';

/**
 * Requests in flight to the control plane at most (one per keep-alive connection; undici queues
 * the rest). The poller fetches revisions this many at a time: 1,000 of them at start-up.
 */
export const CONTROL_PLANE_CONNECTIONS = 8;

/**
 * The largest control-plane answer read, by default: 4 MiB, a page of 100 records of 40 KiB each.
 * Parsed, an answer takes several times its size; with eight in flight the agent stays under the
 * chart's 256Mi limit (bench/README.md, "Measured decisions").
 */
export const CONTROL_PLANE_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** What the `onRequest` hook sees for every HTTP attempt (for metrics): never a URL or header. */
export interface RequestEvent {
  method: string;
  route: string;
  /** The HTTP status, when one was received. */
  status?: number;
  /** The error code, when the attempt failed. */
  code?: string;
  durationMs: number;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  /** Sent as `X-Tenant-Id` when set. */
  tenantId?: string;
  /** Per attempt: headers and body must arrive within this time. Default 10 000. */
  timeoutMs?: number;
  /** Retries after the first attempt for network errors and 429/502/503/504. Default 4. */
  retries?: number;
  /** First backoff delay (before jitter). Default 250. */
  retryMinDelayMs?: number;
  /** Backoff cap. Default 5 000. */
  retryMaxDelayMs?: number;
  /** Cap on a server's `Retry-After`. Default 30 000. */
  retryAfterCapMs?: number;
  /** Keep-alive connections in the pool. Default CONTROL_PLANE_CONNECTIONS. */
  connections?: number;
  /**
   * An answer's body larger than this is not read (MOORING_E_CP_RESPONSE_TOO_LARGE for that
   * request alone). Default CONTROL_PLANE_MAX_RESPONSE_BYTES.
   */
  maxResponseBytes?: number;
  logger?: Logger;
  onRequest?: (event: RequestEvent) => void;
  /**
   * The environment whose `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY` choose the route (Go's
   * rules, src/proxy/). Default: none, a direct connection.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** TLS to the control plane: `ca` replaces the system roots; `cert` + `key` for mTLS. */
  tls?: Pick<ConnectionOptions, 'ca' | 'cert' | 'key' | 'servername' | 'lookup'>;
}

/** How the control plane is reached, as `/status` and the start-up log say it. */
export interface ControlPlaneRoute {
  /** The proxy (scheme, host and port, never credentials); absent when direct. */
  proxy?: string;
  /** `custom`: the CA given (--control-plane-ca-file); `system`: Node's roots and NODE_EXTRA_CA_CERTS. */
  ca: 'custom' | 'system';
}

/**
 * A successful answer: the parsed JSON body (undefined for 204 or empty, and for a `raw` call)
 * and the headers; a `raw` call's body as received in `bytes`, for the caller to parse.
 */
export interface Answer {
  body: unknown;
  bytes?: Buffer;
  /** Header names in lower case; a repeated header is an array. */
  headers: Record<string, string | string[] | undefined>;
}

export interface Call {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The route pattern, for errors, logs and metrics. */
  route: string;
  /** The concrete path (ids already encoded). */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Success statuses. */
  ok: readonly number[];
  /** The answer's body is left unparsed, in `Answer.bytes` (`parseJson` parses it as `send` would). */
  raw?: boolean;
}

/** `text` as JSON (undefined when empty), or the coded error an answer that is not JSON gets. */
export function parseJson(call: Pick<Call, 'method' | 'route'>, text: string, status = 200): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new MooringError(
      'MOORING_E_CP_BAD_RESPONSE',
      `${call.method} ${call.route}: response is not JSON`,
      {
        details: { method: call.method, route: call.route, status },
      },
    );
  }
}

/**
 * HTTP to the control plane: one keep-alive pool, a timeout per attempt, retries with jittered
 * exponential backoff (p-retry) for network failures and 429/502/503/504 (a `Retry-After` is
 * waited out first, capped), and a coded `MooringError` for every failure. The API key is only
 * ever placed in the request header.
 */
export class Transport {
  readonly #pool: Dispatcher;
  readonly #origin: string;
  /** How requests travel; never holds proxy credentials. */
  readonly route: ControlPlaneRoute;
  readonly #headers: Record<string, string>;
  readonly #options: Required<
    Omit<TransportOptions, 'apiKey' | 'tenantId' | 'logger' | 'onRequest' | 'env' | 'tls'>
  >;
  readonly #logger: Logger;
  readonly #onRequest: ((event: RequestEvent) => void) | undefined;
  readonly #closing = new AbortController();
  /** The base URL's path (a control plane served under `/api`, say), prefixed to every route. */
  readonly #prefix: string;

  constructor(options: TransportOptions) {
    const url = new URL(options.baseUrl);
    this.#prefix = url.pathname.replace(/\/+$/, '');
    this.#options = {
      baseUrl: url.origin,
      timeoutMs: options.timeoutMs ?? 10_000,
      retries: options.retries ?? 4,
      retryMinDelayMs: options.retryMinDelayMs ?? CONTROL_PLANE_REQUEST_BACKOFF.baseMs,
      retryMaxDelayMs: options.retryMaxDelayMs ?? CONTROL_PLANE_REQUEST_BACKOFF.maxMs,
      retryAfterCapMs: options.retryAfterCapMs ?? 30_000,
      connections: options.connections ?? CONTROL_PLANE_CONNECTIONS,
      maxResponseBytes: options.maxResponseBytes ?? CONTROL_PLANE_MAX_RESPONSE_BYTES,
    };
    this.#origin = url.origin;
    const proxy = proxyForUrl(url, options.env ?? {});
    const tls = options.tls ?? {};
    this.route = { ...(proxy ? { proxy: describeProxy(proxy) } : {}), ca: tls.ca ? 'custom' : 'system' };
    const pool = {
      connections: this.#options.connections,
      keepAliveTimeout: 4_000,
      headersTimeout: this.#options.timeoutMs,
      bodyTimeout: this.#options.timeoutMs,
    };
    // Through a proxy, one CONNECT tunnel per keep-alive connection; the TLS to the control plane
    // runs inside it, so its CA and client certificate apply there, not to the proxy.
    this.#pool = proxy
      ? new ProxyAgent({ ...pool, uri: proxy, requestTls: { ...tls, timeout: this.#options.timeoutMs } })
      : new Pool(url.origin, { ...pool, connect: { ...tls, timeout: this.#options.timeoutMs } });
    this.#headers = {
      accept: 'application/json',
      'x-api-key': options.apiKey,
      ...(options.tenantId ? { 'x-tenant-id': options.tenantId } : {}),
    };
    this.#logger = options.logger ?? silentLogger();
    this.#onRequest = options.onRequest;
  }

  /** Sends a request with retries; resolves with the parsed JSON body (undefined for 204). */
  async send(call: Call): Promise<unknown> {
    return (await this.exchange(call)).body;
  }

  /** As `send`, with the response headers too (list walks read `X-Total-Count`). */
  async exchange(call: Call): Promise<Answer> {
    return pRetry(() => this.#attempt(call), {
      retries: this.#options.retries,
      ...pRetryBackoff({
        ...CONTROL_PLANE_REQUEST_BACKOFF,
        baseMs: this.#options.retryMinDelayMs,
        maxMs: this.#options.retryMaxDelayMs,
      }),
      signal: this.#closing.signal,
      shouldRetry: ({ error }) => shouldRetry(error),
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
        if (!shouldRetry(error) || retriesLeft === 0) return;
        const e = error as MooringError;
        this.#logger.debug(
          {
            method: call.method,
            route: call.route,
            code: e.code,
            status: e.details.status,
            attemptNumber,
            retryAfterMs: e.retryAfterMs,
          },
          'control-plane request failed; retrying',
        );
        // The server said when to come back: wait that long, then p-retry adds its own backoff.
        if (e.retryAfterMs) await sleep(e.retryAfterMs, undefined, { signal: this.#closing.signal });
      },
    });
  }

  async #attempt(call: Call): Promise<Answer> {
    const info = { method: call.method, route: call.route };
    const started = performance.now();
    let status: number | undefined;
    let code: string | undefined;
    try {
      const qs =
        call.query && Object.keys(call.query).length > 0 ? `?${new URLSearchParams(call.query)}` : '';
      const hasBody = call.body !== undefined;
      try {
        const answer = await exchange(
          this.#pool,
          {
            origin: this.#origin,
            method: call.method,
            path: this.#prefix + call.path + qs,
            headers: hasBody ? { ...this.#headers, 'content-type': 'application/json' } : this.#headers,
            ...(hasBody ? { body: JSON.stringify(call.body) } : {}),
          },
          {
            signal: AbortSignal.any([AbortSignal.timeout(this.#options.timeoutMs), this.#closing.signal]),
            maxBodyBytes: this.#options.maxResponseBytes,
          },
        );
        const { headers } = answer;
        status = answer.status;
        if (!call.ok.includes(status)) {
          const retryAfter = headers['retry-after'];
          const retryAfterMs = parseRetryAfter(
            Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
            this.#options.retryAfterCapMs,
          );
          throw statusError(status, answer.text, info, retryAfterMs);
        }
        if (call.raw) return { body: undefined, bytes: answer.bytes ?? Buffer.from(answer.text), headers };
        if (status === 204) return { body: undefined, headers };
        return { body: parseJson(call, answer.text, status), headers };
      } catch (err) {
        if (err instanceof MooringError) throw err;
        if (err instanceof BodyTooLargeError) {
          throw new MooringError(
            'MOORING_E_CP_RESPONSE_TOO_LARGE',
            `${call.method} ${call.route}: the answer is larger than ${err.limitBytes} bytes, the most the agent reads (--control-plane-max-response-mib)`,
            { details: { ...info, ...(status === undefined ? {} : { status }), limitBytes: err.limitBytes } },
          );
        }
        throw transportError(err, info, this.route.proxy);
      }
    } catch (err) {
      code = (err as MooringError).code;
      throw err;
    } finally {
      this.#report({
        method: call.method,
        route: call.route,
        ...(status !== undefined ? { status } : {}),
        ...(code !== undefined ? { code } : {}),
        durationMs: performance.now() - started,
      });
    }
  }

  /** A metrics hook must never break a request. */
  #report(event: RequestEvent): void {
    try {
      this.#onRequest?.(event);
    } catch (err) {
      this.#logger.warn({ errorName: (err as Error)?.name }, 'onRequest hook threw');
    }
  }

  /** Aborts retries in progress and closes the pool. */
  async close(): Promise<void> {
    this.#closing.abort(new MooringError('MOORING_E_CP_UNREACHABLE', 'control-plane client closed'));
    await this.#pool.close();
  }
}
