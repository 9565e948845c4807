import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseSettingsText } from '../../src/render/index.ts';
import { memoPartNames } from '../../src/kube/restart-memo-store.ts';
import { chartInstall, chartRoles } from './chart-roles.ts';
import { chartDir } from '../../scripts/render-deploy.ts';
import { ciValueSets, helm, type KubeObject, parseObjects, RELEASE, template } from './helm.ts';
import {
  type AccessRequest,
  boundRoles,
  documentedRoles,
  EXPOSURE_PERMISSIONS,
  type RoleLike,
  rolesAllow,
  WATCHED_NAMESPACE_PERMISSIONS,
} from './rbac.ts';

const SERVICE_ACCOUNT = { name: 'mooring', namespace: RELEASE.namespace };

describe('rolesAllow', () => {
  const role = (namespace: string, rules: RoleLike['rules']): RoleLike => ({
    kind: 'Role',
    metadata: { name: 'r', namespace },
    rules,
  });
  const apps = role('apps', [
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'patch'] },
    { apiGroups: [''], resources: ['namespaces'], resourceNames: ['apps'], verbs: ['get'] },
    {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      resourceNames: ['l'],
      verbs: ['create', 'get'],
    },
  ]);
  const req = (r: Partial<AccessRequest>): AccessRequest => ({
    verb: 'get',
    group: 'apps',
    resource: 'deployments',
    namespace: 'apps',
    name: 'web',
    ...r,
  });

  it('matches verb, group, resource and the Role namespace', () => {
    expect(rolesAllow([apps], req({}))).toBe(true);
    expect(rolesAllow([apps], req({ verb: 'delete' }))).toBe(false);
    expect(rolesAllow([apps], req({ group: '' }))).toBe(false);
    expect(rolesAllow([apps], req({ resource: 'statefulsets' }))).toBe(false);
    expect(rolesAllow([apps], req({ namespace: 'other' }))).toBe(false);
    expect(rolesAllow([apps], req({ namespace: '' }))).toBe(false);
  });

  it('authorizes server-side apply as patch', () => {
    expect(rolesAllow([apps], req({ verb: 'apply' }))).toBe(true);
    expect(
      rolesAllow(
        [role('apps', [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['apply'] }])],
        req({ verb: 'apply' }),
      ),
    ).toBe(false);
  });

  it('treats GET of a namespace as a request in that namespace', () => {
    expect(
      rolesAllow([apps], { verb: 'get', group: '', resource: 'namespaces', namespace: '', name: 'apps' }),
    ).toBe(true);
    expect(rolesAllow([apps], { verb: 'get', group: '', resource: 'namespaces', name: 'apps' })).toBe(true);
    expect(rolesAllow([apps], { verb: 'get', group: '', resource: 'namespaces', name: 'kube-system' })).toBe(
      false,
    );
    expect(rolesAllow([apps], { verb: 'list', group: '', resource: 'namespaces' })).toBe(false);
  });

  it('never lets resourceNames authorize a create or a list', () => {
    const lease = { group: 'coordination.k8s.io', resource: 'leases', namespace: 'apps' };
    expect(rolesAllow([apps], { ...lease, verb: 'get', name: 'l' })).toBe(true);
    expect(rolesAllow([apps], { ...lease, verb: 'get', name: 'other' })).toBe(false);
    expect(rolesAllow([apps], { ...lease, verb: 'create', name: 'l' })).toBe(false);
    expect(rolesAllow([apps], { ...lease, verb: 'get' })).toBe(false);
  });

  it('honours wildcards and ClusterRoles', () => {
    const all: RoleLike = {
      kind: 'ClusterRole',
      metadata: { name: 'all' },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    };
    expect(rolesAllow([all], req({ namespace: '', resource: 'nodes', group: '' }))).toBe(true);
    expect(rolesAllow([], req({}))).toBe(false);
  });

  it('boundRoles keeps only roles bound to the subject', () => {
    const objects = [
      apps,
      role('x', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]),
      {
        kind: 'RoleBinding',
        metadata: { namespace: 'apps' },
        roleRef: { kind: 'Role', name: 'r' },
        subjects: [{ kind: 'ServiceAccount', ...SERVICE_ACCOUNT }],
      },
      {
        kind: 'RoleBinding',
        metadata: { namespace: 'x' },
        roleRef: { kind: 'Role', name: 'r' },
        subjects: [{ kind: 'ServiceAccount', name: 'someone-else', namespace: 'mooring' }],
      },
    ];
    expect(boundRoles(objects, SERVICE_ACCOUNT)).toEqual([apps]);
  });
});

/** Every request worth asking about for one installation: documented ones and likely excesses. */
function universe(namespaces: string[], leaseName: string): AccessRequest[] {
  const verbs = ['get', 'list', 'watch', 'create', 'update', 'patch', 'apply', 'delete', 'deletecollection'];
  const resources: Array<[string, string]> = [
    ...WATCHED_NAMESPACE_PERMISSIONS.map((p): [string, string] => [p.group, p.resource]),
    ...Object.values(EXPOSURE_PERMISSIONS).map((p): [string, string] => [p.group, p.resource]),
    ['coordination.k8s.io', 'leases'],
    ['', 'configmaps'],
    ['', 'pods'],
    ['', 'pods/exec'],
    ['', 'pods/log'],
    ['', 'serviceaccounts'],
    ['', 'serviceaccounts/token'],
    ['', 'nodes'],
    ['', 'persistentvolumes'],
    ['apps', 'daemonsets'],
    ['apps', 'replicasets'],
    ['apps', 'deployments/scale'],
    ['batch', 'jobs'],
    ['events.k8s.io', 'events'],
    ['rbac.authorization.k8s.io', 'roles'],
    ['rbac.authorization.k8s.io', 'rolebindings'],
    ['rbac.authorization.k8s.io', 'clusterroles'],
    ['apiextensions.k8s.io', 'customresourcedefinitions'],
  ];
  const spaces = [...namespaces, RELEASE.namespace, 'kube-system', ''];
  const names = [
    undefined,
    'web',
    leaseName,
    'mooring-leader',
    'mooring-restart-memo',
    'kube-system',
    ...namespaces,
  ];
  const out: AccessRequest[] = [];
  for (const verb of verbs) {
    for (const [group, resource] of resources) {
      for (const namespace of spaces) {
        for (const name of names) out.push({ verb, group, resource, namespace, ...(name ? { name } : {}) });
      }
    }
  }
  return out;
}

describe.each([...ciValueSets().entries()])(
  "the chart's Roles grant exactly the documented set (%s values)",
  (_name, file) => {
    const objects: KubeObject[] = template([file]);
    const roles = boundRoles(objects, SERVICE_ACCOUNT);
    const deployment = objects.find((o) => o.kind === 'Deployment') as KubeObject & {
      spec: { template: { spec: { containers: Array<{ env: Array<{ name: string; value?: string }> }> } } };
    };
    const env = new Map(deployment.spec.template.spec.containers[0]!.env.map((e) => [e.name, e.value]));
    const namespaces = (env.get('MOORING_NAMESPACES') ?? '').split(',');
    const leaderElection = env.get('MOORING_LEADER_ELECTION') === 'true';
    const leaseName = env.get('MOORING_LEASE_NAME') ?? 'mooring-leader';
    const restartMemo = env.get('MOORING_RESTART_MEMO');
    const values = parse(readFileSync(file, 'utf8')) as { rendering?: { exposure?: { kind?: string } } };
    const exposure = values.rendering?.exposure?.kind;
    const deleteVolumes = env.get('MOORING_DELETE_VOLUMES') === 'true';
    const watch = env.get('MOORING_WATCH') !== 'false';
    const documented = documentedRoles({
      namespaces,
      releaseNamespace: RELEASE.namespace,
      leaderElection,
      leaseName,
      restartMemo,
      ...(exposure ? { exposure } : {}),
      deleteVolumes,
      watch,
    });

    it('binds every Role it renders to the agent ServiceAccount', () => {
      expect(roles.length).toBe(objects.filter((o) => o.kind === 'Role').length);
      // The release namespace has a Role only for the leader Lease and the restart memo.
      expect(roles.map((r) => r.metadata.namespace).sort()).toEqual(
        [...namespaces, ...(leaderElection || restartMemo ? [RELEASE.namespace] : [])].sort(),
      );
    });

    it('uses no wildcard anywhere', () => {
      for (const rule of roles.flatMap((r) => r.rules ?? [])) {
        expect([...(rule.apiGroups ?? []), ...(rule.resources ?? []), ...rule.verbs]).not.toContain('*');
      }
    });

    it('allows a request if and only if the documented set does', () => {
      const requests = universe(namespaces, leaseName);
      const differences = requests.filter((r) => rolesAllow(roles, r) !== rolesAllow(documented, r));
      expect(differences).toEqual([]);
      // The comparison is not vacuous: both sides allow some and refuse some.
      const allowed = requests.filter((r) => rolesAllow(roles, r)).length;
      expect(allowed).toBeGreaterThan(50);
      expect(allowed).toBeLessThan(requests.length / 4);
    });

    it('allows what the agent does: apply a Deployment, check its namespace, prune a PVC', () => {
      const ns = namespaces[0]!;
      expect(
        rolesAllow(roles, {
          verb: 'apply',
          group: 'apps',
          resource: 'deployments',
          namespace: ns,
          name: 'web',
        }),
      ).toBe(true);
      expect(rolesAllow(roles, { verb: 'get', group: '', resource: 'namespaces', name: ns })).toBe(true);
      expect(
        rolesAllow(roles, {
          verb: 'delete',
          group: '',
          resource: 'persistentvolumeclaims',
          namespace: ns,
          name: 'd',
        }),
      ).toBe(deleteVolumes);
      expect(
        rolesAllow(roles, { verb: 'create', group: '', resource: 'persistentvolumeclaims', namespace: ns }),
      ).toBe(false);
      expect(
        rolesAllow(roles, { verb: 'get', group: '', resource: 'configmaps', namespace: ns, name: 'c' }),
      ).toBe(false);
      expect(rolesAllow(roles, { verb: 'create', group: '', resource: 'events', namespace: ns })).toBe(true);
      expect(
        rolesAllow(roles, { verb: 'create', group: '', resource: 'events', namespace: RELEASE.namespace }),
      ).toBe(false);
      expect(
        rolesAllow(roles, { verb: 'watch', group: 'apps', resource: 'deployments', namespace: ns }),
      ).toBe(watch);
      expect(
        rolesAllow(roles, {
          verb: 'update',
          group: 'apps',
          resource: 'deployments',
          namespace: ns,
          name: 'web',
        }),
      ).toBe(false);
      expect(
        rolesAllow(roles, {
          verb: 'get',
          group: 'apps',
          resource: 'deployments',
          namespace: RELEASE.namespace,
          name: 'mooring',
        }),
      ).toBe(false);
      expect(
        rolesAllow(roles, {
          verb: 'update',
          group: 'coordination.k8s.io',
          resource: 'leases',
          namespace: RELEASE.namespace,
          name: leaseName,
        }),
      ).toBe(leaderElection);
    });
  },
);

describe('exposure RBAC', () => {
  const exposureRules = (roles: RoleLike[]) =>
    roles
      .flatMap((r) => r.rules ?? [])
      .filter((rule) => /ingresses|httproutes/.test((rule.resources ?? []).join()));

  it("the exposure value set's settings file is one the agent accepts, with exposure on", () => {
    const objects = template([ciValueSets().get('exposure')!]);
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'mooring-rendering');
    const parsed = parseSettingsText(
      (configMap as unknown as { data: Record<string, string> }).data['settings.yaml']!,
    );
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    expect(parsed.settings.exposure).toMatchObject({
      kind: 'ingress',
      tls: { clusterIssuer: 'letsencrypt' },
    });
  });

  it('a values file asking for httproute without a gateway fails the chart schema', () => {
    const base = ciValueSets().get('default')!;
    expect(() => template([base, { rendering: { exposure: { kind: 'httproute' } } }])).toThrow(/gateway/);
  });

  const writes = (roles: RoleLike[]) =>
    exposureRules(roles).filter((rule) => (rule.verbs ?? []).some((v) => v === 'create' || v === 'patch'));

  it('lets write only the value sets that turn exposure on', () => {
    const withExposure = [...ciValueSets().entries()].filter(
      ([, file]) => writes(boundRoles(template([file]), SERVICE_ACCOUNT)).length > 0,
    );
    expect(withExposure.map(([name]) => name)).toEqual(['exposure']);
  });

  it('grants every verb on the kind chosen, and only list and delete on the other (HTTPRoutes where served)', () => {
    const base = ciValueSets().get('default')!;
    const rules = (exposure: Record<string, unknown>, gatewayApi = false) =>
      exposureRules(
        boundRoles(
          parseObjects(
            helm(
              [
                'template',
                RELEASE.name,
                chartDir,
                '--namespace',
                RELEASE.namespace,
                ...(gatewayApi ? ['--api-versions', 'gateway.networking.k8s.io/v1/HTTPRoute'] : []),
              ],
              [base, { rendering: { exposure } }],
            ).stdout,
          ),
          SERVICE_ACCOUNT,
        ),
      ).map((r) => [r.resources, r.verbs]);
    const all = ['get', 'list', 'create', 'patch', 'delete'];
    const leftovers = ['list', 'delete'];
    const gateway = { kind: 'httproute', gateway: { name: 'public', namespace: 'gateways' } };
    expect(rules({ kind: 'ingress' })).toEqual([[['ingresses'], all]]);
    expect(rules({ kind: 'ingress' }, true)).toEqual([
      [['ingresses'], all],
      [['httproutes'], leftovers],
    ]);
    expect(rules(gateway, true)).toEqual([
      [['ingresses'], leftovers],
      [['httproutes'], all],
    ]);
    expect(rules({ kind: 'none' })).toEqual([[['ingresses'], leftovers]]);
    expect(rules({ kind: 'none' }, true)).toEqual([
      [['ingresses'], leftovers],
      [['httproutes'], leftovers],
    ]);
  });
});

describe('chartRoles', () => {
  it('returns the Roles bound to the agent for the namespaces and options asked', () => {
    const roles = chartRoles({ namespaces: ['one', 'two'], leaderElection: true, leaseName: 'my-lease' });
    expect(roles.map((r) => r.metadata.namespace).sort()).toEqual(['mooring', 'one', 'two']);
    // The restart memo (on by default) has the release namespace's Role hold its ConfigMap.
    expect(chartRoles({ namespaces: ['one'] }).map((r) => r.metadata.namespace)).toEqual(['one', 'mooring']);
    expect(chartRoles({ namespaces: ['one'], restartMemo: false }).map((r) => r.metadata.namespace)).toEqual([
      'one',
    ]);
    const memo = { verb: 'update', group: '', resource: 'configmaps', namespace: 'mooring' };
    expect(rolesAllow(chartRoles(), { ...memo, name: 'mooring-restart-memo' })).toBe(true);
    // A memo past 1 MiB goes on in parts (restart-memo-store.ts): the chart grants each, no more.
    for (const part of memoPartNames('mooring-restart-memo'))
      expect(rolesAllow(chartRoles(), { ...memo, name: part })).toBe(true);
    expect(rolesAllow(chartRoles(), { ...memo, name: 'mooring-restart-memo-part7' })).toBe(false);
    expect(rolesAllow(chartRoles(), { ...memo, name: 'another' })).toBe(false);
    expect(
      rolesAllow(chartRoles(), { ...memo, namespace: 'mooring-apps', name: 'mooring-restart-memo' }),
    ).toBe(false);
    const lease = { verb: 'update', group: 'coordination.k8s.io', resource: 'leases', namespace: 'mooring' };
    expect(rolesAllow(roles, { ...lease, name: 'my-lease' })).toBe(true);
    expect(rolesAllow(chartRoles(), { ...lease, name: 'mooring-leader' })).toBe(false);
  });

  it('with shards, holds each shard Lease, membership slot and restart memo by name, and no more', () => {
    const roles = chartInstall([
      { leaderElection: { enabled: true, replicas: 3, leaseName: 'my-lease' }, sharding: { shards: 6 } },
    ]).roles;
    const lease = { group: 'coordination.k8s.io', resource: 'leases', namespace: 'mooring' };
    const memo = { group: '', resource: 'configmaps', namespace: 'mooring' };
    for (const verb of ['get', 'update']) {
      for (let i = 0; i < 6; i++) {
        expect(rolesAllow(roles, { ...lease, verb, name: `my-lease-${i}` })).toBe(true);
        expect(rolesAllow(roles, { ...lease, verb, name: `my-lease-member-${i}` })).toBe(true);
        expect(rolesAllow(roles, { ...memo, verb, name: `mooring-restart-memo-${i}` })).toBe(true);
        for (const part of memoPartNames(`mooring-restart-memo-${i}`))
          expect(rolesAllow(roles, { ...memo, verb, name: part })).toBe(true);
        expect(rolesAllow(roles, { ...memo, verb, name: `mooring-restart-memo-${i}-part7` })).toBe(false);
      }
      expect(rolesAllow(roles, { ...lease, verb, name: 'my-lease-6' })).toBe(false);
      expect(rolesAllow(roles, { ...lease, verb, name: 'my-lease-member-6' })).toBe(false);
      // The lock of the shard count.
      expect(rolesAllow(roles, { ...lease, verb, name: 'my-lease' })).toBe(true);
      expect(rolesAllow(roles, { ...memo, verb, name: 'mooring-restart-memo' })).toBe(false);
    }
  });
});
