import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergePodMetadataPolicy } from '../../src/render/pod-metadata-policy.ts';
import { renderSettingsOf } from '../../src/cli/agent-settings.ts';
import { parseAgentConfig } from '../../src/config.ts';
import { EXTRA_VOLUME_TYPES } from '../../src/pod-security-lists.ts';
import { chartDir } from '../../scripts/render-deploy.ts';
import {
  installDryRun,
  ciValueSets,
  type KubeObject,
  mountedFiles,
  only,
  template,
  templateRaw,
} from './helm.ts';

const base = ciValueSets().get('namespaces')!;

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string } };
}

/** The agent container's environment, downward API resolved. */
function env(objects: KubeObject[]): Record<string, string> {
  // biome-ignore lint/suspicious/noExplicitAny: reading a rendered manifest
  const vars = (only(objects, 'Deployment').spec as any).template.spec.containers[0].env as EnvVar[];
  return Object.fromEntries(vars.map((e) => [e.name, e.valueFrom ? 'pod' : (e.value ?? '')]));
}

/** The render policy the agent would use with the chart's environment. */
/** The policy members the chart writes into the settings file, at their defaults. */
const NO_CSI_NO_CERTIFICATES_DEFAULT_METADATA = {
  allowedCsiDrivers: [],
  allowPodCertificates: false,
  podMetadata: mergePodMetadataPolicy(undefined),
};

function policyOf(objects: KubeObject[]) {
  const files = mountedFiles(objects);
  const result = parseAgentConfig({ argv: [], env: env(objects), readFile: (p) => files.get(p) ?? 'key' });
  if (!result.ok || result.help) throw new Error(JSON.stringify(result));
  return renderSettingsOf(result.config).policy;
}

describe('chart: policy.podSecurity and policy.allowedVolumeTypes reach the agent', () => {
  it('by default: baseline, no extra volume type', () => {
    const objects = template([base]);
    expect(env(objects).MOORING_POD_SECURITY).toBe('baseline');
    expect(env(objects).MOORING_ALLOWED_VOLUME_TYPES).toBeUndefined();
    expect(policyOf(objects)).toEqual({
      podSecurity: 'baseline',
      allowHostPath: false,
      allowPrivileged: false,
      allowedVolumeTypes: [],
      ...NO_CSI_NO_CERTIFICATES_DEFAULT_METADATA,
    });
  });

  it('restricted with nfs and iscsi', () => {
    const objects = template([
      base,
      { policy: { podSecurity: 'restricted', allowedVolumeTypes: ['nfs', 'iscsi'], allowPrivileged: true } },
    ]);
    expect(env(objects).MOORING_ALLOWED_VOLUME_TYPES).toBe('nfs,iscsi');
    expect(policyOf(objects)).toEqual({
      podSecurity: 'restricted',
      allowHostPath: false,
      allowPrivileged: true,
      allowedVolumeTypes: ['nfs', 'iscsi'],
      ...NO_CSI_NO_CERTIFICATES_DEFAULT_METADATA,
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown level', { podSecurity: 'privileged' }, "at '/policy/podSecurity'"],
    ['gitRepo', { allowedVolumeTypes: ['gitRepo'] }, "at '/policy/allowedVolumeTypes/0'"],
    ['flexVolume', { allowedVolumeTypes: ['flexVolume'] }, "at '/policy/allowedVolumeTypes/0'"],
    [
      'hostPath (allowHostPath says it)',
      { allowedVolumeTypes: ['hostPath'] },
      "at '/policy/allowedVolumeTypes/0'",
    ],
    ['a misspelt type', { allowedVolumeTypes: ['NFS'] }, "at '/policy/allowedVolumeTypes/0'"],
  ])('the schema refuses %s', (_name, policy, where) => {
    const res = templateRaw([base, { policy }]);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain(where);
  });

  it("the schema's volume types are exactly those the agent accepts", () => {
    const schema = JSON.parse(readFileSync(path.join(chartDir, 'values.schema.json'), 'utf8'));
    const items = schema.properties.policy.properties.allowedVolumeTypes.items.enum as string[];
    expect([...items].sort()).toEqual([...EXTRA_VOLUME_TYPES].sort());
  });

  it('the NOTES print the namespace label command for each watched namespace, at the chosen level', () => {
    const res = installDryRun([base, { policy: { podSecurity: 'restricted' } }]);
    expect(res.status, res.stderr).toBe(0);
    const notes = res.stdout.slice(res.stdout.indexOf('NOTES:'));
    for (const ns of ['team-a', 'team-b', 'team-c']) {
      expect(notes).toContain(
        `kubectl label --overwrite namespace ${ns} pod-security.kubernetes.io/enforce=restricted`,
      );
    }
    expect(notes).toContain('satisfies the "restricted" Pod Security Standard');
    expect(notes).not.toContain('warn/audit');
    const exempt = installDryRun([base, { policy: { allowPrivileged: true } }]);
    expect(exempt.stdout).toContain('less the exempted controls (allowPrivileged)');
    expect(exempt.stdout).toContain('warn/audit');
  });
});
