/**
 * Every permission the agent uses, in the namespaces it uses them in, derived from its settings as
 * the chart's Roles grant them (charts/mooring/templates/rbac.yaml), and the check that asks the API
 * server about each through a SelfSubjectAccessReview (what `kubectl auth can-i` asks).
 */
import pMap from 'p-map';
import type { AgentConfig } from '../config.ts';
import { describeError } from '../agent/safe-error.ts';
import { memberLeaseName, shardLeaseName, shardMemoName } from '../agent/shards.ts';
import { memoPartNames } from '../kube/restart-memo-store.ts';
import { kubeError } from '../kube/errors.ts';
import type { KubeHttp } from '../kube/http.ts';
import { KINDS } from '../objects/kinds.ts';
import type { ExposureSettings } from '../render/exposure-settings.ts';
import { type CheckResult, result } from './result.ts';

/** One permission: a verb on a resource (of a group) in a namespace, perhaps on one name only. */
export interface Access {
  namespace: string;
  verb: string;
  group: string;
  resource: string;
  name?: string;
}

const FULL = ['get', 'list', 'create', 'patch', 'delete'];

/** `deployments.apps`, `secrets`: a resource as RBAC rules name it. */
function groupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';
}

/**
 * The permissions the agent needs with these settings. `httpRouteServed`: whether the cluster
 * serves HTTPRoute (the agent lists and prunes them there even with another exposure kind).
 */
export function requiredAccess(
  config: Pick<
    AgentConfig,
    | 'namespaces'
    | 'deleteVolumes'
    | 'leaderElection'
    | 'leaseName'
    | 'leaseNamespace'
    | 'restartMemo'
    | 'watch'
  > &
    Partial<Pick<AgentConfig, 'shards'>>,
  exposure: ExposureSettings['kind'],
  httpRouteServed: boolean,
): Access[] {
  const out: Access[] = [];
  for (const namespace of config.namespaces) {
    const add = (group: string, resource: string, verbs: readonly string[], name?: string) => {
      for (const verb of verbs) out.push({ namespace, verb, group, resource, ...(name ? { name } : {}) });
    };
    for (const k of KINDS) {
      const group = groupOf(k.apiVersion);
      if (k.volume) add(group, k.plural, config.deleteVolumes ? ['list', 'delete'] : ['list']);
      else if (k.kind === 'Ingress') add(group, k.plural, exposure === 'ingress' ? FULL : ['list', 'delete']);
      else if (k.kind === 'HTTPRoute') {
        if (exposure === 'httproute') add(group, k.plural, FULL);
        else if (httpRouteServed) add(group, k.plural, ['list', 'delete']);
      } else add(group, k.plural, FULL);
      // The kinds a cycle lists are watched (ADR 0014) unless `--watch=false`.
      if (config.watch && k.exposure !== true) add(group, k.plural, ['watch']);
    }
    add('', 'events', ['create']);
    add('', 'namespaces', ['get'], namespace);
  }
  const own = (group: string, resource: string, names: string[]) => {
    const namespace = config.leaseNamespace;
    out.push({ namespace, verb: 'create', group, resource });
    for (const name of names)
      for (const verb of ['get', 'update']) out.push({ namespace, verb, group, resource, name });
  };
  // With shards, each shard's Lease and memo and the membership slots (ADR 0015).
  const shards = config.shards ?? 1;
  const each = (name: (i: number) => string) => Array.from({ length: shards }, (_, i) => name(i));
  if (config.leaderElection) {
    const leases = each((i) => shardLeaseName(config.leaseName, i, shards));
    if (shards > 1) leases.push(...each((i) => memberLeaseName(config.leaseName, i)), config.leaseName);
    own('coordination.k8s.io', 'leases', leases);
  }
  const memo = config.restartMemo;
  if (memo) own('', 'configmaps', each((i) => shardMemoName(memo, i, shards)).flatMap(memoPartNames));
  return out;
}

/** `create deployments.apps`, `get namespaces/apps`: how a missing permission is named. */
export function accessText(a: Access): string {
  return `${a.verb} ${a.resource}${a.group ? `.${a.group}` : ''}${a.name ? `/${a.name}` : ''}`;
}

interface AccessReview {
  status?: { allowed?: boolean; reason?: string };
}

/** Asks the API server whether the agent's credentials may do `a`. */
async function allowed(kube: Pick<KubeHttp, 'request'>, a: Access): Promise<boolean> {
  const res = await kube.request<AccessReview>({
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: {
        resourceAttributes: {
          namespace: a.namespace,
          verb: a.verb,
          group: a.group,
          resource: a.resource,
          ...(a.name ? { name: a.name } : {}),
        },
      },
    },
  });
  return res.body?.status?.allowed === true;
}

/** One line per namespace: every permission the agent needs there granted, or the missing ones. */
export async function permissionChecks(
  kube: Pick<KubeHttp, 'request'>,
  accesses: readonly Access[],
): Promise<CheckResult[]> {
  const denied = new Map<string, Access[]>();
  const counts = new Map<string, number>();
  let failure: ReturnType<typeof describeError> | undefined;
  await pMap(
    accesses,
    async (a) => {
      counts.set(a.namespace, (counts.get(a.namespace) ?? 0) + 1);
      try {
        if (!(await allowed(kube, a))) denied.set(a.namespace, [...(denied.get(a.namespace) ?? []), a]);
      } catch (err) {
        failure ??= describeError(kubeError(err, 'SelfSubjectAccessReview', 'create'));
      }
    },
    { concurrency: 8 },
  );
  if (failure) {
    return [
      result('permissions (SelfSubjectAccessReview)', 'fail', failure.message, {
        code: failure.code,
        fix: 'the credentials must be allowed to create selfsubjectaccessreviews (every authenticated user is, by default)',
      }),
    ];
  }
  return [...counts].map(([namespace, n]) => {
    const name = `permissions in namespace ${namespace}`;
    const missing = denied.get(namespace) ?? [];
    if (missing.length === 0) return result(name, 'ok', `all ${n} granted`);
    const list = missing.map(accessText).sort();
    return result(name, 'fail', `${missing.length} of ${n} missing: ${list.join(', ')}`, {
      code: 'MOORING_E_KUBE_FORBIDDEN',
      fix: "install or upgrade the chart (its Roles grant exactly these), or grant them to the agent's account",
    });
  });
}
