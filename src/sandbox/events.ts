/**
 * The controllers' Events, as client-go's event recorder writes them for kube-controller-manager:
 * core/v1 Events named `<object>.<hex unix nanoseconds>`, one per call (`count: 1`), with the
 * controller as `source.component` and `reportingComponent`. They are bounded as a real server
 * bounds Events, by age (its one-hour event TTL), and also by a per-namespace cap, so a sandbox
 * holding thousands of workloads keeps a bounded number of them.
 */
import { recordUpdate } from './apply/index.ts';
import type { Cluster } from './cluster.ts';
import type { ResourceType } from './resources.ts';
import type { StoredObject } from './types.ts';

const MANAGER = 'kube-controller-manager';

export interface EventLimits {
  /** How long an Event lives (kube-apiserver's `--event-ttl`, one hour by default). */
  ttlMs: number;
  /** The most controller Events kept per namespace; the oldest go first. */
  perNamespace: number;
}

export const DEFAULT_EVENT_LIMITS: EventLimits = { ttlMs: 60 * 60 * 1000, perNamespace: 1000 };

interface Recorded {
  namespace: string;
  name: string;
  at: number;
}

export class EventRecorder {
  private readonly cluster: Cluster;
  private readonly limits: EventLimits;
  private type: ResourceType | undefined;
  /** Recorded Events, oldest first, per namespace (the TTL and the cap both drop from the front). */
  private readonly byNamespace = new Map<string, Recorded[]>();
  private lastNanos = 0n;

  constructor(cluster: Cluster, limits: EventLimits = DEFAULT_EVENT_LIMITS) {
    this.cluster = cluster;
    this.limits = limits;
  }

  /** Records an Event about `involved` from `component` (e.g. `deployment-controller`). */
  record(
    involved: StoredObject,
    eventType: 'Normal' | 'Warning',
    reason: string,
    message: string,
    component: string,
  ): void {
    this.type ??= this.cluster.typeFor('v1', 'Event');
    const namespace = involved.metadata.namespace ?? 'default';
    const nowMs = this.cluster.nowDate().getTime();
    this.expire(namespace, nowMs);
    // Unix nanoseconds, kept increasing so two Events in one millisecond get distinct names.
    let nanos = BigInt(nowMs) * 1_000_000n;
    if (nanos <= this.lastNanos) nanos = this.lastNanos + 1n;
    this.lastNanos = nanos;
    const name = `${involved.metadata.name}.${nanos.toString(16)}`;
    const now = this.cluster.now();
    const event: StoredObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace, uid: this.cluster.uid(), creationTimestamp: now },
      involvedObject: {
        kind: involved.kind,
        namespace,
        name: involved.metadata.name,
        uid: involved.metadata.uid,
        apiVersion: involved.apiVersion,
        resourceVersion: involved.metadata.resourceVersion,
      },
      reason,
      message,
      source: { component },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      type: eventType,
      eventTime: null,
      reportingComponent: component,
      reportingInstance: '',
    };
    const recorded = recordUpdate({ live: undefined, updated: event, manager: MANAGER, now }) as StoredObject;
    this.cluster.commit(this.type, recorded, undefined);
    let list = this.byNamespace.get(namespace);
    if (!list) {
      list = [];
      this.byNamespace.set(namespace, list);
    }
    list.push({ namespace, name, at: nowMs });
  }

  /** Drops the namespace's Events past the TTL, and the oldest beyond the cap (before one more). */
  private expire(namespace: string, nowMs: number): void {
    const list = this.byNamespace.get(namespace);
    const type = this.type;
    if (!list || !type) return;
    let drop = 0;
    while (
      drop < list.length &&
      ((list[drop] as Recorded).at <= nowMs - this.limits.ttlMs ||
        list.length - drop >= this.limits.perNamespace)
    )
      drop++;
    for (const gone of list.splice(0, drop)) {
      const live = this.cluster.store.get(type, gone.namespace, gone.name);
      if (live) this.cluster.erase(type, live);
    }
  }
}
