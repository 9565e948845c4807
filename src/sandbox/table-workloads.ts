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
};
