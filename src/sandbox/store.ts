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
}

export type Listener = (event: StoreEvent) => void;

class Table {
  readonly byNamespace = new Map<string, Map<string, StoredObject>>();
  readonly type: ResourceType;
  constructor(type: ResourceType) {
    this.type = type;
  }
  readonly history: StoreEvent[] = [];
  /** Events with rv <= this were dropped from history: a watch from before it gets 410 Gone. */
  compactedRv = 0;
  readonly listeners = new Set<Listener>();
  size = 0;
  /** Sorted listings by namespace (`undefined`: all), dropped on every write of the type. */
  readonly sorted = new Map<string | undefined, readonly StoredObject[]>();
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
    return this.tables.get(type)?.byNamespace.get(namespace)?.get(name);
  }

  /**
   * Objects of a type, in one namespace or all (`undefined`), sorted by namespace then name like
   * etcd keys. The sorted listing is kept until the next write of the type, so paging through a
   * large collection (a page per request) sorts it once, as etcd's key order costs nothing. The
   * array is shared: never mutate it.
   */
  list(type: ResourceType, namespace: string | undefined): readonly StoredObject[] {
    const t = this.tables.get(type);
    if (!t) return [];
    const cached = t.sorted.get(namespace);
    if (cached) return cached;
    const out: StoredObject[] = [];
    if (namespace !== undefined) {
      const ns = t.byNamespace.get(namespace);
      if (ns) for (const obj of ns.values()) out.push(obj);
      out.sort(byName);
    } else {
      // etcd's order: keys are `<namespace>/<name>`, so "a-b/x" sorts before "a/y".
      const keys = [...t.byNamespace.keys()].sort((x, y) =>
        `${x}/` < `${y}/` ? -1 : `${x}/` > `${y}/` ? 1 : 0,
      );
      for (const key of keys) {
        const ns = [...(t.byNamespace.get(key)?.values() ?? [])].sort(byName);
        out.push(...ns);
      }
    }
    Object.freeze(out);
    t.sorted.set(namespace, out);
    return out;
  }

  count(type: ResourceType, namespace?: string): number {
    const t = this.tables.get(type);
    if (!t) return 0;
    return namespace === undefined ? t.size : (t.byNamespace.get(namespace)?.size ?? 0);
  }

  /**
   * Stores `object` (its metadata.resourceVersion must already be the rv from `nextRv`) and
   * notifies watchers.
   */
  put(type: ResourceType, object: StoredObject, rv: number): StoreEvent {
    const t = this.table(type);
    const namespace = object.metadata.namespace ?? '';
    let ns = t.byNamespace.get(namespace);
    if (!ns) {
      ns = new Map();
      t.byNamespace.set(namespace, ns);
    }
    const previous = ns.get(object.metadata.name ?? '');
    const existed = previous !== undefined;
    t.sorted.clear();
    if (previous) this.unindex(type, previous);
    ns.set(object.metadata.name ?? '', object);
    this.index(type, object);
    if (!existed) t.size++;
    return this.emit(t, { type: existed ? 'MODIFIED' : 'ADDED', rv, object });
  }

  /** Removes an object; the DELETED event carries `object` (with the deletion's resourceVersion). */
  remove(type: ResourceType, object: StoredObject, rv: number): StoreEvent | undefined {
    const t = this.tables.get(type);
    const namespace = object.metadata.namespace ?? '';
    const ns = t?.byNamespace.get(namespace);
    if (!t || !ns?.delete(object.metadata.name ?? '')) return undefined;
    t.sorted.clear();
    t.size--;
    this.unindex(type, object);
    if (ns.size === 0) t.byNamespace.delete(namespace);
    return this.emit(t, { type: 'DELETED', rv, object });
  }

  private static key(type: ResourceType, object: StoredObject): string {
    return `${type.group}/${type.resource}/${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
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

function byName(a: StoredObject, b: StoredObject): number {
  const x = a.metadata.name ?? '';
  const y = b.metadata.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}
