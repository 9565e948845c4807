/** Table columns of core/v1 kinds, as kube-apiserver's printers define them. */
import { since } from './human-duration.ts';
import {
  AGE,
  type Column,
  col,
  formatLabels,
  list,
  NAME,
  type Obj,
  obj,
  spec,
  status,
  str,
  wide,
} from './table-column.ts';
import type { StoredObject } from './types.ts';

/** Load balancer ingress points, IP or hostname, sorted and unique (the server prints wide: no clipping). */
export function loadBalancerAddresses(lb: unknown): string {
  const points = list(obj(lb).ingress).map((i) => str(i.ip) || str(i.hostname));
  return [...new Set(points.filter((p) => p !== ''))].sort().join(',');
}

function externalIP(o: StoredObject): string {
  const sp = spec(o);
  const external = (Array.isArray(sp.externalIPs) ? sp.externalIPs : []) as string[];
  switch (sp.type ?? 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerAddresses(status(o).loadBalancer);
      const all = [...(lb === '' ? [] : lb.split(',')), ...external];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(sp.externalName);
    default:
      return '<unknown>';
  }
}

function ports(o: StoredObject): string {
  const text = list(spec(o).ports)
    .map((p) => {
      const proto = str(p.protocol);
      return typeof p.nodePort === 'number' && p.nodePort > 0
        ? `${String(p.port)}:${p.nodePort}/${proto}`
        : `${String(p.port)}/${proto}`;
    })
    .join(',');
  return text === '' ? '<none>' : text;
}

const ACCESS_MODES: [string, string][] = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

/** helper.GetAccessModesAsString: the short forms in a fixed order, each once. */
function accessModes(modes: unknown): string {
  const given = new Set(Array.isArray(modes) ? (modes as string[]) : []);
  return ACCESS_MODES.filter(([m]) => given.has(m))
    .map(([, short]) => short)
    .join(',');
}

/** Capacity and access modes show only once the claim names its volume. */
function bound(o: StoredObject): boolean {
  return str(spec(o).volumeName) !== '';
}

function claimClass(o: StoredObject): string {
  const beta = o.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'];
  return beta ?? str(spec(o).storageClassName);
}

/** An Event's LAST SEEN, FIRST SEEN and COUNT, from the core/v1 or the events.k8s.io-style fields. */
function eventTimes(e: StoredObject, now: Date): { first: string; last: string; count: number } {
  const ev = e as Obj;
  const first = str(ev.firstTimestamp) !== '' ? since(ev.firstTimestamp, now) : since(ev.eventTime, now);
  let last = str(ev.lastTimestamp) !== '' ? since(ev.lastTimestamp, now) : first;
  let count = typeof ev.count === 'number' ? ev.count : 0;
  const series = ev.series === undefined || ev.series === null ? undefined : obj(ev.series);
  if (series) {
    last = since(series.lastObservedTime, now);
    count = typeof series.count === 'number' ? series.count : 0;
  } else if (count === 0) count = 1; // a singleton event of the new API carries no count
  return { first, last, count };
}

function eventObject(e: StoredObject): string {
  const io = obj((e as Obj).involvedObject);
  const kind = str(io.kind).toLowerCase();
  return str(io.name) !== '' ? `${kind}/${str(io.name)}` : kind;
}

/** formatEventSource: component (or reporting controller), then host (or reporting instance). */
function eventSource(e: StoredObject): string {
  const ev = e as Obj;
  const source = obj(ev.source);
  const component = str(source.component) || str(ev.reportingComponent);
  const instance = str(source.host) || str(ev.reportingInstance);
  return instance === '' ? component : `${component}, ${instance}`;
}

export const CORE_COLUMNS: Record<string, Column[]> = {
  Service: [
    NAME,
    col('Type', (o) => str(spec(o).type)),
    col('Cluster-IP', (o) => {
      const ips = spec(o).clusterIPs;
      return Array.isArray(ips) && ips.length > 0 ? String(ips[0]) : '<none>';
    }),
    col('External-IP', externalIP),
    col('Port(s)', ports),
    AGE,
    wide('Selector', (o) => formatLabels(spec(o).selector)),
  ],
  Secret: [NAME, col('Type', (o) => str(o.type)), col('Data', (o) => Object.keys(obj(o.data)).length), AGE],
  ConfigMap: [
    NAME,
    col('Data', (o) => Object.keys(obj(o.data)).length + Object.keys(obj(o.binaryData)).length),
    AGE,
  ],
  ServiceAccount: [NAME, col('Secrets', (o) => list(o.secrets).length), AGE],
  Namespace: [NAME, col('Status', (o) => str(status(o).phase)), AGE],
  PersistentVolumeClaim: [
    NAME,
    col('Status', (o) => (o.metadata.deletionTimestamp ? 'Terminating' : str(status(o).phase))),
    col('Volume', (o) => str(spec(o).volumeName)),
    col('Capacity', (o) => (bound(o) ? str(obj(status(o).capacity).storage) : '')),
    col('Access Modes', (o) => (bound(o) ? accessModes(status(o).accessModes) : '')),
    col('StorageClass', claimClass),
    col('VolumeAttributesClass', (o) => str(spec(o).volumeAttributesClassName) || '<unset>'),
    AGE,
    wide('VolumeMode', (o) => str(spec(o).volumeMode) || '<unset>'),
  ],
  // The server always prints wide, so an Event row carries every cell in column order.
  Event: [
    col('Last Seen', (o, now) => eventTimes(o, now).last),
    col('Type', (o) => str((o as Obj).type)),
    col('Reason', (o) => str((o as Obj).reason)),
    col('Object', eventObject),
    wide('Subobject', (o) => str(obj((o as Obj).involvedObject).fieldPath)),
    wide('Source', eventSource),
    col('Message', (o) => str((o as Obj).message).trim()),
    wide('First Seen', (o, now) => eventTimes(o, now).first),
    wide('Count', (o, now) => eventTimes(o, now).count),
    { ...NAME, priority: 1 },
  ],
};
