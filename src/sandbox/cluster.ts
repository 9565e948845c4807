/**
 * The shared state of one sandbox API server: the store, the clock, identifiers, the Service IP
 * allocator, and the hook the simulated controller listens on. Verb handlers receive it.
 */
import { randomUUID } from 'node:crypto';
import type { DefaultingContext } from './defaults.ts';
import { ClaimProtectionController } from './claim-protection.ts';
import { ServiceIPs } from './cluster-ips.ts';
import { EventRecorder } from './events.ts';
import { NamespaceController } from './namespaces.ts';
import { findByKind, findByResource, qualifiedResource, type ResourceType } from './resources.ts';
import { forbidden, namespaceNotFound } from './status.ts';
import { Store } from './store.ts';
import { TokenController } from './token-controller.ts';
import type { StoredObject } from './types.ts';

export interface ClusterOptions {
  /** Returns the current time; injected so tests can pin it. */
  now?: () => Date;
  historyPerType?: number;
  /** CustomResourceDefinitions installed: their types are served (`ResourceType.crd`). */
  crds?: readonly string[];
  /** The CA certificate (PEM) each namespace's `kube-root-ca.crt` ConfigMap carries. */
  caPem?: string;
}

const NAMESPACES = findByResource('', 'v1', 'namespaces') as ResourceType;

/** Seconds-precision RFC 3339 time, as Kubernetes writes metav1.Time. */
export function kubeTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

export class Cluster implements DefaultingContext {
  readonly store: Store;
  private readonly clock: () => Date;
  private readonly crds: ReadonlySet<string>;
  private lastSecond = Number.NaN;
  private lastTime = '';
  /** Called after every stored write (the simulated controller reacts to workloads). */
  readonly writeHooks: ((
    type: ResourceType,
    object: StoredObject | undefined,
    previous: StoredObject | undefined,
  ) => void)[] = [];
  /** The namespace controllers: default ServiceAccount, root CA ConfigMap, termination. */
  readonly namespaces: NamespaceController;
  /** The controllers' Events (bounded by age and per namespace). */
  readonly events: EventRecorder;
  /** Service cluster IPs in use, allocated and checked as the Service registry does. */
  readonly serviceIPs: ServiceIPs;

  constructor(options: ClusterOptions = {}) {
    this.store = new Store({ historyPerType: options.historyPerType });
    this.clock = options.now ?? (() => new Date());
    this.crds = new Set(options.crds ?? []);
    this.namespaces = new NamespaceController(this, options.caPem ?? '');
    this.events = new EventRecorder(this);
    this.serviceIPs = new ServiceIPs(this);
    new ClaimProtectionController(this);
    new TokenController(this, options.caPem ?? '');
  }

  /** Whether this server serves `type`: built-in types always, a CRD's only once installed. */
  serves(type: ResourceType): boolean {
    return type.crd === undefined || this.crds.has(type.crd);
  }

  now(): string {
    // Several writes a second (and several calls a write) share one formatted second.
    const ms = this.clock().getTime();
    const second = Math.floor(ms / 1000);
    if (second !== this.lastSecond) {
      this.lastSecond = second;
      this.lastTime = kubeTime(new Date(second * 1000));
    }
    return this.lastTime;
  }

  nowDate(): Date {
    return this.clock();
  }

  uid(): string {
    return randomUUID();
  }

  /** Allocates the next free address of 10.96.0.0/12, never .0.1 (the kubernetes Service's). */
  allocateClusterIP(): string {
    return this.serviceIPs.allocate();
  }

  namespaceType(): ResourceType {
    return NAMESPACES;
  }

  /** Throws 404 when a namespaced write targets a namespace that does not exist. */
  requireNamespace(namespace: string): StoredObject {
    const ns = this.store.get(NAMESPACES, '', namespace);
    if (!ns) throw namespaceNotFound(namespace);
    return ns;
  }

  /** Throws 403 when the namespace is being deleted (no new content may be created in it). */
  requireActiveNamespace(type: ResourceType, namespace: string, name: string): void {
    const ns = this.requireNamespace(namespace);
    if (ns.metadata.deletionTimestamp) {
      const what = `${qualifiedResource(type)}${name ? ` "${name}"` : ''}`;
      const error = forbidden(
        type,
        name,
        `${what} is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
      );
      // The NamespaceLifecycle admission plugin names the cause, so clients can tell it apart.
      error.status.details = {
        ...error.status.details,
        causes: [
          {
            reason: 'NamespaceTerminating',
            message: `namespace ${namespace} is being terminated`,
            field: 'metadata.namespace',
          },
        ],
      };
      throw error;
    }
  }

  /** Stores an object under a new resourceVersion and runs the write hooks. */
  commit(type: ResourceType, object: StoredObject, previous: StoredObject | undefined): StoredObject {
    const rv = this.store.nextRv();
    object.metadata.resourceVersion = String(rv);
    this.store.put(type, object, rv);
    for (const hook of this.writeHooks) hook(type, object, previous);
    return object;
  }

  /** Removes an object; the DELETED event carries a new resourceVersion. */
  erase(type: ResourceType, object: StoredObject): void {
    const rv = this.store.nextRv();
    const gone = { ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } };
    this.store.remove(type, gone, rv);
    for (const hook of this.writeHooks) hook(type, undefined, object);
  }

  /** The served type of a kind; throws if the kind is not served (a programming error). */
  typeFor(apiVersion: string, kind: string): ResourceType {
    const type = findByKind(apiVersion, kind);
    if (!type) throw new Error(`${apiVersion}/${kind} is not served`);
    return type;
  }

  typeOf(object: StoredObject): ResourceType | undefined {
    return findByKind(object.apiVersion, object.kind);
  }
}
