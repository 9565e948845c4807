/**
 * The resource types the sandbox serves: the kinds the agent writes plus what kubectl and helm
 * touch. One row per type; discovery, openapi, routing and the store are all driven by this table.
 */
export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  /** Lower-case plural used in paths, e.g. `deployments`. */
  resource: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  /** Subresources served: `status` and/or `scale`. */
  subresources: ('status' | 'scale')[];
  /** The client-node model class name of the kind (for schemas), e.g. `V1Deployment`; '' for none. */
  model: string;
  /**
   * Served only when this CustomResourceDefinition is installed (`KubeApiOptions.crds`), as a
   * real cluster serves the Gateway API only once its CRDs are applied.
   */
  crd?: string;
}

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** Every verb is served for every type (RBAC is not enforced). */
export function verbsOf(_type: ResourceType): string[] {
  return VERBS;
}

function t(
  group: string,
  version: string,
  kind: string,
  resource: string,
  namespaced: boolean,
  model: string,
  extra: Partial<ResourceType> = {},
): ResourceType {
  return {
    group,
    version,
    kind,
    resource,
    singular: kind.toLowerCase(),
    namespaced,
    subresources: [],
    model,
    ...extra,
  };
}

/** The Gateway API HTTPRoute CRD's name (`KubeApiOptions.crds`). */
export const HTTPROUTE_CRD = 'httproutes.gateway.networking.k8s.io';

/** The served types, in discovery order. */
export const RESOURCE_TYPES: readonly ResourceType[] = [
  t('', 'v1', 'Namespace', 'namespaces', false, 'V1Namespace', {
    shortNames: ['ns'],
    subresources: ['status'],
  }),
  t('', 'v1', 'Secret', 'secrets', true, 'V1Secret'),
  t('', 'v1', 'ConfigMap', 'configmaps', true, 'V1ConfigMap', { shortNames: ['cm'] }),
  t('', 'v1', 'Service', 'services', true, 'V1Service', {
    shortNames: ['svc'],
    categories: ['all'],
    subresources: ['status'],
  }),
  t('', 'v1', 'ServiceAccount', 'serviceaccounts', true, 'V1ServiceAccount', { shortNames: ['sa'] }),
  t('', 'v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', true, 'V1PersistentVolumeClaim', {
    shortNames: ['pvc'],
    subresources: ['status'],
  }),
  t('', 'v1', 'Event', 'events', true, 'CoreV1Event', { shortNames: ['ev'] }),
  // Pods and ReplicaSets are served (stored, listed, watched) so clients that follow a Deployment's
  // generated objects (kstatus in helm --wait, kubectl describe) find the kinds they look up.
  t('', 'v1', 'Pod', 'pods', true, 'V1Pod', {
    shortNames: ['po'],
    categories: ['all'],
    subresources: ['status'],
  }),
  // The StatefulSet controller's history (`kubectl rollout history|undo sts`); first of apps/v1,
  // as the API server sorts a group's resources.
  t('apps', 'v1', 'ControllerRevision', 'controllerrevisions', true, 'V1ControllerRevision'),
  t('apps', 'v1', 'Deployment', 'deployments', true, 'V1Deployment', {
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: ['status', 'scale'],
  }),
  t('apps', 'v1', 'ReplicaSet', 'replicasets', true, 'V1ReplicaSet', {
    shortNames: ['rs'],
    categories: ['all'],
    subresources: ['status', 'scale'],
  }),
  t('apps', 'v1', 'StatefulSet', 'statefulsets', true, 'V1StatefulSet', {
    shortNames: ['sts'],
    categories: ['all'],
    subresources: ['status', 'scale'],
  }),
  t(
    'autoscaling',
    'v2',
    'HorizontalPodAutoscaler',
    'horizontalpodautoscalers',
    true,
    'V2HorizontalPodAutoscaler',
    {
      shortNames: ['hpa'],
      categories: ['all'],
      subresources: ['status'],
    },
  ),
  t('policy', 'v1', 'PodDisruptionBudget', 'poddisruptionbudgets', true, 'V1PodDisruptionBudget', {
    shortNames: ['pdb'],
    subresources: ['status'],
  }),
  t('networking.k8s.io', 'v1', 'NetworkPolicy', 'networkpolicies', true, 'V1NetworkPolicy', {
    shortNames: ['netpol'],
  }),
  t('networking.k8s.io', 'v1', 'Ingress', 'ingresses', true, 'V1Ingress', {
    shortNames: ['ing'],
    subresources: ['status'],
  }),
  // A CRD: no client-node model, so its fields are not checked (as a lax CRD schema would).
  t('gateway.networking.k8s.io', 'v1', 'HTTPRoute', 'httproutes', true, '', {
    categories: ['gateway-api'],
    subresources: ['status'],
    crd: HTTPROUTE_CRD,
  }),
  t('coordination.k8s.io', 'v1', 'Lease', 'leases', true, 'V1Lease'),
  t('rbac.authorization.k8s.io', 'v1', 'Role', 'roles', true, 'V1Role'),
  t('rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings', true, 'V1RoleBinding'),
];

/** `apps/v1` or `v1` for the core group. */
export function apiVersionOf(type: Pick<ResourceType, 'group' | 'version'>): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

/** `deployments.apps`, or `secrets` for the core group: how the API names a resource in messages. */
export function qualifiedResource(type: Pick<ResourceType, 'group' | 'resource'>): string {
  return type.group === '' ? type.resource : `${type.resource}.${type.group}`;
}

const byPath = new Map<string, ResourceType>();
const byKind = new Map<string, ResourceType>();
for (const type of RESOURCE_TYPES) {
  byPath.set(`${type.group}/${type.version}/${type.resource}`, type);
  byKind.set(`${apiVersionOf(type)}/${type.kind}`, type);
}

/** Looks a type up by its URL parts. */
export function findByResource(group: string, version: string, resource: string): ResourceType | undefined {
  return byPath.get(`${group}/${version}/${resource}`);
}

/** Looks a type up by apiVersion and kind. */
export function findByKind(apiVersion: string, kind: string): ResourceType | undefined {
  return byKind.get(`${apiVersion}/${kind}`);
}

/** Which types a server serves: all but the CRDs it has not installed. */
export type Served = (type: ResourceType) => boolean;

const ALL: Served = () => true;

/** The served group versions: `[{group, version, types}]`, core first. */
export function groupVersions(
  served: Served = ALL,
): { group: string; version: string; types: ResourceType[] }[] {
  const out: { group: string; version: string; types: ResourceType[] }[] = [];
  for (const type of RESOURCE_TYPES) {
    if (!served(type)) continue;
    let gv = out.find((g) => g.group === type.group && g.version === type.version);
    if (!gv) {
      gv = { group: type.group, version: type.version, types: [] };
      out.push(gv);
    }
    gv.types.push(type);
  }
  return out;
}
