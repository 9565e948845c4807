/**
 * The Kubernetes API over HTTP: one undici connection pool to the API server, credentials on
 * every request, JSON in and out. Objects travel as the wire's JSON, untouched (no model classes:
 * see docs/adr/0004-thin-kubernetes-client.md). A non-2xx answer becomes a `KubeApiError` holding
 * the status code and the parsed Status body; its message never contains the body, which may echo
 * a Secret's values.
 */
import { readFileSync } from 'node:fs';
import type { Dispatcher } from 'undici';
import { Agent, ProxyAgent } from '../lean/undici.ts';
import { exchange, type Exchanged } from '../lean/exchange.ts';
import { exchangeLines } from '../lean/exchange-lines.ts';
import { describeProxy, proxyForUrl, urlPasswords } from '../proxy/from-environment.ts';
import { proxyRefused, tunnelRefusalStatus } from '../proxy/refusal.ts';
import { ExecCredential } from './exec-credential.ts';
import type { ClusterAccess } from './kubeconfig.ts';
import { ListItems, refusingHandler } from './list-items.ts';
import { polite, TokenBucket, type WaitReason } from './rate-limit.ts';
import { sharedTlsConnect } from './tls-context.ts';
import { type KubeVerb, kubeVerb } from './verb.ts';

/** A non-2xx answer. `code` and `body` are what `httpStatusOf`/`kubeError` read. */
export class KubeApiError extends Error {
  readonly code: number;
  readonly body: unknown;
  /** The answer's headers (`Retry-After` is read from them). */
  readonly headers: Record<string, string | string[] | undefined>;
  constructor(
    code: number,
    body: unknown,
    method: string,
    headers: Record<string, string | string[] | undefined> = {},
  ) {
    super(`Kubernetes API answered ${code} to ${method}`);
    this.name = 'KubeApiError';
    this.code = code;
    this.body = body;
    this.headers = headers;
  }
}

export interface KubeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path with its query string, e.g. `/apis/apps/v1/namespaces/a/deployments/b?fieldManager=mooring`. */
  path: string;
  /** Sent as JSON; a string is sent as it is (JSON the caller has already serialized). */
  body?: unknown;
  /** Default `application/json` when there is a body. */
  contentType?: string;
  /** The Accept header; default `application/json`. */
  accept?: string;
  signal?: AbortSignal;
  /**
   * Sent without waiting at the client-side rate limit: Lease requests, a few each retry period,
   * which must not queue behind a cold start's writes (a renewal late past the renew deadline
   * gives up a Lease the server still grants).
   */
  priority?: boolean;
  /**
   * A list call: each element of a 2xx answer's `items` is parsed and handed here as it arrives,
   * and the answer's body comes back without them (list-items.ts), so that a page is never held
   * whole as text and as parsed objects at once.
   */
  onItem?: (item: unknown) => void;
}

export interface KubeResponse<T> {
  status: number;
  body: T;
  /** The answer's headers (`mooring check` reads `Date`). */
  headers?: Record<string, string | string[] | undefined>;
}

export interface KubeHttpOptions {
  /** Sent on every request: `mooring/<version> (<replica identity>)` lets audit logs tell replicas apart. */
  userAgent?: string;
  /** No answer headers within this many milliseconds fails the request (default 30 s). */
  timeoutMs?: number;
  /**
   * Process environment: for exec credential plugins, and its HTTPS_PROXY / NO_PROXY for a
   * kubeconfig cluster without a proxy-url (never for the in-cluster API server).
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Told of every request's verb and result (the HTTP status, `error`, or `cancelled` for one its
   * signal or its list's item handler cut): the request metrics.
   */
  onResult?: (verb: KubeVerb, result: string) => void;
  /**
   * Client-side rate limit (`--kube-qps`, `--kube-burst`; rate-limit.ts). Unset: no limit (tests
   * and tools); the agent always sets it.
   */
  rateLimit?: { qps: number; burst: number; untilServerFlowControl?: boolean };
  /** Told of every wait before a request was sent, in seconds: the wait metrics. */
  onWait?: (reason: WaitReason, seconds: number) => void;
  /**
   * Told of the secrets this client holds, at once and whenever they change: a static token, a
   * basic-auth password, its proxy URL's password (as written and decoded), the token an exec
   * plugin or a token file gave last. For the redactor: none may reach a log line, whatever an
   * error quotes.
   */
  onCredentials?: (values: readonly string[]) => void;
}

const TOKEN_FILE_REREAD_MS = 60_000;

export class KubeHttp {
  readonly server: string;
  /** The proxy requests go through (scheme, host and port, never credentials); empty when direct. */
  readonly route: { proxy?: string };
  /** The server's origin and its path prefix (a proxy in front of the API server may add one). */
  readonly #origin: string;
  readonly #prefix: string;
  readonly #dispatcher: Dispatcher;
  readonly #userAgent: string;
  readonly #timeoutMs: number;
  readonly #auth: () => Promise<string | undefined>;
  readonly #exec: ExecCredential | undefined;
  readonly #onResult: ((verb: KubeVerb, result: string) => void) | undefined;
  readonly #bucket: TokenBucket | undefined;
  readonly #onWait: ((reason: WaitReason, seconds: number) => void) | undefined;

  constructor(access: ClusterAccess, opts: KubeHttpOptions = {}) {
    this.server = access.server;
    const url = new URL(access.server);
    this.#origin = url.origin;
    this.#prefix = url.pathname.replace(/\/+$/, '');
    this.#userAgent = opts.userAgent ?? 'mooring';
    this.#timeoutMs = opts.timeoutMs ?? 30_000;
    this.#onResult = opts.onResult;
    this.#bucket = opts.rateLimit ? new TokenBucket(opts.rateLimit) : undefined;
    this.#onWait = opts.onWait;
    const connect = sharedTlsConnect(access.tls);
    // A kubeconfig's proxy-url wins for its cluster, as in kubectl; else the environment's.
    const proxy = access.proxyUrl ?? (access.inCluster ? undefined : proxyForUrl(url, opts.env ?? {}));
    this.route = proxy ? { proxy: describeProxy(proxy) } : {};
    const c = access.credentials;
    const fixed = [
      ...(proxy ? urlPasswords(proxy) : []),
      ...(c.type === 'token' ? [c.token] : c.type === 'basic' ? [c.password] : []),
    ];
    let issued: string | undefined;
    /** A token read or minted: the redactor learns it when it changes. */
    const took = (token: string): string => {
      if (token !== issued) {
        issued = token;
        opts.onCredentials?.([...fixed, token]);
      }
      return token;
    };
    opts.onCredentials?.(fixed);
    this.#dispatcher = proxy
      ? new ProxyAgent({ uri: proxy, requestTls: connect, keepAliveTimeout: 30_000 })
      : new Agent({ connect, keepAliveTimeout: 30_000 });
    this.#exec = c.type === 'exec' ? new ExecCredential(c.exec, opts.env ?? {}) : undefined;
    if (c.type === 'token') this.#auth = async () => `Bearer ${c.token}`;
    else if (c.type === 'basic') {
      const basic = `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
      this.#auth = async () => basic;
    } else if (c.type === 'token-file') {
      let cached: { value: string; readAtMs: number } | undefined;
      this.#auth = async () => {
        if (!cached || Date.now() - cached.readAtMs > TOKEN_FILE_REREAD_MS) {
          cached = { value: took(readFileSync(c.file, 'utf8').trim()), readAtMs: Date.now() };
        }
        return `Bearer ${cached.value}`;
      };
    } else if (this.#exec) {
      const exec = this.#exec;
      this.#auth = async () => `Bearer ${took(await exec.token())}`;
    } else this.#auth = async () => undefined;
  }

  /**
   * Sends one request; resolves with the parsed JSON body of a 2xx answer, rejects otherwise. Each
   * attempt waits its turn at the rate limiter; one the server turned away (429, or 503 with
   * `Retry-After`) is sent again after the server's wait (rate-limit.ts).
   */
  request<T>(req: KubeRequest): Promise<KubeResponse<T>> {
    return polite(() => this.#attempt<T>(req), {
      bucket: req.priority ? undefined : this.#bucket,
      onWait: this.#onWait,
      signal: req.signal,
    });
  }

  async #attempt<T>(req: KubeRequest): Promise<KubeResponse<T>> {
    let result = 'error';
    const handler = req.onItem && refusingHandler(req.onItem);
    try {
      const res = await this.#send<T>(handler ? { ...req, onItem: handler.onItem } : req);
      result = String(res.status);
      return res;
    } catch (err) {
      if (err instanceof KubeApiError) result = String(err.code);
      // Cut by its signal (a deposed leader) or its list's item handler: not the server's doing.
      else if (req.signal?.aborted || handler?.threw(err)) result = 'cancelled';
      throw err;
    } finally {
      this.#onResult?.(kubeVerb(req.method, req.path, req.contentType), result);
    }
  }

  /**
   * Sends a watch (a GET whose path asks `watch=1`) and hands on each line of its answer as it
   * arrives; resolves when the server ends the stream. The stream may stay quiet for up to
   * `idleTimeoutMs` between lines (the server's bookmarks and its own timeout bound it). A non-2xx
   * answer rejects with a `KubeApiError`, as `request` does; the start waits its turn at the rate
   * limiter like any request.
   */
  watch(
    req: Pick<KubeRequest, 'path' | 'accept' | 'signal'>,
    onLine: (line: string) => void,
    idleTimeoutMs: number,
  ): Promise<void> {
    const full: KubeRequest = { method: 'GET', ...req };
    return polite(
      async () => {
        let result = 'error';
        try {
          const res = await this.#send<undefined>(full, (dispatcher, options) =>
            exchangeLines(dispatcher, { ...options, bodyTimeout: idleTimeoutMs }, onLine, full.signal),
          );
          result = String(res.status);
        } catch (err) {
          if (err instanceof KubeApiError) result = String(err.code);
          else if (full.signal?.aborted) result = 'cancelled';
          throw err;
        } finally {
          this.#onResult?.(kubeVerb(full.method, full.path), result);
        }
      },
      { bucket: this.#bucket, onWait: this.#onWait, signal: full.signal },
    );
  }

  async #send<T>(
    req: KubeRequest,
    given?: (dispatcher: Dispatcher, options: Dispatcher.DispatchOptions) => Promise<Exchanged>,
  ): Promise<KubeResponse<T>> {
    // A list page's items go to `onItem` as they arrive; the rest of its body is `listed`.
    const page = req.onItem && new ListItems(req.onItem);
    let listed: unknown;
    const exchanging =
      given ??
      (page
        ? (dispatcher: Dispatcher, options: Dispatcher.DispatchOptions) =>
            exchange(dispatcher, options, {
              signal: req.signal,
              sink: { write: (chunk) => page.write(chunk), end: () => (listed = page.end()) },
            })
        : (dispatcher: Dispatcher, options: Dispatcher.DispatchOptions) =>
            exchange(dispatcher, options, { signal: req.signal }));
    const headers: Record<string, string> = {
      accept: req.accept ?? 'application/json',
      'user-agent': this.#userAgent,
    };
    const authorization = await this.#auth();
    if (authorization) headers.authorization = authorization;
    let body: string | undefined;
    if (req.body !== undefined) {
      body = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
      headers['content-type'] = req.contentType ?? 'application/json';
    }
    const res = await exchanging(this.#dispatcher, {
      origin: this.#origin,
      path: `${this.#prefix}${req.path}`,
      method: req.method,
      headers,
      body,
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
    }).catch((err: unknown) => {
      const refused = this.route.proxy === undefined ? undefined : tunnelRefusalStatus(err);
      if (refused === undefined || this.route.proxy === undefined) throw err;
      throw proxyRefused(refused, this.route.proxy, `${req.method} Kubernetes API`);
    });
    this.#bucket?.observe(res.headers);
    let parsed: unknown = listed;
    if (res.text !== '') {
      try {
        parsed = JSON.parse(res.text);
      } catch {
        parsed = undefined;
      }
    }
    if (res.status < 200 || res.status >= 300) {
      if (res.status === 401) this.#exec?.invalidate();
      throw new KubeApiError(res.status, parsed ?? {}, req.method, res.headers);
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  /** Closes the connection pool. */
  close(): Promise<void> {
    return this.#dispatcher.close();
  }
}
