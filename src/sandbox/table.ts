/**
 * `meta.k8s.io/v1` Table responses, which kubectl asks for (`Accept: ...;as=Table`, answer-form.ts) to print
 * `kubectl get` columns the way a real server's printers define them.
 */
import { partialMetadata } from './answer-form.ts';
import type { KubeObject, StoredObject } from './types.ts';

type Obj = Record<string, unknown>;

interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
  cell: (o: StoredObject, now: Date) => unknown;
}

/** `5s`, `3m`, `2h`, `4d` like kubectl's HumanDuration (coarse). */
function age(o: StoredObject, now: Date): string {
  const created = Date.parse(o.metadata.creationTimestamp ?? '');
  if (Number.isNaN(created)) return '<unknown>';
  const s = Math.max(0, Math.floor((now.getTime() - created) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

function col(name: string, cell: Column['cell'], type = 'string', priority = 0, format = ''): Column {
  return { name, type, format, description: name, priority, cell };
}

const NAME = col('Name', (o) => o.metadata.name, 'string', 0, 'name');
const AGE = col('Age', age);

function spec(o: StoredObject): Obj {
  return (o.spec ?? {}) as Obj;
}
function status(o: StoredObject): Obj {
  return (o.status ?? {}) as Obj;
}
function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

const COLUMNS: Record<string, Column[]> = {
  Deployment: [
    NAME,
    col('Ready', (o) => `${num(status(o).readyReplicas)}/${num(spec(o).replicas)}`),
    col('Up-to-date', (o) => num(status(o).updatedReplicas), 'integer'),
    col('Available', (o) => num(status(o).availableReplicas), 'integer'),
    AGE,
  ],
  ReplicaSet: [
    NAME,
    col('Desired', (o) => num(spec(o).replicas), 'integer'),
    col('Current', (o) => num(status(o).replicas), 'integer'),
    col('Ready', (o) => num(status(o).readyReplicas), 'integer'),
    AGE,
  ],
  StatefulSet: [NAME, col('Ready', (o) => `${num(status(o).readyReplicas)}/${num(spec(o).replicas)}`), AGE],
  Service: [
    NAME,
    col('Type', (o) => spec(o).type),
    col('Cluster-IP', (o) => spec(o).clusterIP ?? '<none>'),
    col('External-IP', () => '<none>'),
    col(
      'Port(s)',
      (o) =>
        ((spec(o).ports ?? []) as Obj[])
          .map((p) => `${String(p.port)}/${String(p.protocol ?? 'TCP')}`)
          .join(',') || '<none>',
    ),
    AGE,
  ],
  Secret: [
    NAME,
    col('Type', (o) => o.type),
    col('Data', (o) => Object.keys((o.data ?? {}) as Obj).length, 'integer'),
    AGE,
  ],
  ConfigMap: [
    NAME,
    col(
      'Data',
      (o) => Object.keys((o.data ?? {}) as Obj).length + Object.keys((o.binaryData ?? {}) as Obj).length,
      'integer',
    ),
    AGE,
  ],
  Namespace: [NAME, col('Status', (o) => status(o).phase), AGE],
  PersistentVolumeClaim: [NAME, col('Status', (o) => status(o).phase), AGE],
  // As the Ingress printer: `*` for a rule without host, ports 80 (and 443 with TLS).
  Ingress: [
    NAME,
    col('Class', (o) => spec(o).ingressClassName ?? '<none>'),
    col('Hosts', (o) => ((spec(o).rules ?? []) as Obj[]).map((r) => r.host ?? '*').join(',') || '*'),
    col('Address', (o) => {
      const lb = ((status(o).loadBalancer as Obj | undefined)?.ingress ?? []) as Obj[];
      return lb.map((i) => i.ip ?? i.hostname).join(',');
    }),
    col('Ports', (o) => (((spec(o).tls ?? []) as Obj[]).length > 0 ? '80, 443' : '80')),
    AGE,
  ],
  // The Gateway API CRD's additionalPrinterColumns.
  HTTPRoute: [NAME, col('Hostnames', (o) => JSON.stringify(spec(o).hostnames ?? [])), AGE],
};

/** A Table of `objects` with the kind's columns; `resourceVersion`/`continue` copied from the list. */
export function toTable(kind: string, objects: StoredObject[], listMeta: Obj, now: Date): KubeObject {
  const columns = COLUMNS[kind] ?? [NAME, AGE];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: columns.map(({ cell: _cell, ...c }) => c),
    rows: objects.map((o) => ({ cells: columns.map((c) => c.cell(o, now)), object: partialMetadata(o) })),
  };
}
