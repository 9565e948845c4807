/**
 * The object store: one table per resource type, indexed by namespace then name, a global
 * resourceVersion counter, and a bounded event history per type so watches can resume.
 * Stored objects are never mutated: every write stores a new object.
 */
import type { ResourceType } from './resources.ts';
import type { StoredObject } from './types.ts';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: EventType;
  /** The global resourceVersion this event produced. */
  rv: number;
  object: StoredObject;
  /** A MODIFIED event's object before the write: a watch with a selector needs both sides. */
  previous?: StoredObject;
}

export type Listener = (event: StoreEvent) => void;

class Table {
  readonly type: ResourceType;
  constructor(type: ResourceType) {
    this.type = type;
  }
  readonly history: StoreEvent[] = [];
  /** Events with rv <= this were dropped from history: a watch from before it gets 410 Gone. */
  compactedRv = 0;
  readonly listeners = new Set<Listener>();
  /** Every object by its key, `<namespace>/<name>` (etcd's key under the resource's prefix). */
  readonly byKey = new Map<string, StoredObject>();
  /** The keys in etcd's order (by code unit: "a-b/x" before "a/y"), kept sorted as objects come and go. */
  readonly keys: string[] = [];
}

/** The object's key in its table. */
export function storeKey(object: StoredObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}

/** The index of the first key in `keys` (sorted) that is greater than `key`, or equal when `orEqual`. */
function bound(keys: readonly string[], key: string, orEqual: boolean): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const k = keys[mid] as string;
    if (k > key || (orEqual && k === key)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** A run of a table's keys in etcd's order: `keys[from]` up to (not including) `keys[to]`. */
export interface KeyRange {
  /** The table's index: valid until the type's next write. Never mutate it. */
  keys: readonly string[];
  from: number;
  to: number;
  /** The object of a key of the range. */
  object(key: string): StoredObject;
}

export interface StoreOptions {
  /** Events kept per resource type for watch resumption. */
  historyPerType?: number;
}

export class Store {
  private rv = 0;
  private readonly tables = new Map<ResourceType, Table>();
  private readonly historyPerType: number;
  /** owner uid -> dependents, so garbage collection never scans the store. */
  private readonly owners = new Map<string, Map<string, { type: ResourceType; object: StoredObject }>>();

  constructor(options: StoreOptions = {}) {
    this.historyPerType = options.historyPerType ?? 1000;
  }

  private table(type: ResourceType): Table {
    let t = this.tables.get(type);
    if (!t) {
      t = new Table(type);
      this.tables.set(type, t);
    }
    return t;
  }

  /** The latest resourceVersion handed out. */
  currentRv(): number {
    return this.rv;
  }

  /** Allocates the next resourceVersion (for a write about to be stored). */
  nextRv(): number {
    this.rv += 1;
    return this.rv;
  }

  get(type: ResourceType, namespace: string, name: string): StoredObject | undefined {
    return this.tables.get(type)?.byKey.get(`${namespace}/${name}`);
  }

  /**
   * The keys of a type's objects in one namespace or all (`undefined`), in etcd's order, after
   * `after` when given: a page is cut from its continue key by a binary search, as etcd reads a
   * range, without sorting or copying the collection.
   */
  keyRange(type: ResourceType, namespace: string | undefined, after?: string): KeyRange {
    const t = this.tables.get(type);
    const keys = t?.keys ?? [];
    let from = 0;
    let to = keys.length;
    if (namespace !== undefined) {
      from = bound(keys, `${namespace}/`, true);
      // '0' is the code unit after '/': every key of the namespace sorts before `<namespace>0`.
      to = bound(keys, `${namespace}0`, true);
    }
    if (after !== undefined) from = Math.max(from, bound(keys, after, false));
    const byKey = t?.byKey;
    return { keys, from, to, object: (key) => byKey?.get(key) as StoredObject };
  }

  /** Objects of a type, in one namespace or all (`undefined`), in etcd's key order. */
  list(type: ResourceType, namespace: string | undefined): StoredObject[] {
    const range = this.keyRange(type, namespace);
    const out: StoredObject[] = [];
    for (let i = range.from; i < range.to; i++) out.push(range.object(range.keys[i] as string));
    return out;
  }

  /**
   * Stores `object` (its metadata.resourceVersion must already be the rv from `nextRv`) and
   * notifies watchers.
   */
  put(type: ResourceType, object: StoredObject, rv: number): StoreEvent {
    const t = this.table(type);
    const key = storeKey(object);
    const previous = t.byKey.get(key);
    if (previous) this.unindex(type, previous);
    else t.keys.splice(bound(t.keys, key, false), 0, key);
    t.byKey.set(key, object);
    this.index(type, object);
    return this.emit(
      t,
      previous ? { type: 'MODIFIED', rv, object, previous } : { type: 'ADDED', rv, object },
    );
  }

  /** Removes an object; the DELETED event carries `object` (with the deletion's resourceVersion). */
  remove(type: ResourceType, object: StoredObject, rv: number): StoreEvent | undefined {
    const t = this.tables.get(type);
    const key = storeKey(object);
    if (!t?.byKey.delete(key)) return undefined;
    t.keys.splice(bound(t.keys, key, true), 1);
    this.unindex(type, object);
    return this.emit(t, { type: 'DELETED', rv, object });
  }

  private static key(type: ResourceType, object: StoredObject): string {
    return `${type.group}/${type.resource}/${storeKey(object)}`;
  }

  private index(type: ResourceType, object: StoredObject): void {
    for (const ref of object.metadata.ownerReferences ?? []) {
      let deps = this.owners.get(ref.uid);
      if (!deps) {
        deps = new Map();
        this.owners.set(ref.uid, deps);
      }
      deps.set(Store.key(type, object), { type, object });
    }
  }

  private unindex(type: ResourceType, object: StoredObject): void {
    for (const ref of object.metadata.ownerReferences ?? []) {
      const deps = this.owners.get(ref.uid);
      deps?.delete(Store.key(type, object));
      if (deps?.size === 0) this.owners.delete(ref.uid);
    }
  }

  /** Objects whose ownerReferences name `uid`. */
  dependents(uid: string): { type: ResourceType; object: StoredObject }[] {
    return [...(this.owners.get(uid)?.values() ?? [])];
  }

  private emit(t: Table, event: StoreEvent): StoreEvent {
    t.history.push(event);
    // Trim in batches (a quarter of the window at a time) so a write does not shift the array every time.
    if (t.history.length > this.historyPerType + Math.ceil(this.historyPerType / 4)) {
      const dropped = t.history.splice(0, t.history.length - this.historyPerType);
      t.compactedRv = (dropped[dropped.length - 1] as StoreEvent).rv;
    }
    for (const listener of t.listeners) listener(event);
    return event;
  }

  /**
   * Events of a type after `rv`, or `undefined` when some of them were already dropped
   * (the caller answers 410 Gone).
   */
  eventsSince(type: ResourceType, rv: number): StoreEvent[] | undefined {
    const t = this.table(type);
    if (rv < t.compactedRv) return undefined;
    const out: StoreEvent[] = [];
    // History is in rv order: walk back from the end until older than rv.
    for (let i = t.history.length - 1; i >= 0; i--) {
      const event = t.history[i] as StoreEvent;
      if (event.rv <= rv) break;
      out.push(event);
    }
    return out.reverse();
  }

  /** The oldest resourceVersion a watch of this type can still resume from. */
  oldestResumableRv(type: ResourceType): number {
    return this.table(type).compactedRv;
  }

  subscribe(type: ResourceType, listener: Listener): () => void {
    const t = this.table(type);
    t.listeners.add(listener);
    return () => t.listeners.delete(listener);
  }
}
