/**
 * The namespace controllers of kube-controller-manager, simulated: every namespace gets a
 * `default` ServiceAccount and the `kube-root-ca.crt` ConfigMap (recreated if deleted), and a
 * deleted namespace stays Terminating while its content goes: objects are deleted, those held by
 * finalizers are waited for (with the status conditions the real controller writes), then the
 * `kubernetes` finalizer is removed and the namespace with it.
 */
import { recordUpdate } from './apply/index.ts';
import type { Cluster } from './cluster.ts';
import { deleteObject } from './deletes.ts';
import { jsonEqual } from './equal.ts';
import { RESOURCE_TYPES, type ResourceType } from './resources.ts';
import type { StoredObject } from './types.ts';

type Obj = Record<string, unknown>;

const MANAGER = 'kube-controller-manager';
/** The ConfigMap with the cluster's CA that every namespace gets. */
export const ROOT_CA = 'kube-root-ca.crt';
const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

/** The conditions the namespace deleter maintains, in its order, with their "all clear" reason and message. */
const CONDITIONS: [type: string, reason: string, message: string][] = [
  ['NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'],
  [
    'NamespaceDeletionGroupVersionParsingFailure',
    'ParsedGroupVersions',
    'All legacy kube types successfully parsed',
  ],
  [
    'NamespaceDeletionContentFailure',
    'ContentDeleted',
    'All content successfully deleted, may be waiting on finalization',
  ],
  ['NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'],
  ['NamespaceFinalizersRemaining', 'ContentRemoved', 'All content successfully removed'],
];

export class NamespaceController {
  private readonly cluster: Cluster;
  private readonly caPem: string;
  private readonly namespaces: ResourceType;
  private readonly accounts: ResourceType;
  private readonly configMaps: ResourceType;
  /** Terminating namespaces with a pass of the deleter already queued. */
  private readonly queued = new Set<string>();

  constructor(cluster: Cluster, caPem: string) {
    this.cluster = cluster;
    this.caPem = caPem;
    this.namespaces = cluster.namespaceType();
    this.accounts = cluster.typeFor('v1', 'ServiceAccount');
    this.configMaps = cluster.typeFor('v1', 'ConfigMap');
    cluster.writeHooks.push((type, object, previous) => this.observe(type, object, previous));
  }

  /** Marks a namespace Terminating (the DELETE's answer) and queues the removal of its content. */
  terminate(live: StoredObject): StoredObject {
    if (live.metadata.deletionTimestamp) return live;
    const now = this.cluster.now();
    const marked: StoredObject = {
      ...live,
      metadata: { ...live.metadata, deletionTimestamp: now, deletionGracePeriodSeconds: 0 },
      status: { ...((live.status ?? {}) as Obj), phase: 'Terminating' },
    };
    const stored = this.cluster.commit(this.namespaces, marked, live);
    this.queue(live.metadata.name ?? '');
    return stored;
  }

  private observe(
    type: ResourceType,
    object: StoredObject | undefined,
    previous: StoredObject | undefined,
  ): void {
    if (type === this.namespaces) {
      if (object && !previous) this.seed(object.metadata.name ?? '');
      return;
    }
    if (!type.namespaced) return;
    const namespace = (object ?? previous)?.metadata.namespace ?? '';
    const ns = this.cluster.store.get(this.namespaces, '', namespace);
    if (!ns) return;
    if (ns.metadata.deletionTimestamp) this.queue(namespace);
    else if (!object && (type === this.accounts || type === this.configMaps)) {
      // The controllers put back what they own, as in a cluster.
      const immediate = setImmediate(() => this.seed(namespace));
      immediate.unref();
    }
  }

  /** Creates the namespace's default ServiceAccount and root CA ConfigMap when missing. */
  private seed(namespace: string): void {
    const ns = this.cluster.store.get(this.namespaces, '', namespace);
    if (!ns || ns.metadata.deletionTimestamp) return;
    this.createMissing(this.accounts, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'default', namespace },
    });
    this.createMissing(this.configMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: ROOT_CA,
        namespace,
        annotations: { 'kubernetes.io/description': ROOT_CA_DESCRIPTION },
      },
      data: { 'ca.crt': this.caPem },
    });
  }

  private createMissing(type: ResourceType, object: StoredObject): void {
    const namespace = object.metadata.namespace ?? '';
    if (this.cluster.store.get(type, namespace, object.metadata.name ?? '')) return;
    object.metadata.uid = this.cluster.uid();
    object.metadata.creationTimestamp = this.cluster.now();
    const now = this.cluster.now();
    this.cluster.commit(
      type,
      recordUpdate({ live: undefined, updated: object, manager: MANAGER, now }) as StoredObject,
      undefined,
    );
  }

  private queue(namespace: string): void {
    if (this.queued.has(namespace)) return;
    this.queued.add(namespace);
    const immediate = setImmediate(() => {
      this.queued.delete(namespace);
      this.sweep(namespace);
    });
    immediate.unref();
  }

  /**
   * One pass of the namespace deleter: deletes what is not yet being deleted, then finalizes the
   * namespace when nothing is left, or records what remains in its conditions.
   */
  private sweep(namespace: string): void {
    const live = this.cluster.store.get(this.namespaces, '', namespace);
    if (!live?.metadata.deletionTimestamp) return;
    const remaining = new Map<string, number>();
    const finalizers = new Map<string, number>();
    for (const type of RESOURCE_TYPES) {
      if (!type.namespaced) continue;
      for (const object of this.cluster.store.list(type, namespace)) {
        if (!object.metadata.deletionTimestamp) {
          deleteObject(this.cluster, type, namespace, object.metadata.name ?? '', { dryRun: false });
        }
        // What the delete did not erase is still there, held by its finalizers.
        const left = this.cluster.store.get(type, namespace, object.metadata.name ?? '');
        if (!left) continue;
        const key = `${type.resource}.${type.group}`;
        remaining.set(key, (remaining.get(key) ?? 0) + 1);
        for (const f of left.metadata.finalizers ?? []) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
      }
    }
    if (remaining.size === 0) this.finalize(live);
    else this.report(live, remaining, finalizers);
  }

  /** Removes the `kubernetes` finalizer; the namespace goes unless other finalizers hold it. */
  private finalize(live: StoredObject): void {
    if ((live.metadata.finalizers ?? []).length === 0) {
      this.cluster.erase(this.namespaces, live);
      return;
    }
    const spec = { ...((live.spec ?? {}) as Obj), finalizers: [] };
    this.writeStatus(live, { ...live, spec });
  }

  private report(live: StoredObject, remaining: Map<string, number>, finalizers: Map<string, number>): void {
    const failing = new Map<string, [string, string]>();
    const resources = [...remaining].map(([r, n]) => `${r} has ${n} resource instances`).sort();
    failing.set('NamespaceContentRemaining', [
      'SomeResourcesRemain',
      `Some resources are remaining: ${resources.join(', ')}`,
    ]);
    if (finalizers.size > 0) {
      const held = [...finalizers].map(([f, n]) => `${f} in ${n} resource instances`).sort();
      failing.set('NamespaceFinalizersRemaining', [
        'SomeFinalizerRemain',
        `Some finalizers are remaining: ${held.join(', ')}`,
      ]);
    }
    const status = (live.status ?? {}) as Obj;
    const old = (status.conditions ?? []) as Obj[];
    const now = this.cluster.now();
    const conditions = CONDITIONS.map(([type, okReason, okMessage]) => {
      const bad = failing.get(type);
      const next = {
        type,
        status: bad ? 'True' : 'False',
        reason: bad?.[0] ?? okReason,
        message: bad?.[1] ?? okMessage,
      };
      const before = old.find((c) => c.type === type);
      const since = before && before.status === next.status ? before.lastTransitionTime : now;
      return { ...next, lastTransitionTime: since };
    });
    if (jsonEqual(old, conditions)) return;
    this.writeStatus(live, { ...live, status: { ...status, conditions } });
  }

  private writeStatus(live: StoredObject, next: StoredObject): void {
    const recorded = recordUpdate({
      live,
      updated: next,
      manager: MANAGER,
      now: this.cluster.now(),
      subresource: 'status',
    }) as StoredObject;
    this.cluster.commit(this.namespaces, recorded, live);
  }
}
