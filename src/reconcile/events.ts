/**
 * Kubernetes Events (core/v1) for meaningful outcomes: Applied (with changes), ApplyFailed,
 * Pruned. At most one identical event (same object, reason and message) per interval, so a
 * failing deployment retried with backoff does not flood the namespace. Messages are built from
 * change-set summaries and coded error messages, which may quote the API server (a 403's or 409's
 * message): before an event leaves, its message is scrubbed by the agent's redactor (every known
 * secret value, `scrubber`).
 *
 * Recording never waits for the API: events are queued and written one at a time in the
 * background, in order, so a reconcile's slot is free as soon as its objects are applied (while
 * 1,000 deployments converge, their 1,000 Events no longer compete with the applies for the API
 * server). The queue is bounded; past the bound an event is dropped and counted, as client-go's
 * broadcaster does. `flush()` waits for the queue to empty (the agent's shutdown, tests).
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { silentLogger } from '../log.ts';
import { NO_SCRUB, type Scrubber } from '../redact.ts';
import { formatObjectId } from '../objects/object-id.ts';
import type { KubeObject } from '../objects/kube-object.ts';

export type EventReason = 'Applied' | 'ApplyFailed' | 'Paused' | 'Pruned' | 'Refused' | 'VolumeKept';

/** What the event is about. */
export interface EventTarget {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid?: string;
}

export interface EventInput {
  target: EventTarget;
  reason: EventReason;
  type: 'Normal' | 'Warning';
  message: string;
}

/** Where events go: the resource manager's `create` in the agent, an array in tests. */
export interface EventSink {
  create(event: KubeObject): Promise<unknown>;
}

export interface EventRecorderOptions {
  sink: EventSink;
  /** Milliseconds since the epoch; injected so tests control the rate limit. */
  clock?: () => number;
  logger?: Logger;
  /** At most one identical event per this many milliseconds (default one minute). */
  intervalMs?: number;
  /** `source.component` / `reportingComponent`. */
  component?: string;
  /** `reportingInstance`: the listener id. */
  instance?: string;
  /** Events waiting to be written, at most (default 1,000); past it new events are dropped. */
  maxPending?: number;
  /** Whether to record at all, asked per event (the agent: only while leading). Default: always. */
  recording?: () => boolean;
  /** Scrubs each message of every known secret value (the agent's `Redactor`). Default: none. */
  scrubber?: Scrubber;
}

/** Kubernetes caps an event message at 1 KiB. */
const MAX_MESSAGE = 1024;
/** Below this many remembered events, none is forgotten (see `#forgetOld`). */
const SWEEP_FROM = 1000;

export class EventRecorder {
  readonly #sink: EventSink;
  readonly #clock: () => number;
  readonly #logger: Logger;
  readonly #intervalMs: number;
  readonly #component: string;
  readonly #instance: string | undefined;
  /** When each (target, reason, message) was last recorded, by a digest of the three: a message
   * lists every object a reconcile changed, and one is kept per deployment. */
  readonly #last = new Map<string, number>();
  /** The size of `#last` at which old entries are forgotten next. */
  #sweepAt = SWEEP_FROM;
  #seq = 0;
  readonly #maxPending: number;
  readonly #recording: () => boolean;
  readonly #scrubber: Scrubber;
  /** Events not yet handed to the sink, oldest first, with the id used in a failure's log line. */
  #pending: Array<{ event: KubeObject; id: string }> = [];
  /** The background writer while it runs. */
  #draining: Promise<void> | undefined;
  /** Events dropped since the last warning about drops. */
  #dropped = 0;

  constructor(opts: EventRecorderOptions) {
    this.#sink = opts.sink;
    this.#clock = opts.clock ?? Date.now;
    this.#logger = opts.logger ?? silentLogger();
    this.#intervalMs = opts.intervalMs ?? 60_000;
    this.#component = opts.component ?? 'mooring';
    this.#instance = opts.instance;
    this.#maxPending = opts.maxPending ?? 1000;
    this.#recording = opts.recording ?? (() => true);
    this.#scrubber = opts.scrubber ?? NO_SCRUB;
  }

  /** Events queued and not yet written. */
  get pending(): number {
    return this.#pending.length;
  }

  /**
   * Queues an event unless an identical one was recorded within the interval; true when queued.
   * Returns at once: the event is written in the background (see `flush`).
   */
  record(input: EventInput): boolean {
    if (!this.#recording()) return false;
    const now = this.#clock();
    // Scrubbed before it is cut: a cut through a value would leave a part of it unrecognised.
    const message = this.#scrubber.scrub(input.message).slice(0, MAX_MESSAGE);
    const targetId = formatObjectId(input.target.kind, input.target.namespace, input.target.name);
    const key = createHash('sha1')
      .update(`${targetId}\u0000${input.reason}\u0000${message}`)
      .digest('base64');
    const last = this.#last.get(key);
    if (last !== undefined && now - last < this.#intervalMs) return false;
    this.#last.set(key, now);
    this.#forgetOld(now);
    const time = new Date(now).toISOString();
    const involved: Record<string, unknown> = {
      apiVersion: input.target.apiVersion,
      kind: input.target.kind,
      namespace: input.target.namespace,
      name: input.target.name,
    };
    if (input.target.uid) involved.uid = input.target.uid;
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: `${input.target.name}.${now.toString(16)}${(this.#seq++).toString(16)}`,
        namespace: input.target.namespace,
      },
      involvedObject: involved,
      reason: input.reason,
      message,
      type: input.type,
      source: { component: this.#component },
      reportingComponent: this.#component,
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
    };
    if (this.#instance) event.reportingInstance = this.#instance;
    if (this.#pending.length >= this.#maxPending) {
      if (this.#dropped++ === 0)
        this.#logger.warn(
          { id: targetId, reason: input.reason, pending: this.#pending.length },
          `${targetId}: event dropped: ${this.#pending.length} events already wait to be written`,
        );
      return false;
    }
    this.#pending.push({ event, id: targetId });
    this.#draining ??= this.#drain();
    return true;
  }

  /**
   * Resolves once every queued event has been written (or has failed, which is logged), or after
   * `timeoutMs` with the number still queued then (0 when all were written).
   */
  async flush(timeoutMs = Number.POSITIVE_INFINITY): Promise<number> {
    const drained = (async () => {
      while (this.#draining) await this.#draining;
    })();
    let timer: NodeJS.Timeout | undefined;
    const outOfTime = new Promise<void>((resolve) => {
      if (Number.isFinite(timeoutMs)) timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([drained, outOfTime]);
    clearTimeout(timer);
    return this.#pending.length + (this.#draining ? 1 : 0);
  }

  /**
   * At shutdown: gives the queued events `timeoutMs` to be written, and logs how many were not
   * (they tell what this replica did, so a loss is said).
   */
  async flushAtShutdown(timeoutMs: number): Promise<void> {
    const unwritten = await this.flush(timeoutMs);
    if (unwritten > 0) this.#logger.warn({ unwritten }, `${unwritten} events not written before shutdown`);
  }

  async #drain(): Promise<void> {
    try {
      for (let next = this.#pending.shift(); next; next = this.#pending.shift()) {
        try {
          await this.#sink.create(next.event);
        } catch (err) {
          // An event is a courtesy: failing to write one never fails a reconcile.
          this.#logger.warn(
            { id: next.id, reason: next.event.reason, code: (err as { code?: unknown }).code },
            `${next.id}: event not recorded`,
          );
        }
      }
      if (this.#dropped > 0) {
        this.#logger.warn(
          { dropped: this.#dropped },
          `${this.#dropped} events were dropped while the queue was full`,
        );
        this.#dropped = 0;
      }
    } finally {
      this.#draining = undefined;
    }
  }

  /**
   * Forgets what is older than the interval, once the memory has doubled since it last did (at
   * least 1,000 entries): a sweep on every event past 1,000 walked them all each time, and a cold
   * start at 10,000 deployments records 10,000 events within one interval, none of them old.
   */
  #forgetOld(now: number): void {
    if (this.#last.size < this.#sweepAt) return;
    for (const [k, t] of this.#last) if (now - t >= this.#intervalMs) this.#last.delete(k);
    this.#sweepAt = Math.max(SWEEP_FROM, 2 * this.#last.size);
  }
}
