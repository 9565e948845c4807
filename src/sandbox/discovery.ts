/** Discovery documents: /version, /api, /api/v1, /apis, /apis/<group>, /apis/<group>/<version>. */
import { REVIEW_GROUP, REVIEW_RESOURCES, REVIEW_VERSION } from './access-review.ts';
import { apiVersionOf, groupVersions, type ResourceType, type Served, verbsOf } from './resources.ts';

/** The Kubernetes version the sandbox presents (what the agent and kubectl see at /version). */
export const KUBE_VERSION = { major: '1', minor: '34', gitVersion: 'v1.34.0' };

export function versionInfo(): Record<string, string> {
  return {
    ...KUBE_VERSION,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2025-08-27T00:00:00Z',
    goVersion: 'go1.24.6',
    compiler: 'gc',
    platform: 'linux/amd64',
    emulationMajor: KUBE_VERSION.major,
    emulationMinor: KUBE_VERSION.minor,
    minCompatibilityMajor: KUBE_VERSION.major,
    minCompatibilityMinor: '33',
  };
}

export function coreVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupEntry(group: string, version: string): Record<string, unknown> {
  const gv = { groupVersion: `${group}/${version}`, version };
  return { name: group, versions: [gv], preferredVersion: gv };
}

export function groupList(served?: Served): Record<string, unknown> {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [
      ...groupVersions(served)
        .filter((gv) => gv.group !== '')
        .map((gv) => groupEntry(gv.group, gv.version)),
      groupEntry(REVIEW_GROUP, REVIEW_VERSION),
    ],
  };
}

export function group(name: string, served?: Served): Record<string, unknown> | undefined {
  if (name === REVIEW_GROUP)
    return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(name, REVIEW_VERSION) };
  const gv = groupVersions(served).find((g) => g.group === name && name !== '');
  return gv ? { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(gv.group, gv.version) } : undefined;
}

function resourceEntries(type: ResourceType): Record<string, unknown>[] {
  const main: Record<string, unknown> = {
    name: type.resource,
    singularName: type.singular,
    namespaced: type.namespaced,
    kind: type.kind,
    verbs: verbsOf(type),
  };
  if (type.shortNames) main.shortNames = type.shortNames;
  if (type.categories) main.categories = type.categories;
  const out = [main];
  for (const sub of type.subresources) {
    if (sub === 'status') {
      out.push({
        name: `${type.resource}/status`,
        singularName: '',
        namespaced: type.namespaced,
        kind: type.kind,
        verbs: ['get', 'patch', 'update'],
      });
    } else {
      out.push({
        name: `${type.resource}/scale`,
        singularName: '',
        namespaced: type.namespaced,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: ['get', 'patch', 'update'],
      });
    }
  }
  return out;
}

/** APIResourceList of one group version, or undefined when it is not served. */
export function resourceList(
  group: string,
  version: string,
  served?: Served,
): Record<string, unknown> | undefined {
  if (group === REVIEW_GROUP && version === REVIEW_VERSION) return reviewResourceList();
  const gv = groupVersions(served).find((g) => g.group === group && g.version === version);
  if (!gv) return undefined;
  const list: Record<string, unknown> = {
    kind: 'APIResourceList',
    groupVersion: apiVersionOf(gv),
    resources: gv.types.flatMap(resourceEntries),
  };
  if (group !== '') list.apiVersion = 'v1';
  return list;
}

/** The access review resources (access-review.ts): create-only, cluster-scoped. */
function reviewResourceList(): Record<string, unknown> {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: `${REVIEW_GROUP}/${REVIEW_VERSION}`,
    resources: REVIEW_RESOURCES.map((r) => ({
      name: r.resource,
      singularName: r.singular,
      namespaced: false,
      kind: r.kind,
      verbs: ['create'],
    })),
  };
}

function reviewDiscoveryGroup(): Record<string, unknown> {
  const resources = REVIEW_RESOURCES.map((r) => ({
    resource: r.resource,
    responseKind: { group: REVIEW_GROUP, version: REVIEW_VERSION, kind: r.kind },
    scope: 'Cluster',
    singularResource: r.singular,
    verbs: ['create'],
  }));
  return {
    metadata: { name: REVIEW_GROUP },
    versions: [{ version: REVIEW_VERSION, resources, freshness: 'Current' }],
  };
}

/** The media type of aggregated discovery (apidiscovery.k8s.io/v2), served when a client asks for it. */
export const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/** True when the Accept header asks for aggregated discovery v2 (kubectl and client-go 1.30+ do). */
export function wantsAggregated(accept: string | undefined): boolean {
  return accept?.includes('g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList') === true;
}

function discoveryResource(type: ResourceType): Record<string, unknown> {
  const kind = { group: type.group, version: type.version, kind: type.kind };
  const entry: Record<string, unknown> = {
    resource: type.resource,
    responseKind: kind,
    scope: type.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: type.singular,
    verbs: verbsOf(type),
  };
  if (type.shortNames) entry.shortNames = type.shortNames;
  if (type.categories) entry.categories = type.categories;
  if (type.subresources.length > 0) {
    entry.subresources = type.subresources.map((sub) => ({
      subresource: sub,
      responseKind: sub === 'scale' ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : kind,
      verbs: ['get', 'patch', 'update'],
    }));
  }
  return entry;
}

/** APIGroupDiscoveryList for `/api` (core) or `/apis` (named groups). */
export function aggregatedDiscovery(core: boolean, served?: Served): Record<string, unknown> {
  const groups = groupVersions(served).filter((gv) => (gv.group === '') === core);
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.k8s.io/v2',
    metadata: {},
    items: [
      ...groups.map((gv) => ({
        metadata: core ? {} : { name: gv.group },
        versions: [{ version: gv.version, resources: gv.types.map(discoveryResource), freshness: 'Current' }],
      })),
      ...(core ? [] : [reviewDiscoveryGroup()]),
    ],
  };
}
