/**
 * Which listed objects a sharded replica keeps an entry for (ADR 0015). Every owned object carries
 * its deployment's id label, so an object of a deployment in a shard the replica does not hold is
 * dropped as it arrives (cycle listings and the watch cache alike), and the replica's memory
 * follows its share instead of the whole listener's. Two things still read other shards' objects:
 * - the identity check (reconcile/identity.ts) looks up the Secrets and claims a deployment refers
 *   to by name and reads their owner labels, so those kinds keep a stub (`stubOf`) of their
 *   ownership labels and version;
 * - the collision rules ask whether a deployment being deleted still owns objects; for another
 *   shard's the answer is "unknown", which holds its names (desired-resolver.ts), the safe side.
 * An object without a deployment id is kept whole: no shard is its owner, so every replica sees it.
 */
import { LABELS } from '../labels.ts';
import type { KubeObject } from '../objects/kube-object.ts';

/** Whether a deployment's objects get entries: it is in a shard held (for one listing, or now). */
export type Keeps = (deploymentId: string) => boolean;

/** Kinds whose other shards' objects keep a stub: what the identity check looks up by name. */
const STUB_KINDS: ReadonlySet<string> = new Set(['Secret', 'PersistentVolumeClaim']);

/**
 * A stub of another shard's object (`stubOf`): its class is what marks it, so that it is never
 * carried into a later listing as an object's entry (`isStub`).
 */
class Stub implements KubeObject {
  [key: string]: unknown;
  apiVersion: string;
  kind: string;
  metadata: KubeObject['metadata'];
  constructor(apiVersion: string, kind: string, metadata: KubeObject['metadata']) {
    this.apiVersion = apiVersion;
    this.kind = kind;
    this.metadata = metadata;
  }
}

/** Whether `o` is a stub of another shard's object (`stubOf`), not an entry a reconcile may use. */
export function isStub(o: KubeObject): boolean {
  return o instanceof Stub;
}

/** Name, namespace, version and ownership labels of `item`: all the identity check reads. */
export function stubOf(item: KubeObject): KubeObject {
  const m = item.metadata;
  const labels: Record<string, string> = {};
  for (const key of [LABELS.deploymentId, LABELS.listenerId]) {
    const value = m.labels?.[key];
    if (typeof value === 'string') labels[key] = value;
  }
  return new Stub(item.apiVersion, item.kind, {
    name: m.name,
    namespace: m.namespace,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
    labels,
  });
}

/** Whether `item`'s deployment is one `keeps` keeps (always without `keeps`, or without an id label). */
export function kept(item: KubeObject, keeps: Keeps | undefined): boolean {
  if (!keeps) return true;
  const id = item.metadata?.labels?.[LABELS.deploymentId];
  return typeof id !== 'string' || id === '' || keeps(id);
}

/**
 * The entry of a listed object of a deployment `keeps` does not keep: a stub for the kinds the
 * identity check reads, else none.
 */
export function otherShardEntry(item: KubeObject): KubeObject | undefined {
  return STUB_KINDS.has(item.kind) ? stubOf(item) : undefined;
}

/** Drops from `entries` (by name) what `keeps` no longer keeps, leaving a stub where one is kept. */
export function dropOtherShards(entries: Map<string, KubeObject>, keeps: Keeps): void {
  for (const [name, entry] of entries) {
    if (kept(entry, keeps) || isStub(entry)) continue;
    const stub = otherShardEntry(entry);
    if (stub) entries.set(name, stub);
    else entries.delete(name);
  }
}
