/**
 * Service cluster IPs as the Service registry allocates them from 10.96.0.0/12: an address left
 * unset gets the next free one, a requested address outside the range or held by another Service
 * is refused with 422 in the registry's words, and a deleted Service frees its address. The
 * addresses in use are indexed from the store's writes, so a check never scans the Services.
 */
import type { Cluster } from './cluster.ts';
import type { ResourceType } from './resources.ts';
import { invalid } from './status.ts';
import type { StoredObject } from './types.ts';

type Obj = Record<string, unknown>;

/** The service CIDR, 10.96.0.0/12: 10.96.0.0 to 10.111.255.255. */
const RANGE = '10.96.0.0/12';
const FIRST = ipNumber('10.96.0.0') as number;
const LAST = FIRST + 2 ** 20 - 1;
/** The address of the `kubernetes` Service (the range's first usable one). */
export const KUBERNETES_SERVICE_IP = '10.96.0.1';

function ipNumber(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

function ipText(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

function clusterIPOf(o: StoredObject | undefined): string | undefined {
  const ip = (o?.spec as Obj | undefined)?.clusterIP;
  return typeof ip === 'string' && ip !== '' && ip !== 'None' ? ip : undefined;
}

export class ServiceIPs {
  /** Address -> the uid of the Service holding it. */
  private readonly held = new Map<string, string>();
  private next = FIRST + 12;

  constructor(cluster: Cluster) {
    cluster.writeHooks.push((type, object, previous) => {
      if (type.kind !== 'Service') return;
      const before = clusterIPOf(previous);
      if (before && this.held.get(before) === previous?.metadata.uid) this.held.delete(before);
      const after = clusterIPOf(object);
      if (after) this.held.set(after, object?.metadata.uid ?? '');
    });
  }

  /** The next free address of the range, moving on after each (a freed one is not handed straight back). */
  allocate(): string {
    for (let i = 0; i < LAST - FIRST; i++) {
      const n = this.next;
      this.next = n >= LAST - 1 ? FIRST + 2 : n + 1;
      const ip = ipText(n);
      if (ip !== KUBERNETES_SERVICE_IP && !this.held.has(ip)) return ip;
    }
    throw new Error('the service IP range is full');
  }

  /** Refuses a new Service's requested address when it is outside the range or taken (422). */
  check(type: ResourceType, service: StoredObject): void {
    const ip = clusterIPOf(service);
    if (type.kind !== 'Service' || ip === undefined) return;
    const n = ipNumber(ip);
    let why: string | undefined;
    if (n === undefined) return; // a malformed address is validation's to refuse
    if (n <= FIRST || n >= LAST)
      why = `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${RANGE}`;
    else if (this.held.has(ip) && this.held.get(ip) !== service.metadata.uid)
      why = 'provided IP is already allocated';
    if (!why) return;
    const ips = ((service.spec as Obj).clusterIPs as string[] | undefined) ?? [ip];
    throw invalid(type, service.metadata.name ?? '', [
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: []string{${ips.map((i) => JSON.stringify(i)).join(', ')}}: failed to allocate IP ${ip}: ${why}`,
        field: 'spec.clusterIPs',
      },
    ]);
  }
}
