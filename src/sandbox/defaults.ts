/**
 * The defaulting a real API server applies on write, for the fields mooring renders, so a client
 * that compares what it sent with what it reads back sees the drift a real cluster shows.
 * Every function is idempotent and mutates the object it is given (a fresh copy).
 */
import { podQosClass } from './pod-qos.ts';
import type { StoredObject } from './types.ts';

type Obj = Record<string, unknown>;

export interface DefaultingContext {
  /** Allocates a Service ClusterIP from the service CIDR. */
  allocateClusterIP(): string;
}

function obj(parent: Obj, key: string): Obj {
  const value = parent[key];
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Obj;
  const created: Obj = {};
  parent[key] = created;
  return created;
}

function def(target: Obj, key: string, value: unknown): void {
  if (target[key] === undefined || target[key] === null) target[key] = value;
}

function list(value: unknown): Obj[] {
  return Array.isArray(value) ? (value.filter((v) => v !== null && typeof v === 'object') as Obj[]) : [];
}

/** `:latest` or no tag means Always, anything else IfNotPresent (a digest too). */
function pullPolicy(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  if (image.includes('@')) return 'IfNotPresent';
  const lastSlash = image.lastIndexOf('/');
  const tagAt = image.indexOf(':', lastSlash + 1);
  if (tagAt < 0) return 'Always';
  return image.slice(tagAt + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

function probe(p: unknown): void {
  if (!p || typeof p !== 'object') return;
  const probe = p as Obj;
  def(probe, 'timeoutSeconds', 1);
  def(probe, 'periodSeconds', 10);
  def(probe, 'successThreshold', 1);
  def(probe, 'failureThreshold', 3);
  if (probe.httpGet && typeof probe.httpGet === 'object') {
    // SetDefaults_HTTPGetAction: an empty path is the root.
    if (!(probe.httpGet as Obj).path) (probe.httpGet as Obj).path = '/';
    def(probe.httpGet as Obj, 'scheme', 'HTTP');
  }
}

function container(c: Obj): void {
  def(c, 'terminationMessagePath', '/dev/termination-log');
  def(c, 'terminationMessagePolicy', 'File');
  def(c, 'imagePullPolicy', pullPolicy(c.image));
  def(c, 'resources', {});
  for (const port of list(c.ports)) def(port, 'protocol', 'TCP');
  for (const env of list(c.env)) {
    const fieldRef = (env.valueFrom as Obj | undefined)?.fieldRef as Obj | undefined;
    if (fieldRef) def(fieldRef, 'apiVersion', 'v1');
  }
  probe(c.livenessProbe);
  probe(c.readinessProbe);
  probe(c.startupProbe);
}

/** PodSpec defaults (SetDefaults_PodSpec and friends). */
export function defaultPodSpec(spec: Obj): void {
  def(spec, 'restartPolicy', 'Always');
  def(spec, 'dnsPolicy', 'ClusterFirst');
  def(spec, 'terminationGracePeriodSeconds', 30);
  def(spec, 'schedulerName', 'default-scheduler');
  def(spec, 'securityContext', {});
  for (const c of list(spec.containers)) container(c);
  for (const c of list(spec.initContainers)) container(c);
  for (const v of list(spec.volumes)) {
    if (v.secret && typeof v.secret === 'object') def(v.secret as Obj, 'defaultMode', 420);
    if (v.configMap && typeof v.configMap === 'object') def(v.configMap as Obj, 'defaultMode', 420);
    if (v.projected && typeof v.projected === 'object') def(v.projected as Obj, 'defaultMode', 420);
  }
}

function podTemplate(spec: Obj): void {
  const template = obj(spec, 'template');
  defaultPodSpec(obj(template, 'spec'));
}

function deployment(o: Obj): void {
  const spec = obj(o, 'spec');
  def(spec, 'replicas', 1);
  const strategy = obj(spec, 'strategy');
  def(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = obj(strategy, 'rollingUpdate');
    def(ru, 'maxUnavailable', '25%');
    def(ru, 'maxSurge', '25%');
  }
  def(spec, 'revisionHistoryLimit', 10);
  def(spec, 'progressDeadlineSeconds', 600);
  podTemplate(spec);
}

function statefulSet(o: Obj): void {
  const spec = obj(o, 'spec');
  def(spec, 'replicas', 1);
  def(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = obj(spec, 'updateStrategy');
  def(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') def(obj(strategy, 'rollingUpdate'), 'partition', 0);
  def(spec, 'revisionHistoryLimit', 10);
  const retention = obj(spec, 'persistentVolumeClaimRetentionPolicy');
  def(retention, 'whenDeleted', 'Retain');
  def(retention, 'whenScaled', 'Retain');
  for (const pvc of list(spec.volumeClaimTemplates)) {
    def(pvc, 'apiVersion', 'v1');
    def(pvc, 'kind', 'PersistentVolumeClaim');
    def(obj(pvc, 'spec'), 'volumeMode', 'Filesystem');
    def(obj(pvc, 'status'), 'phase', 'Pending');
  }
  podTemplate(spec);
}

function service(o: Obj, ctx: DefaultingContext): void {
  const spec = obj(o, 'spec');
  def(spec, 'type', 'ClusterIP');
  def(spec, 'sessionAffinity', 'None');
  if (spec.type !== 'ExternalName') {
    if (spec.clusterIP === undefined || spec.clusterIP === '') spec.clusterIP = ctx.allocateClusterIP();
    def(spec, 'clusterIPs', [spec.clusterIP]);
    if (spec.clusterIP !== 'None' || spec.selector) {
      def(spec, 'ipFamilies', ['IPv4']);
      def(spec, 'ipFamilyPolicy', 'SingleStack');
    }
    def(spec, 'internalTrafficPolicy', 'Cluster');
  }
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') def(spec, 'externalTrafficPolicy', 'Cluster');
  if (spec.type === 'LoadBalancer') def(spec, 'allocateLoadBalancerNodePorts', true);
  for (const port of list(spec.ports)) {
    def(port, 'protocol', 'TCP');
    // A zero or empty targetPort (what a typed client sends when none is given) means "the port".
    if (port.targetPort === 0 || port.targetPort === '') delete port.targetPort;
    def(port, 'targetPort', port.port);
  }
  def(obj(o, 'status'), 'loadBalancer', {});
}

function secret(o: Obj): void {
  def(o, 'type', 'Opaque');
  const stringData = o.stringData;
  if (stringData && typeof stringData === 'object') {
    const data = obj(o, 'data');
    for (const [key, value] of Object.entries(stringData as Obj)) {
      data[key] = Buffer.from(String(value), 'utf8').toString('base64');
    }
  }
  delete o.stringData;
}

/**
 * SetDefaults_HorizontalPodAutoscalerBehavior: a `behavior` that is given gets each direction's
 * rules filled where left out (no behavior stays none). A scale-down window is left unset: the
 * controller's own flag (five minutes) decides it.
 */
function hpaBehavior(spec: Obj): void {
  const behavior = spec.behavior;
  if (!behavior || typeof behavior !== 'object') return;
  const up = obj(behavior as Obj, 'scaleUp');
  def(up, 'stabilizationWindowSeconds', 0);
  def(up, 'selectPolicy', 'Max');
  def(up, 'policies', [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ]);
  const down = obj(behavior as Obj, 'scaleDown');
  def(down, 'selectPolicy', 'Max');
  def(down, 'policies', [{ type: 'Percent', value: 100, periodSeconds: 15 }]);
}

function hpa(o: Obj): void {
  const spec = obj(o, 'spec');
  def(spec, 'minReplicas', 1);
  hpaBehavior(spec);
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
      },
    ];
  }
}

function networkPolicy(o: Obj): void {
  const spec = obj(o, 'spec');
  if (spec.policyTypes === undefined)
    spec.policyTypes = Array.isArray(spec.egress) ? ['Ingress', 'Egress'] : ['Ingress'];
  for (const rule of [...list(spec.ingress), ...list(spec.egress)]) {
    for (const port of list(rule.ports)) def(port, 'protocol', 'TCP');
  }
}

function namespace(o: StoredObject): void {
  if (!o.metadata.labels) o.metadata.labels = {};
  const labels = o.metadata.labels;
  labels['kubernetes.io/metadata.name'] = o.metadata.name ?? '';
  def(obj(o, 'spec'), 'finalizers', ['kubernetes']);
  def(obj(o, 'status'), 'phase', 'Active');
}

function pvc(o: Obj): void {
  def(obj(o, 'spec'), 'volumeMode', 'Filesystem');
  def(obj(o, 'status'), 'phase', 'Pending');
}

/** SetDefaults_Pod: a resource with a limit and no request is requested at its limit. */
function requestsFromLimits(c: Obj): void {
  const resources = c.resources as Obj | undefined;
  const limits = resources?.limits as Obj | undefined;
  if (!resources || !limits || typeof limits !== 'object') return;
  const requests = obj(resources, 'requests');
  for (const [name, value] of Object.entries(limits)) def(requests, name, value);
}

/**
 * A Pod's own defaults (SetDefaults_Pod, not its template's): requests from limits and
 * `enableServiceLinks`. A new Pod starts Pending with its QoS class, as the pod registry's
 * PrepareForCreate sets them.
 */
function pod(o: Obj): void {
  const spec = obj(o, 'spec');
  for (const c of [...list(spec.containers), ...list(spec.initContainers)]) requestsFromLimits(c);
  def(spec, 'enableServiceLinks', true);
  defaultPodSpec(spec);
  // The ServiceAccount admission plugin gives a Pod without one the namespace's `default`.
  if (!spec.serviceAccountName) spec.serviceAccountName = spec.serviceAccount || 'default';
  spec.serviceAccount = spec.serviceAccountName;
  const status = obj(o, 'status');
  def(status, 'phase', 'Pending');
  def(status, 'qosClass', podQosClass(spec));
}

/** Applies the kind's defaults to `o` in place. */
export function applyDefaults(o: StoredObject, ctx: DefaultingContext): void {
  switch (o.kind) {
    case 'Deployment':
      deployment(o);
      return;
    case 'ReplicaSet':
      def(obj(o, 'spec'), 'replicas', 1);
      podTemplate(obj(o, 'spec'));
      return;
    case 'Pod':
      pod(o);
      return;
    case 'StatefulSet':
      statefulSet(o);
      return;
    case 'Service':
      service(o, ctx);
      return;
    case 'Secret':
      secret(o);
      return;
    case 'HorizontalPodAutoscaler':
      hpa(o);
      return;
    case 'NetworkPolicy':
      networkPolicy(o);
      return;
    case 'Namespace':
      namespace(o);
      return;
    case 'PersistentVolumeClaim':
      pvc(o);
      return;
    default:
      return;
  }
}
