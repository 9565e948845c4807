/**
 * Kubernetes Events (core/v1) for meaningful outcomes: Applied (with changes), ApplyFailed,
 * Pruned. At most one identical event (same object, reason and message) per interval, so a
 * failing deployment retried with backoff does not flood the namespace. Messages are built from
 * change-set summaries and coded error messages, which are secret-free; as a second guard, any
 * known secret value passed in is replaced before the event leaves.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { silentLogger } from '../log.ts';
import { formatObjectId } from '../kube/object-id.ts';
import type { KubeObject } from '../kube/types.ts';

export type EventReason = 'Applied' | 'ApplyFailed' | 'Pruned';

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
  /** Values that must not appear in the message (the deployment's secret values). */
  secretValues?: readonly string[];
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
}

/** Kubernetes caps an event message at 1 KiB. */
const MAX_MESSAGE = 1024;

/** Replaces every occurrence of the given values (ignoring very short ones, which would mangle text). */
export function scrubValues(text: string, values: readonly string[] = []): string {
  let out = text;
  for (const v of values) if (v.length >= 4) out = out.split(v).join('[redacted]');
  return out;
}

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
  #seq = 0;

  constructor(opts: EventRecorderOptions) {
    this.#sink = opts.sink;
    this.#clock = opts.clock ?? Date.now;
    this.#logger = opts.logger ?? silentLogger();
    this.#intervalMs = opts.intervalMs ?? 60_000;
    this.#component = opts.component ?? 'mooring';
    this.#instance = opts.instance;
  }

  /** Records an event unless an identical one went out within the interval. True when sent. */
  async record(input: EventInput): Promise<boolean> {
    const now = this.#clock();
    const message = scrubValues(input.message, input.secretValues).slice(0, MAX_MESSAGE);
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
    try {
      await this.#sink.create(event);
      return true;
    } catch (err) {
      // An event is a courtesy: failing to write one never fails a reconcile.
      this.#logger.warn(
        { id: targetId, reason: input.reason, code: (err as { code?: unknown }).code },
        `${targetId}: event not recorded`,
      );
      return false;
    }
  }

  #forgetOld(now: number): void {
    if (this.#last.size < 1000) return;
    for (const [k, t] of this.#last) if (now - t >= this.#intervalMs) this.#last.delete(k);
  }
}
