/**
 * Node ports of NodePort and LoadBalancer Services, as the API server's Service registry handles
 * them: a port left unset gets a free one of 30000-32767, a port number used with two protocols
 * shares one, an update that leaves it out keeps the allocated one (matched by port name), and a
 * requested port outside the range or held by another Service is refused with 422.
 */
import type { Cluster } from './cluster.ts';
import type { ResourceType } from './resources.ts';
import { ApiError, invalid, type StatusCause } from './status.ts';
import type { StoredObject } from './types.ts';

type Obj = Record<string, unknown>;

const FIRST = 30000;
const LAST = 32767;

function ports(o: StoredObject | undefined): Obj[] {
  const list = (o?.spec as Obj | undefined)?.ports;
  return Array.isArray(list) ? (list.filter((p) => p !== null && typeof p === 'object') as Obj[]) : [];
}

function needsNodePorts(o: StoredObject | undefined): boolean {
  const type = (o?.spec as Obj | undefined)?.type;
  return type === 'NodePort' || type === 'LoadBalancer';
}

/**
 * Where each cluster's next search starts: moving on after each allocation (as the real random
 * allocator does, a freed or unkept port is not handed straight back).
 */
const cursors = new WeakMap<Cluster, number>();

/** The next free port from the cluster's cursor, wrapping once around the range. */
function nextFree(cluster: Cluster, taken: Set<number>): number {
  const size = LAST - FIRST + 1;
  const start = cursors.get(cluster) ?? 0;
  for (let i = 0; i < size; i++) {
    const n = FIRST + ((start + i) % size);
    if (!taken.has(n)) {
      cursors.set(cluster, (start + i + 1) % size);
      return n;
    }
  }
  throw new ApiError(
    500,
    'InternalError',
    'Internal error occurred: failed to allocate a nodePort: range is full',
  );
}

const nodePortOf = (p: Obj): number | undefined =>
  typeof p.nodePort === 'number' && p.nodePort !== 0 ? p.nodePort : undefined;

/** Node ports held by every other Service of the cluster. */
function heldByOthers(cluster: Cluster, type: ResourceType, self: StoredObject): Set<number> {
  const held = new Set<number>();
  for (const svc of cluster.store.list(type, undefined)) {
    if (svc.metadata.uid === self.metadata.uid) continue;
    for (const p of ports(svc)) {
      const n = nodePortOf(p);
      if (n !== undefined) held.add(n);
    }
  }
  return held;
}

/** An update keeps the old node port of a same-named port it leaves unset, unless another port took it. */
function keepAllocated(live: StoredObject, next: Obj[]): void {
  const used = new Set(next.map(nodePortOf).filter((n) => n !== undefined));
  const byName = new Map(ports(live).map((p) => [String(p.name ?? ''), nodePortOf(p)]));
  for (const p of next) {
    const old = byName.get(String(p.name ?? ''));
    if (nodePortOf(p) === undefined && old !== undefined && !used.has(old)) p.nodePort = old;
  }
}

/** Assigns and checks the node ports of a Service write (`live` for an update); throws 422. */
export function assignNodePorts(
  cluster: Cluster,
  type: ResourceType,
  next: StoredObject,
  live: StoredObject | undefined,
): void {
  if (type.kind !== 'Service' || !needsNodePorts(next)) return;
  const list = ports(next);
  if (live && needsNodePorts(live)) keepAllocated(live, list);
  const held = heldByOthers(cluster, type, next);
  const causes: StatusCause[] = [];
  const mine = new Map<unknown, number>();
  list.forEach((p, i) => {
    const n = nodePortOf(p);
    if (n === undefined) return;
    const field = `spec.ports[${i}].nodePort`;
    if (n < FIRST || n > LAST) {
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${n}: provided port is not in the valid range. The range of valid ports is ${FIRST}-${LAST}`,
        field,
      });
    } else if (held.has(n)) {
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${n}: provided port is already allocated`,
        field,
      });
    }
    mine.set(p.port, n);
  });
  if (causes.length > 0) throw invalid(type, next.metadata.name ?? '', causes);
  const taken = new Set([...held, ...mine.values()]);
  for (const p of list) {
    if (nodePortOf(p) !== undefined) continue;
    // The same port number over TCP and UDP shares one node port.
    const shared = mine.get(p.port);
    if (shared !== undefined) {
      p.nodePort = shared;
      continue;
    }
    const n = nextFree(cluster, taken);
    p.nodePort = n;
    taken.add(n);
    mine.set(p.port, n);
  }
}
