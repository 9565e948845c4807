/**
 * Good manners toward the API server: a client-side token bucket in front of every Kubernetes
 * request (client-go's QPS and burst), and a server's "come back later" honoured per request.
 *
 * - The bucket holds `burst` tokens and refills at `qps` a second; each request (each attempt,
 *   retries included) takes one, waiting its turn when none is left. Reservations go into debt in
 *   order, so waiters are served first come, first served, never more than `qps` a second on
 *   average. `qps` 0 turns the limit off.
 * - With `untilServerFlowControl` (the default, `--kube-qps auto`), the bucket stands down once an
 *   answer shows that the server runs API Priority and Fairness (its `X-Kubernetes-PF-*`
 *   headers): the server then shares itself out fairly among clients and says 429 when this one
 *   must wait, which is controller-runtime's default and SIG API Machinery's advice. A limit the
 *   operator sets is kept whatever the server does.
 * - 429 Too Many Requests, and 503 with a `Retry-After`, mean the server did not act on the
 *   request (priority and fairness, an overloaded server): it is sent again after the time the
 *   server named (1 s when a 429 names none, as APF's answers say), up to KUBE_RETRIES times
 *   (client-go's default), with p-retry counting the attempts and no backoff of its own added.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import { NO_BACKOFF, pRetryBackoff } from '../backoff.ts';
import { parseRetryAfter } from '../lean/retry-after.ts';

/** Retries of one request the server turned away (client-go's maxRetries). */
export const KUBE_RETRIES = 10;
/** The longest a server's Retry-After is waited out; a longer one is cut to this. */
export const RETRY_AFTER_CAP_MS = 30_000;

/** Why a request waited before it was sent: the bucket, or the server's Retry-After. */
export type WaitReason = 'rate_limiter' | 'retry_after';

export interface RateLimitOptions {
  /** Requests a second on average; 0 = no limit. */
  qps: number;
  /** Requests sent at once before the average applies (at least 1). */
  burst: number;
  /** Monotonic milliseconds (default performance.now). */
  now?: () => number;
  /** Stand down once the server shows it runs API Priority and Fairness (see the module comment). */
  untilServerFlowControl?: boolean;
}

/** The answer headers by which kube-apiserver shows that API Priority and Fairness admitted a request. */
export const FLOW_CONTROL_HEADERS = ['x-kubernetes-pf-flowschema-uid', 'x-kubernetes-pf-prioritylevel-uid'];

/** Whether answer headers (names in lower case) come from a server running API Priority and Fairness. */
export function showsFlowControl(headers: Readonly<Record<string, unknown>> | undefined): boolean {
  return headers !== undefined && FLOW_CONTROL_HEADERS.some((h) => headers[h] !== undefined);
}

/** The token bucket; `reserve` is all there is to it. */
export class TokenBucket {
  #qps: number;
  readonly #untilServerFlowControl: boolean;
  readonly #burst: number;
  readonly #now: () => number;
  #tokens: number;
  #last: number;

  constructor(opts: RateLimitOptions) {
    this.#qps = opts.qps;
    this.#untilServerFlowControl = opts.untilServerFlowControl ?? false;
    this.#burst = Math.max(1, Math.floor(opts.burst));
    this.#now = opts.now ?? (() => performance.now());
    this.#tokens = this.#burst;
    this.#last = this.#now();
  }

  /** Whether the bucket limits requests now. */
  get limiting(): boolean {
    return this.#qps > 0;
  }

  /** Told of an answer's headers: a bucket waiting for the server's flow control stands down. */
  observe(headers: Readonly<Record<string, unknown>> | undefined): void {
    if (this.#untilServerFlowControl && this.#qps > 0 && showsFlowControl(headers)) this.#qps = 0;
  }

  /** Takes a token; resolves to how long (ms) the caller must wait before sending. */
  reserve(): number {
    if (!(this.#qps > 0)) return 0;
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) * this.#qps) / 1000);
    this.#last = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens * 1000) / this.#qps;
  }
}

/** What a failed attempt says about coming back: the wait in ms, or undefined (do not retry). */
export function retryWaitMs(err: unknown): number | undefined {
  const e = err as { code?: unknown; headers?: Record<string, string | string[] | undefined> };
  if (e.code !== 429 && e.code !== 503) return undefined;
  const header = e.headers?.['retry-after'];
  const after = parseRetryAfter(Array.isArray(header) ? header[0] : header, RETRY_AFTER_CAP_MS);
  if (after !== undefined) return after;
  // A 503 without Retry-After may be anything (a proxy, a crashed server): left to the caller.
  return e.code === 429 ? 1000 : undefined;
}

export interface PoliteOptions {
  bucket: TokenBucket | undefined;
  /** Told of every wait, in seconds, by reason (the metrics). */
  onWait?: ((reason: WaitReason, seconds: number) => void) | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Runs `attempt` politely: each try waits for a token first; one the server turned away (see the
 * module comment) is tried again after the server's wait. Other failures are thrown as they come.
 */
export function polite<T>(attempt: () => Promise<T>, o: PoliteOptions): Promise<T> {
  const wait = async (reason: WaitReason, ms: number) => {
    if (ms <= 0) return;
    o.onWait?.(reason, ms / 1000);
    await sleep(ms, undefined, o.signal ? { signal: o.signal } : undefined);
  };
  return pRetry(
    async () => {
      await wait('rate_limiter', o.bucket?.reserve() ?? 0);
      return attempt();
    },
    {
      retries: KUBE_RETRIES,
      // The server's wait is the whole wait: p-retry adds none of its own.
      ...pRetryBackoff(NO_BACKOFF),
      ...(o.signal ? { signal: o.signal } : {}),
      shouldRetry: ({ error }) => retryWaitMs(error) !== undefined,
      onFailedAttempt: async ({ error, retriesLeft }) => {
        const ms = retryWaitMs(error);
        if (ms !== undefined && retriesLeft > 0) await wait('retry_after', ms);
      },
    },
  );
}
