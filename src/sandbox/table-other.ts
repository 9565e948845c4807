/**
 * Table columns of the autoscaling, policy, networking, coordination and rbac kinds the sandbox
 * serves, as kube-apiserver's printers define them, and the HTTPRoute CRD's printer columns.
 */
import { loadBalancerAddresses } from './table-core.ts';
import {
  AGE,
  type Column,
  col,
  formatLabelSelector,
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

/** A resource.Quantity or IntOrString as its String(). */
function q(v: unknown): string {
  return typeof v === 'number' ? String(v) : str(v);
}

/** One metric of formatHPAMetrics: `current/target`, `<unknown>` until the controller reports. */
function hpaMetric(m: Obj, status: Obj | undefined): string {
  const key =
    { External: 'external', Object: 'object', Pods: 'pods', Resource: 'resource' }[str(m.type)] ??
    (m.type === 'ContainerResource' ? 'containerResource' : undefined);
  if (key === undefined) return '<unknown type>';
  const source = obj(m[key]);
  const target = obj(source.target);
  const reported = status?.[key] !== undefined && status?.[key] !== null;
  const current = obj(obj(status?.[key]).current);
  const shown = (v: unknown): string => (reported && v !== undefined ? q(v) : '<unknown>');
  if (key === 'pods') return `${shown(current.averageValue)}/${q(target.averageValue)}`;
  if (key === 'external' || key === 'object') {
    return target.averageValue !== undefined
      ? `${shown(current.averageValue)}/${q(target.averageValue)} (avg)`
      : `${shown(current.value)}/${q(target.value)}`;
  }
  const name = str(source.name);
  if (target.averageValue !== undefined)
    return `${name}: ${shown(current.averageValue)}/${q(target.averageValue)}`;
  const now =
    reported && typeof current.averageUtilization === 'number'
      ? `${current.averageUtilization}%`
      : '<unknown>';
  const want = typeof target.averageUtilization === 'number' ? `${target.averageUtilization}%` : '<auto>';
  return `${name}: ${now}/${want}`;
}

/** formatHPAMetrics: the first two metrics, then `+ N more...`. */
function hpaTargets(o: StoredObject): string {
  const metrics = list(spec(o).metrics);
  if (metrics.length === 0) return '<none>';
  const current = list(status(o).currentMetrics);
  const shown = metrics.slice(0, 2).map((m, i) => hpaMetric(m, current[i]));
  const text = shown.join(', ');
  return metrics.length > 2 ? `${text} + ${metrics.length - 2} more...` : text;
}

/** formatHosts: the first three hosts of the rules that have one, `*` when none has. */
function ingressHosts(o: StoredObject): string {
  const rules = list(spec(o).rules);
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === 3) more = true;
    if (!more && str(rule.host) !== '') hosts.push(str(rule.host));
  }
  if (hosts.length === 0) return '*';
  return more ? `${hosts.join(',')} + ${rules.length - 3} more...` : hosts.join(',');
}

/** rbac.SubjectsStrings for one kind: users and groups by name, service accounts as `ns/name`. */
function subjects(o: StoredObject, kind: string): string {
  return list((o as Obj).subjects)
    .filter((s) => s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${str(s.namespace)}/${str(s.name)}` : str(s.name)))
    .join(', ');
}

const intOrNA = (v: unknown): string => (v === undefined || v === null ? 'N/A' : q(v));

export const OTHER_COLUMNS: Record<string, Column[]> = {
  HorizontalPodAutoscaler: [
    NAME,
    col(
      'Reference',
      (o) => `${str(obj(spec(o).scaleTargetRef).kind)}/${str(obj(spec(o).scaleTargetRef).name)}`,
    ),
    col('Targets', hpaTargets),
    col('MinPods', (o) =>
      typeof spec(o).minReplicas === 'number' ? String(spec(o).minReplicas) : '<unset>',
    ),
    col('MaxPods', (o) => (typeof spec(o).maxReplicas === 'number' ? spec(o).maxReplicas : 0)),
    col('Replicas', (o) => (typeof status(o).currentReplicas === 'number' ? status(o).currentReplicas : 0)),
    AGE,
  ],
  PodDisruptionBudget: [
    NAME,
    col('Min Available', (o) => intOrNA(spec(o).minAvailable)),
    col('Max Unavailable', (o) => intOrNA(spec(o).maxUnavailable)),
    col(
      'Allowed Disruptions',
      (o) => (typeof status(o).disruptionsAllowed === 'number' ? status(o).disruptionsAllowed : 0),
      { type: 'integer' },
    ),
    AGE,
  ],
  NetworkPolicy: [NAME, col('Pod-Selector', (o) => formatLabelSelector(spec(o).podSelector)), AGE],
  Ingress: [
    NAME,
    col('Class', (o) => str(spec(o).ingressClassName) || '<none>'),
    col('Hosts', ingressHosts),
    col('Address', (o) => loadBalancerAddresses(status(o).loadBalancer)),
    col('Ports', (o) => (list(spec(o).tls).length > 0 ? '80, 443' : '80')),
    AGE,
  ],
  Lease: [NAME, col('Holder', (o) => str(spec(o).holderIdentity)), AGE],
  RoleBinding: [
    NAME,
    col('Role', (o) => `${str(obj((o as Obj).roleRef).kind)}/${str(obj((o as Obj).roleRef).name)}`),
    AGE,
    wide('Users', (o) => subjects(o, 'User')),
    wide('Groups', (o) => subjects(o, 'Group')),
    wide('ServiceAccounts', (o) => subjects(o, 'ServiceAccount')),
  ],
  // The Gateway API CRD's additionalPrinterColumns.
  HTTPRoute: [NAME, col('Hostnames', (o) => JSON.stringify(spec(o).hostnames ?? [])), AGE],
};
