/**
 * Associative lists merged by their Kubernetes keys (x-kubernetes-list-type / list-map-keys of the
 * official OpenAPI), set lists, atomic lists and granular maps:
 * https://kubernetes.io/docs/reference/using-api/server-side-apply/#merge-strategy
 */
import { describe, expect, it } from 'vitest';
import {
  type KubeObject,
  listTable,
  serverSideApply,
  servedKinds,
} from '../../../src/sandbox/apply/index.ts';
import { deployment, dig, entry, podSpec, stored, T0, T1, T2 } from './fixtures.ts';

function apply(live: KubeObject | undefined, applied: KubeObject, manager = 'mooring', now = T0) {
  const r = serverSideApply({ live, applied, manager, force: false, now });
  if (!r.ok) throw new Error(`unexpected conflicts: ${JSON.stringify(r.conflicts)}`);
  return stored(r.object);
}

const rule = (apiVersion: string, kind: string, path: string) =>
  listTable(apiVersion, kind).find((r) => r.path === path);

describe('the list table', () => {
  it('covers every kind the sandbox serves', () => {
    expect(servedKinds().sort()).toEqual(
      [
        'v1/Namespace',
        'v1/Secret',
        'v1/ConfigMap',
        'v1/Service',
        'v1/ServiceAccount',
        'v1/PersistentVolumeClaim',
        'v1/Event',
        'apps/v1/Deployment',
        'apps/v1/StatefulSet',
        'autoscaling/v2/HorizontalPodAutoscaler',
        'policy/v1/PodDisruptionBudget',
        'networking.k8s.io/v1/NetworkPolicy',
        'coordination.k8s.io/v1/Lease',
        'rbac.authorization.k8s.io/v1/Role',
        'rbac.authorization.k8s.io/v1/RoleBinding',
      ].sort(),
    );
  });

  it.each([
    ['spec.template.spec.containers', 'map', ['name']],
    ['spec.template.spec.initContainers', 'map', ['name']],
    ['spec.template.spec.containers[].env', 'map', ['name']],
    ['spec.template.spec.containers[].ports', 'map', ['containerPort', 'protocol']],
    ['spec.template.spec.containers[].volumeMounts', 'map', ['mountPath']],
    ['spec.template.spec.volumes', 'map', ['name']],
    ['spec.template.spec.imagePullSecrets', 'map', ['name']],
    ['spec.template.spec.tolerations', 'atomic', []],
    ['spec.template.spec.containers[].args', 'atomic', []],
    ['spec.template.spec.containers[].envFrom', 'atomic', []],
    ['spec.template.metadata.finalizers', 'set', []],
    ['metadata.ownerReferences', 'map', ['uid']],
  ])('Deployment and StatefulSet %s is a %s list keyed by %j', (path, kind, keys) => {
    for (const k of ['Deployment', 'StatefulSet'])
      expect(rule('apps/v1', k, path)).toEqual({ path, kind, keys });
  });

  it('StatefulSet volumeClaimTemplates are atomic; Service ports are keyed by port and protocol', () => {
    expect(rule('apps/v1', 'StatefulSet', 'spec.volumeClaimTemplates')?.kind).toBe('atomic');
    expect(rule('v1', 'Service', 'spec.ports')).toEqual({
      path: 'spec.ports',
      kind: 'map',
      keys: ['port', 'protocol'],
    });
    expect(rule('rbac.authorization.k8s.io/v1', 'Role', 'rules')?.kind).toBe('atomic');
    expect(rule('networking.k8s.io/v1', 'NetworkPolicy', 'spec.ingress')?.kind).toBe('atomic');
  });
});

describe('merging by keys', () => {
  it('containers are merged by name: a sidecar added by another manager survives the agent re-apply', () => {
    const live = apply(undefined, deployment());
    const sidecar: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { template: { spec: { containers: [{ name: 'mesh', image: 'proxy:1' }] } } },
    };
    const withSidecar = apply(live, sidecar, 'injector', T1);
    const r = apply(withSidecar, deployment({ image: 'nginx:2' }), 'mooring', T2);
    const containers = podSpec(r).containers as { name: string; image: string }[];
    expect(containers.map((c) => [c.name, c.image])).toEqual([
      ['app', 'nginx:2'],
      ['mesh', 'proxy:1'],
    ]);
  });

  it('container ports match by containerPort and protocol, an omitted protocol counting as TCP', () => {
    const live = apply(undefined, deployment());
    const explicit = deployment({
      containers: [
        { name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 8000, protocol: 'TCP', name: 'http' }] },
      ],
    });
    const r = apply(live, explicit, 'mooring', T1);
    expect((podSpec(r).containers as { ports: unknown[] }[])[0]?.ports).toEqual([
      { containerPort: 8000, protocol: 'TCP', name: 'http' },
    ]);
  });

  it('Service ports with the same number and different protocols are two items', () => {
    const svc = (ports: unknown[]): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'dns', namespace: 'default' },
      spec: { ports },
    });
    const r = apply(undefined, svc([{ port: 53, protocol: 'UDP' }, { port: 53 }]));
    expect(dig(r.metadata.managedFields?.[0]?.fieldsV1, 'f:spec', 'f:ports')).toEqual({
      'k:{"port":53,"protocol":"TCP"}': { '.': {}, 'f:port': {} },
      'k:{"port":53,"protocol":"UDP"}': { '.': {}, 'f:port': {}, 'f:protocol': {} },
    });
  });

  it('set lists are owned per value with v: entries', () => {
    const cm: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'default', finalizers: ['b.io/x', 'a.io/y'] },
      data: { k: 'v' },
    };
    const r = apply(undefined, cm);
    expect(r.metadata.managedFields?.[0]?.fieldsV1).toEqual({
      'f:data': { 'f:k': {} },
      'f:metadata': { 'f:finalizers': { 'v:"a.io/y"': {}, 'v:"b.io/x"': {} } },
    });
  });

  it('atomic lists are owned as one field and replaced whole; a different list from another manager conflicts', () => {
    const withTolerations = (keys: string[]): KubeObject => {
      const d = deployment({ containers: [{ name: 'app', image: 'nginx:1.27' }] });
      const template = (d.spec as { template: { spec: Record<string, unknown> } }).template;
      template.spec.tolerations = keys.map((key) => ({ key, operator: 'Exists' }));
      return d;
    };
    const live = apply(undefined, withTolerations(['a', 'b']));
    expect(dig(entry(live, 'mooring')?.fieldsV1, 'f:spec', 'f:template', 'f:spec', 'f:tolerations')).toEqual(
      {},
    );
    const r = serverSideApply({
      live,
      applied: withTolerations(['c']),
      manager: 'other',
      force: false,
      now: T1,
    });
    expect(r.ok ? [] : r.conflicts.map((c) => c.field)).toEqual(['.spec.template.spec.tolerations']);
    const mine = apply(live, withTolerations(['c']), 'mooring', T1);
    expect(podSpec(mine).tolerations).toEqual([{ key: 'c', operator: 'Exists' }]);
  });

  it('labels, annotations and data are granular per key: two managers keep their own keys', () => {
    const cm = (manager: string, data: Record<string, string>): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'default', annotations: { [`${manager}/note`]: 'x' } },
      data,
    });
    const a = apply(undefined, cm('a', { one: '1' }), 'a', T0);
    const b = apply(a, cm('b', { two: '2' }), 'b', T1);
    expect(b.data).toEqual({ one: '1', two: '2' });
    expect(b.metadata.annotations).toEqual({ 'a/note': 'x', 'b/note': 'x' });
    expect(entry(b, 'b')?.fieldsV1).toEqual({
      'f:data': { 'f:two': {} },
      'f:metadata': { 'f:annotations': { 'f:b/note': {} } },
    });
  });

  it('volumes by name and volumeMounts by mountPath merge across managers', () => {
    const base = deployment();
    const spec = base.spec as { template: { spec: Record<string, unknown> } };
    spec.template.spec.volumes = [{ name: 'data', emptyDir: {} }];
    (spec.template.spec.containers as Record<string, unknown>[])[0] = {
      name: 'app',
      image: 'nginx:1.27',
      volumeMounts: [{ name: 'data', mountPath: '/data' }],
    };
    const live = apply(undefined, base);
    const extra: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        template: {
          spec: {
            volumes: [{ name: 'cache', emptyDir: {} }],
            containers: [{ name: 'app', volumeMounts: [{ name: 'cache', mountPath: '/cache' }] }],
          },
        },
      },
    };
    const r = apply(live, extra, 'other', T1);
    expect((podSpec(r).volumes as { name: string }[]).map((v) => v.name)).toEqual(['data', 'cache']);
    const mounts = (podSpec(r).containers as { volumeMounts: { mountPath: string }[] }[])[0]?.volumeMounts;
    expect(mounts?.map((m) => m.mountPath)).toEqual(['/data', '/cache']);
    // emptyDir: {} is an empty struct: owned as a leaf.
    expect(dig(entry(r, 'other')?.fieldsV1, 'f:spec', 'f:template', 'f:spec', 'f:volumes')).toEqual({
      'k:{"name":"cache"}': { '.': {}, 'f:emptyDir': {}, 'f:name': {} },
    });
  });

  it('an atomic struct (LabelSelector) is owned as one field', () => {
    const live = apply(undefined, deployment());
    expect(dig(entry(live, 'mooring')?.fieldsV1, 'f:spec', 'f:selector')).toEqual({});
  });
});
