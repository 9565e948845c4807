/**
 * What clusters demand of the chart: security contexts overridable (OpenShift's restricted SCC),
 * nameOverride and fullnameOverride, a spread of the replicas over nodes, and a `helm test` Pod
 * that runs `mooring check` exactly as the agent runs.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { deployDir } from '../../scripts/render-deploy.ts';
import { ciValueSets, type KubeObject, only, parseObjects, template } from './helm.ts';

// biome-ignore lint/suspicious/noExplicitAny: reading rendered manifests
type Any = any;

const base = ciValueSets().get('default')!;

function podSpec(objects: KubeObject[]): Any {
  return (only(objects, 'Deployment').spec as Any).template.spec;
}

function checkPod(objects: KubeObject[]): Any {
  return objects.find(
    (o) => o.kind === 'Pod' && (o.metadata as Any).annotations?.['helm.sh/hook'] === 'test',
  );
}

/** True when every key of `selector` has that value in `labels`. */
function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

describe('security contexts', () => {
  it('keep the hardened defaults when not overridden', () => {
    const spec = podSpec(template([base]));
    expect(spec.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      fsGroup: 65532,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(spec.containers[0].securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
  });

  it('take overrides key by key from the values, on the agent and the check Pod alike', () => {
    const objects = template([
      base,
      {
        podSecurityContext: { runAsUser: 1001, supplementalGroups: [5] },
        securityContext: { runAsUser: 1001 },
      },
    ]);
    for (const spec of [podSpec(objects), checkPod(objects).spec]) {
      expect(spec.securityContext).toMatchObject({
        runAsUser: 1001,
        fsGroup: 65532,
        supplementalGroups: [5],
      });
      expect(spec.containers[0].securityContext).toMatchObject({
        runAsUser: 1001,
        readOnlyRootFilesystem: true,
      });
    }
  });

  it('OpenShift values leave the uid, gid and fsGroup to the restricted SCC and keep the rest', () => {
    const objects = template([ciValueSets().get('openshift')!]);
    for (const spec of [podSpec(objects), checkPod(objects).spec]) {
      expect(spec.securityContext).toEqual({
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      const container = spec.containers[0].securityContext;
      for (const key of ['runAsUser', 'runAsGroup']) expect(container[key], key).toBeUndefined();
      expect(container).toMatchObject({
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
    }
  });
});

describe('nameOverride and fullnameOverride', () => {
  /** The names the chart gives, and that its selectors and bindings still find each other. */
  function consistent(objects: KubeObject[]) {
    const pod = (only(objects, 'Deployment').spec as Any).template;
    const service = only(objects, 'Service') as Any;
    expect(selects(service.spec.selector, pod.metadata.labels)).toBe(true);
    expect(selects((only(objects, 'Deployment').spec as Any).selector.matchLabels, pod.metadata.labels)).toBe(
      true,
    );
    const sa = only(objects, 'ServiceAccount').metadata.name;
    expect(pod.spec.serviceAccountName).toBe(sa);
    for (const binding of objects.filter((o) => o.kind === 'RoleBinding') as Any[]) {
      expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: sa, namespace: 'mooring' }]);
      expect(objects.some((o) => o.kind === 'Role' && o.metadata.name === binding.roleRef.name)).toBe(true);
    }
    return { pod, service, sa };
  }

  it('nameOverride replaces the chart name in names and the name label', () => {
    const objects = template([base, { nameOverride: 'agent' }]);
    const { pod, service, sa } = consistent(objects);
    expect(only(objects, 'Deployment').metadata.name).toBe('mooring-agent');
    expect(sa).toBe('mooring-agent');
    expect(service.metadata.name).toBe('mooring-agent-metrics');
    expect(pod.metadata.labels['app.kubernetes.io/name']).toBe('agent');
  });

  it('fullnameOverride names every object of the release', () => {
    const objects = template([base, { fullnameOverride: 'ops-agent' }]);
    consistent(objects);
    for (const o of objects) expect(o.metadata.name, o.kind).toMatch(/^ops-agent(-[a-z-]+)?$|^mooring-apps$/);
    expect(checkPod(objects).metadata.name).toBe('ops-agent-check');
  });

  it('refuses a name that is not a DNS-1123 label', () => {
    expect(() => template([base, { fullnameOverride: 'Ops_Agent' }])).toThrow(/fullnameOverride/);
  });
});

describe('replicas spread over nodes', () => {
  it('one replica: no constraint', () => {
    expect(podSpec(template([base])).topologySpreadConstraints).toBeUndefined();
  });

  it('two replicas with leader election: a soft spread over nodes that selects the agent pods', () => {
    const objects = template([ciValueSets().get('leader-election')!]);
    const spec = podSpec(objects);
    expect(spec.topologySpreadConstraints).toHaveLength(1);
    const [c] = spec.topologySpreadConstraints;
    expect(c).toMatchObject({
      maxSkew: 1,
      topologyKey: 'kubernetes.io/hostname',
      whenUnsatisfiable: 'ScheduleAnyway',
    });
    const labels = (only(objects, 'Deployment').spec as Any).template.metadata.labels;
    expect(selects(c.labelSelector.matchLabels, labels)).toBe(true);
  });

  it('constraints of the values replace the default', () => {
    const own = [
      {
        maxSkew: 1,
        topologyKey: 'topology.kubernetes.io/zone',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { a: 'b' } },
      },
    ];
    const spec = podSpec(
      template([ciValueSets().get('leader-election')!, { topologySpreadConstraints: own }]),
    );
    expect(spec.topologySpreadConstraints).toEqual(own);
  });
});

describe('helm test', () => {
  const objects = template([ciValueSets().get('proxy-network-policy')!]);
  const pod = checkPod(objects);
  const agent = podSpec(objects);

  it('is a Pod hook that runs `mooring check` once', () => {
    expect(pod.metadata.annotations['helm.sh/hook']).toBe('test');
    expect(pod.spec.restartPolicy).toBe('Never');
    expect(pod.spec.containers).toHaveLength(1);
    expect(pod.spec.containers[0].args).toEqual(['check']);
    expect(pod.spec.containers[0].image).toBe(agent.containers[0].image);
    expect(agent.containers[0].args).toEqual(['run']);
  });

  it('has the agent’s settings, mounts, volumes and ServiceAccount', () => {
    expect(pod.spec.containers[0].env).toEqual(agent.containers[0].env);
    expect(pod.spec.containers[0].env.some((e: Any) => e.name === 'HTTPS_PROXY')).toBe(true);
    expect(pod.spec.containers[0].volumeMounts).toEqual(agent.containers[0].volumeMounts);
    expect(pod.spec.volumes).toEqual(agent.volumes);
    expect(pod.spec.serviceAccountName).toBe(agent.serviceAccountName);
    expect(pod.spec.automountServiceAccountToken).toBe(false);
  });

  it('is picked by no selector of the agent’s (ReplicaSet, Service, disruption budget)', () => {
    const withPdb = template([
      ciValueSets().get('proxy-network-policy')!,
      { podDisruptionBudget: { enabled: true } },
    ]);
    const selectors = [
      (only(withPdb, 'Deployment').spec as Any).selector.matchLabels,
      (only(withPdb, 'Service').spec as Any).selector,
      (only(withPdb, 'PodDisruptionBudget').spec as Any).selector.matchLabels,
    ];
    for (const s of selectors)
      expect(selects(s, checkPod(withPdb).metadata.labels), JSON.stringify(s)).toBe(false);
  });

  it('goes out through the chart’s NetworkPolicy, as the agent does', () => {
    const policy = only(objects, 'NetworkPolicy').spec as Any;
    for (const labels of [
      pod.metadata.labels,
      (only(objects, 'Deployment').spec as Any).template.metadata.labels,
    ]) {
      expect(selects(policy.podSelector.matchLabels, labels)).toBe(true);
      for (const e of policy.podSelector.matchExpressions) expect(e.values).toContain(labels[e.key]);
    }
  });

  it('is left out of the plain manifests of deploy/', () => {
    const plain = parseObjects(readFileSync(path.join(deployDir, 'mooring.yaml'), 'utf8'));
    expect(plain.filter((o) => o.kind === 'Pod')).toEqual([]);
    expect(checkPod(template([base]))).toBeDefined();
  });
});

describe('the agent pod’s lifecycle', () => {
  it('gives the pod the shutdown grace period plus 10 s, as the values table says', () => {
    const objects = template([base, { shutdownGracePeriodSeconds: 45 }]);
    const spec = podSpec(objects);
    expect(spec.terminationGracePeriodSeconds).toBe(55);
    const env = spec.containers[0].env.find((e: Any) => e.name === 'MOORING_SHUTDOWN_GRACE_PERIOD');
    expect(env.value).toBe('45');
  });

  it('never runs two writers: one replica is replaced by Recreate, two elect a leader', () => {
    const single = only(template([base]), 'Deployment').spec as Any;
    expect(single.replicas).toBe(1);
    expect(single.strategy).toEqual({ type: 'Recreate' });
    const ha = template([ciValueSets().get('leader-election')!]);
    const deployment = only(ha, 'Deployment').spec as Any;
    expect(deployment.replicas).toBe(2);
    expect(deployment.strategy).toBeUndefined();
    const env = deployment.template.spec.containers[0].env as Any[];
    expect(env.find((e) => e.name === 'MOORING_LEADER_ELECTION').value).toBe('true');
  });
});
