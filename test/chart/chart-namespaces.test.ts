import { describe, expect, it } from 'vitest';
import { checkPodSecurity } from '../../src/render/pod-security.ts';
import type { PodSecurityLevel } from '../../src/pod-security-lists.ts';
import { pssFailures } from '../render/pss-oracle.ts';
import { installDryRun, ciValueSets, type KubeObject, lint, RELEASE, template, templateRaw } from './helm.ts';
import { validateObject } from './models.ts';

const base = ciValueSets().get('namespaces')!;
const WATCHED = ['team-a', 'team-b', 'team-c'];
const PSA = 'pod-security.kubernetes.io/';

interface Policy {
  podSecurity?: PodSecurityLevel;
  allowPrivileged?: boolean;
  allowHostPath?: boolean;
  allowedVolumeTypes?: string[];
}

function namespacesOf(objects: KubeObject[]): KubeObject[] {
  return objects.filter((o) => o.kind === 'Namespace');
}

/** The Pod Security Admission labels of each rendered Namespace, by name. */
function psaLabels(policy: Policy): Map<string, Record<string, string>> {
  const objects = template([base, { createNamespaces: true, policy }]);
  return new Map(
    namespacesOf(objects).map((ns) => [
      ns.metadata.name,
      Object.fromEntries(Object.entries(ns.metadata.labels ?? {}).filter(([k]) => k.startsWith(PSA))),
    ]),
  );
}

/** The label set of one Namespace: all rendered Namespaces carry the same. */
function labelsFor(policy: Policy): Record<string, string> {
  const all = [...psaLabels(policy).values()];
  expect(all).toHaveLength(WATCHED.length);
  for (const labels of all) expect(labels).toEqual(all[0]);
  return all[0]!;
}

function notes(values: Array<string | Record<string, unknown>>): string {
  const res = installDryRun(values);
  expect(res.status, res.stderr).toBe(0);
  return res.stdout.slice(res.stdout.indexOf('NOTES:'));
}

describe('chart: createNamespaces', () => {
  it('is off by default: no value set renders a Namespace', () => {
    for (const [name, file] of ciValueSets()) {
      expect(namespacesOf(template([file])), name).toEqual([]);
    }
  });

  it('on: one valid Namespace per watched namespace, labelled at policy.podSecurity, kept on uninstall', () => {
    for (const level of ['baseline', 'restricted'] as const) {
      const values = [base, { createNamespaces: true, policy: { podSecurity: level } }];
      const res = lint(values);
      expect(res.status, res.stdout + res.stderr).toBe(0);
      const created = namespacesOf(template(values));
      expect(created.map((ns) => ns.metadata.name)).toEqual(WATCHED);
      for (const ns of created) {
        expect(() => validateObject(ns)).not.toThrow();
        expect(ns.metadata.namespace).toBeUndefined();
        expect(ns.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
        expect(ns.metadata.labels).toMatchObject({
          'app.kubernetes.io/instance': RELEASE.name,
          'app.kubernetes.io/managed-by': 'Helm',
        });
      }
      expect(labelsFor({ podSecurity: level })).toEqual({
        [`${PSA}enforce`]: level,
        [`${PSA}enforce-version`]: 'latest',
        [`${PSA}warn`]: level,
        [`${PSA}warn-version`]: 'latest',
        [`${PSA}audit`]: level,
        [`${PSA}audit-version`]: 'latest',
      });
    }
  });

  it('changes nothing else the chart renders', () => {
    const off = template([base]);
    const on = template([base, { createNamespaces: true }]);
    expect(on.filter((o) => o.kind !== 'Namespace')).toEqual(off);
  });

  it.each<[string, Policy, string | undefined]>([
    ['allowPrivileged under baseline', { allowPrivileged: true }, undefined],
    ['allowHostPath under baseline', { allowHostPath: true }, undefined],
    ['allowPrivileged under restricted', { podSecurity: 'restricted', allowPrivileged: true }, undefined],
    ['allowHostPath under restricted', { podSecurity: 'restricted', allowHostPath: true }, undefined],
    [
      'an extra volume type under restricted',
      { podSecurity: 'restricted', allowedVolumeTypes: ['nfs'] },
      'baseline',
    ],
    ['an extra volume type under baseline', { allowedVolumeTypes: ['nfs'] }, 'baseline'],
    [
      'an extra volume type and allowPrivileged under restricted',
      { podSecurity: 'restricted', allowedVolumeTypes: ['nfs'], allowPrivileged: true },
      undefined,
    ],
  ])('with %s (%o): enforce label %s, warn and audit at the level', (_name, policy, enforce) => {
    const level = policy.podSecurity ?? 'baseline';
    const labels = labelsFor(policy);
    expect(labels[`${PSA}enforce`]).toBe(enforce);
    expect(labels[`${PSA}enforce-version`]).toBe(enforce ? 'latest' : undefined);
    expect(labels[`${PSA}warn`]).toBe(level);
    expect(labels[`${PSA}audit`]).toBe(level);
  });

  describe('the enforced level admits every pod the agent may render, and is the strongest that does', () => {
    /** A pod satisfying restricted but for what the exemptions allow. */
    function exemptedPod(policy: Policy) {
      const volumes: unknown[] = [];
      if (policy.allowHostPath) volumes.push({ name: 'host', hostPath: { path: '/var/log' } });
      for (const type of policy.allowedVolumeTypes ?? []) volumes.push({ name: type, [type]: { path: '/' } });
      return {
        securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
        containers: [
          {
            name: 'app',
            image: 'app:1',
            securityContext: policy.allowPrivileged
              ? { privileged: true, allowPrivilegeEscalation: true, capabilities: { add: ['SYS_ADMIN'] } }
              : { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
          },
        ],
        volumes,
      };
    }

    const LEVELS = ['baseline', 'restricted'] as const;
    const cases: Policy[] = LEVELS.flatMap((podSecurity) => [
      { podSecurity },
      { podSecurity, allowPrivileged: true },
      { podSecurity, allowHostPath: true },
      { podSecurity, allowedVolumeTypes: ['nfs'] },
      { podSecurity, allowedVolumeTypes: ['nfs', 'iscsi'], allowHostPath: true },
    ]);

    it.each(cases)('%o', (policy) => {
      const pod = exemptedPod(policy);
      const level = policy.podSecurity ?? 'baseline';
      // The agent renders this pod: it satisfies its level with the exemptions.
      expect(
        checkPodSecurity(pod, {}, level, {
          allowPrivileged: policy.allowPrivileged ?? false,
          allowHostPath: policy.allowHostPath ?? false,
          allowedVolumeTypes: policy.allowedVolumeTypes ?? [],
        }),
      ).toEqual([]);
      const enforced = labelsFor(policy)[`${PSA}enforce`] as PodSecurityLevel | undefined;
      const admitted = LEVELS.filter((l) => pssFailures(pod, {}, l).length === 0);
      // Admission at the enforced level (an independent reading of the standard) lets it in...
      if (enforced) expect(admitted).toContain(enforced);
      // ...and no stronger level the chart could have chosen, up to the agent's own, would.
      const stronger = LEVELS.slice(enforced ? LEVELS.indexOf(enforced) + 1 : 0, LEVELS.indexOf(level) + 1);
      for (const l of stronger) expect(admitted, l).not.toContain(l);
    });
  });

  it('refuses the release namespace among namespaces: it exists before the release', () => {
    const values = { createNamespaces: true, namespaces: ['team-a', 'team-b', RELEASE.namespace] };
    const res = templateRaw([base, values]);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain(
      `mooring: createNamespaces cannot create the release namespace "${RELEASE.namespace}"`,
    );
    // Without createNamespaces the same list renders, as before.
    expect(templateRaw([base, { namespaces: values.namespaces }]).status).toBe(0);
  });

  it('the schema takes only a boolean', () => {
    const res = templateRaw([base, { createNamespaces: 'always' }]);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain("at '/createNamespaces'");
  });

  it('the NOTES say which labels the chart set instead of printing kubectl label commands', () => {
    const on = notes([base, { createNamespaces: true, policy: { podSecurity: 'restricted' } }]);
    expect(on).not.toContain('kubectl label');
    expect(on).toContain('enforce=restricted, warn=restricted, audit=restricted');
    expect(on).toContain('helm.sh/resource-policy: keep');
    const exempt = notes([base, { createNamespaces: true, policy: { allowHostPath: true } }]);
    expect(exempt).toContain('warn=baseline, audit=baseline (not enforced');
    expect(exempt).not.toContain('kubectl label');
    const off = notes([base]);
    for (const ns of WATCHED) {
      expect(off).toContain(
        `kubectl label --overwrite namespace ${ns} pod-security.kubernetes.io/enforce=baseline`,
      );
    }
  });
});
