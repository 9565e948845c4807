/** Table columns of apps/v1 workloads, as kube-apiserver's Deployment, ReplicaSet and StatefulSet printers. */
import {
  AGE,
  type Column,
  col,
  formatLabelSelector,
  NAME,
  num,
  selectorString,
  spec,
  status,
  TEMPLATE_CONTAINERS,
  wide,
} from './table-column.ts';

type Owner = { apiVersion?: string; kind?: string; name?: string; controller?: boolean };

/** The controlling owner as `<kind>.<group>/<name>` lower-cased (the kind alone for core), else `<none>`. */
function controllerOf(o: { metadata: { ownerReferences?: unknown } }): string {
  const owners = Array.isArray(o.metadata.ownerReferences) ? (o.metadata.ownerReferences as Owner[]) : [];
  const ref = owners.find((r) => r?.controller === true);
  if (!ref) return '<none>';
  const apiVersion = ref.apiVersion ?? '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : '';
  const kind = group ? `${ref.kind ?? ''}.${group}` : (ref.kind ?? '');
  return `${kind.toLowerCase()}/${ref.name ?? ''}`;
}

const readyOfDesired = col('Ready', (o) => `${num(status(o).readyReplicas)}/${num(spec(o).replicas)}`);

export const WORKLOAD_COLUMNS: Record<string, Column[]> = {
  Deployment: [
    NAME,
    readyOfDesired,
    col('Up-to-date', (o) => num(status(o).updatedReplicas)),
    col('Available', (o) => num(status(o).availableReplicas)),
    AGE,
    ...TEMPLATE_CONTAINERS,
    // The Deployment printer words an unparsable selector `<invalid>` and an empty one ''.
    wide('Selector', (o) => selectorString(spec(o).selector) ?? '<invalid>'),
  ],
  ReplicaSet: [
    NAME,
    col('Desired', (o) => num(spec(o).replicas), { type: 'integer' }),
    col('Current', (o) => num(status(o).replicas), { type: 'integer' }),
    col('Ready', (o) => num(status(o).readyReplicas), { type: 'integer' }),
    AGE,
    ...TEMPLATE_CONTAINERS,
    wide('Selector', (o) => formatLabelSelector(spec(o).selector)),
  ],
  StatefulSet: [NAME, readyOfDesired, AGE, ...TEMPLATE_CONTAINERS],
  ControllerRevision: [
    NAME,
    col('Controller', controllerOf, { description: 'Controller of the object' }),
    col('Revision', (o) => num((o as { revision?: unknown }).revision), {
      description: 'Revision indicates the revision of the state represented by Data.',
    }),
    AGE,
  ],
};
