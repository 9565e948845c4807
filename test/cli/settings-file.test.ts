import { DEFAULT_POD_METADATA_POLICY } from '../../src/render/pod-metadata-policy.ts';
import { describe, expect, it } from 'vitest';
import { renderSettingsOf } from '../../src/cli/agent-settings.ts';
import { configHelp, parseAgentConfig } from '../../src/config.ts';
import { mergeRenderSettings, parseSettingsText } from '../../src/render/index.ts';

const LISTENER = '11111111-1111-4111-8111-111111111111';
const TENANT = '0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a';
const ENV = {
  MOORING_CONTROL_PLANE_URL: 'http://cp',
  MOORING_API_KEY: 'k',
  MOORING_LISTENER_ID: LISTENER,
  MOORING_NAMESPACES: 'apps',
};

const SETTINGS_YAML = `
redisImage: mirror.example/redis:7
clusterDomain: corp.example
storageClassName: fast
commands:
  queue: [python, -m, worker]
policy:
  podSecurity: restricted
  allowedVolumeTypes: [nfs]
  allowedCsiDrivers: [secrets-store.csi.k8s.io]
  allowPodCertificates: true
  podMetadata:
    annotations: { allow: [sidecar.istio.io/inject] }
references:
  serviceAccounts: [runner]
  allowServiceAccountTokens: true
  namespaceTenants: { apps: ${TENANT} }
`;

function parse(argv: string[], env: Record<string, string> = ENV, files: Record<string, string> = {}) {
  return parseAgentConfig({
    argv,
    env,
    readFile: (p) => {
      const text = files[p];
      if (text === undefined) throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
      return text;
    },
  });
}

function settingsOf(argv: string[], env?: Record<string, string>, files?: Record<string, string>) {
  const r = parse(argv, env, files);
  if (!r.ok || r.help) throw new Error(`bad config: ${JSON.stringify(r)}`);
  return renderSettingsOf(r.config);
}

function fileOf(text: string) {
  const parsed = parseSettingsText(text);
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  return parsed.settings;
}

describe('one settings file for mooring render and mooring run', () => {
  it('without a file, the agent renders with exactly the defaults mooring render uses', () => {
    expect(settingsOf([])).toEqual(mergeRenderSettings(LISTENER, {}));
  });

  it('--settings FILE gives the agent exactly the settings mooring render --settings FILE gives', () => {
    const files = { '/etc/mooring/settings.yaml': SETTINGS_YAML };
    const expected = mergeRenderSettings(LISTENER, fileOf(SETTINGS_YAML));
    expect(settingsOf(['--settings', '/etc/mooring/settings.yaml'], ENV, files)).toEqual(expected);
    expect(settingsOf([], { ...ENV, MOORING_SETTINGS: '/etc/mooring/settings.yaml' }, files)).toEqual(
      expected,
    );
    expect(expected.commands).toEqual({ queue: ['python', '-m', 'worker'] });
  });

  it("the agent's flags and variables override the file's members, and only those", () => {
    const files = { '/s.yaml': SETTINGS_YAML };
    const s = settingsOf(
      ['--settings', '/s.yaml', '--redis-image', 'r:1', '--pod-security', 'baseline'],
      { ...ENV, MOORING_ALLOW_SERVICE_ACCOUNT_TOKENS: 'false' },
      files,
    );
    expect(s.redisImage).toBe('r:1');
    expect(s.policy).toEqual({
      podSecurity: 'baseline',
      allowHostPath: false,
      allowPrivileged: false,
      allowedVolumeTypes: ['nfs'],
      // The file's members no flag names reach the agent's renderer as they are.
      allowedCsiDrivers: ['secrets-store.csi.k8s.io'],
      allowPodCertificates: true,
      podMetadata: {
        labels: DEFAULT_POD_METADATA_POLICY.labels,
        annotations: {
          allow: ['sidecar.istio.io/inject'],
          deny: DEFAULT_POD_METADATA_POLICY.annotations.deny,
        },
      },
    });
    expect(s.references).toEqual({
      serviceAccounts: ['runner'],
      allowServiceAccountTokens: false,
      namespaceTenants: { apps: TENANT },
    });
    expect(s.clusterDomain).toBe('corp.example');
    expect(s.storageClassName).toBe('fast');
  });

  it('refuses an unreadable or invalid file, naming the flag and the member, never a value', () => {
    const r = parse(['--settings', '/missing.yaml']);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems).toEqual(['--settings (MOORING_SETTINGS): "/missing.yaml": cannot be read (ENOENT)']);
    const bad = parse(['--settings', '/bad.yaml'], ENV, {
      '/bad.yaml': 'clusterDomian: secret-looking-value\npolicy: { podSecurity: privileged }\n',
    });
    if (bad.ok) throw new Error('expected problems');
    expect(bad.problems).toHaveLength(2);
    expect(bad.problems.join('\n')).toContain('policy.podSecurity: must be baseline or restricted');
    expect(bad.problems.join('\n')).toContain('clusterDomian');
    expect(bad.problems.join('\n')).not.toContain('secret-looking-value');
  });

  it("refuses the file's tenant binding of a namespace the agent does not write, as it does the flag's", () => {
    const r = parse(['--settings', '/s.yaml'], ENV, {
      '/s.yaml': `references: { namespaceTenants: { apsp: ${TENANT} } }`,
    });
    if (r.ok) throw new Error('expected problems');
    expect(r.problems).toEqual([
      '--settings (MOORING_SETTINGS): "/s.yaml": references.namespaceTenants: namespace "apsp" is not one of --namespaces',
    ]);
  });

  it('refuses at start a clusterIssuer without allowedHosts (any record could get a certificate for any host)', () => {
    const file = (extra: string) => ({
      '/s.yaml': `exposure: { kind: ingress, tls: { clusterIssuer: letsencrypt }${extra} }`,
    });
    const r = parse(['--settings', '/s.yaml'], ENV, file(''));
    if (r.ok) throw new Error('expected problems');
    expect(r.problems).toEqual([
      '--settings (MOORING_SETTINGS): "/s.yaml": exposure.allowedHosts: tls.clusterIssuer requires allowedHosts (the hosts a certificate may be issued for)',
    ]);
    expect(parse(['--settings', '/s.yaml'], ENV, file(', allowedHosts: []')).ok).toBe(false);
    expect(parse(['--settings', '/s.yaml'], ENV, file(", allowedHosts: ['*.apps.example']")).ok).toBe(true);
  });

  it('--help documents the flag and that the file is the defaults of the flags it overlaps', () => {
    const help = configHelp('run', '').replace(/\n {4,}/g, ' ');
    expect(help).toContain('--settings <value>');
    expect(help).toContain('default: settings redisImage, else docker.io/library/redis:7.4-alpine');
  });
});
