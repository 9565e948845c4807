import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { render } from '../../src/cli/render.ts';
import { captureContext } from '../cli/helpers.ts';
import { CANARY, GOLDEN_CASES, deployment, revision } from './fixtures.ts';

const fakeContext = (cwd: string) => captureContext({}, undefined, cwd);

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mooring-render-cli-'));
  const full = GOLDEN_CASES['full-spec']!();
  await writeFile(join(dir, 'minimal.json'), JSON.stringify(deployment({ name: 'minimal' })));
  await writeFile(join(dir, 'full.yaml'), YAML.stringify(full.deployment));
  await writeFile(join(dir, 'revision.yaml'), YAML.stringify(revision('r/img:9')));
  await writeFile(
    join(dir, 'settings.yaml'),
    // full.yaml mounts an nfs volume (outside the default volume types) and an inline CSI one.
    YAML.stringify({
      clusterDomain: 'corp.internal',
      storageClassName: 'fast',
      policy: { allowedVolumeTypes: ['nfs'], allowedCsiDrivers: ['secrets-store.csi.k8s.io'] },
    }),
  );
  await writeFile(join(dir, 'bad-settings.yaml'), YAML.stringify({ clusterDomian: 'typo' }));
  await writeFile(join(dir, 'restricted.yaml'), YAML.stringify({ policy: { podSecurity: 'restricted' } }));
  await writeFile(
    join(dir, 'bad-policy.yaml'),
    YAML.stringify({
      policy: { podSecurity: 'privileged', allowedVolumeTypes: ['gitRepo', 'hostPath', 'nfs'] },
    }),
  );
  await writeFile(join(dir, 'broken.yaml'), 'name: [unclosed\n');
  const bad = {
    ...deployment({}),
    id: 42,
    secrets: [{ name: 'X', value: CANARY }],
    source_config: { resource_spec: { cpu: -1 } },
  };
  await writeFile(join(dir, 'bad.json'), JSON.stringify(bad));
  await writeFile(
    join(dir, 'invalid-spec.json'),
    JSON.stringify(deployment({ spec: { cpu: 1, cpu_limit: 0.5 }, secrets: [{ name: 'X', value: CANARY }] })),
  );
  // The fixture's tenant is 3e2d1c0b-...; the settings bind its namespace to another one.
  await writeFile(
    join(dir, 'references.yaml'),
    YAML.stringify({
      references: {
        agentServiceAccount: 'mooring',
        namespaceTenants: { apps: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d' },
      },
    }),
  );
  await writeFile(
    join(dir, 'references-own-tenant.yaml'),
    YAML.stringify({
      references: {
        agentServiceAccount: 'mooring',
        serviceAccounts: ['shop-runner'],
        namespaceTenants: { apps: '3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b' },
      },
    }),
  );
  await writeFile(
    join(dir, 'as-agent.json'),
    JSON.stringify(deployment({ spec: { service_account_name: 'mooring' } })),
  );
  await writeFile(
    join(dir, 'as-runner.json'),
    JSON.stringify(deployment({ spec: { service_account_name: 'shop-runner' } })),
  );
  const noListener = deployment({});
  noListener.source_config.listener_id = null;
  await writeFile(join(dir, 'no-listener.json'), JSON.stringify(noListener));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('mooring render', () => {
  it('prints a YAML stream of the objects and exits 0', async () => {
    const f = fakeContext(dir);
    expect(await render(['--deployment', 'minimal.json'], f.ctx)).toBe(0);
    const docs = YAML.parseAllDocuments(f.stdout()).map((d) => d.toJS());
    expect(docs.map((d) => d.kind)).toContain('Deployment');
    expect(f.stdout().startsWith('---\n')).toBe(true);
    expect(f.stderr()).toBe('');
  });

  it('-o json prints a v1 List; the revision and settings files are used', async () => {
    const f = fakeContext(dir);
    const code = await render(
      [
        '--deployment',
        'full.yaml',
        '--revision',
        'revision.yaml',
        '--settings',
        'settings.yaml',
        '-o',
        'json',
      ],
      f.ctx,
    );
    expect(code).toBe(0);
    const list = JSON.parse(f.stdout());
    expect(list.kind).toBe('List');
    expect(f.stdout()).toContain('"image": "r/img:9"');
    expect(f.stdout()).toContain('.svc.corp.internal');
    expect(f.stdout()).toContain('"storageClassName": "fast"');
  });

  it('--help prints every flag and exits 0', async () => {
    const f = fakeContext(dir);
    expect(await render(['--help'], f.ctx)).toBe(0);
    for (const flag of ['--deployment', '--revision', '--settings', '--listener-id', '--output']) {
      expect(f.stdout()).toContain(flag);
    }
  });

  it('an unknown flag or a missing --deployment exits 2 with one line', async () => {
    const a = fakeContext(dir);
    expect(await render(['--nope'], a.ctx)).toBe(2);
    expect(a.stderr().trim().split('\n')).toHaveLength(1);
    const b = fakeContext(dir);
    expect(await render([], b.ctx)).toBe(2);
    expect(b.stderr()).toBe('mooring render: MOORING_E_INPUT_INVALID: --deployment FILE is required\n');
  });

  it('a bad output format and an unreadable file are each reported on their own line', async () => {
    const f = fakeContext(dir);
    expect(await render(['--deployment', 'missing.json', '-o', 'xml'], f.ctx)).toBe(2);
    expect(f.stderr().trim().split('\n')).toEqual([
      'mooring render: MOORING_E_INPUT_INVALID: --output "xml" must be yaml or json',
      'mooring render: MOORING_E_INPUT_INVALID: missing.json: cannot be read (ENOENT)',
    ]);
  });

  it('a file that is not YAML says where', async () => {
    const f = fakeContext(dir);
    expect(await render(['--deployment', 'broken.yaml'], f.ctx)).toBe(2);
    expect(f.stderr()).toMatch(
      /^mooring render: MOORING_E_INPUT_INVALID: broken\.yaml: not valid YAML or JSON \(line \d+, column \d+\)\n$/,
    );
  });

  it('a malformed deployment gives one line per problem, naming fields, never values', async () => {
    const f = fakeContext(dir);
    expect(await render(['--deployment', 'bad.json'], f.ctx)).toBe(2);
    const lines = f.stderr().trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.some((l) => l.startsWith('mooring render: MOORING_E_INPUT_INVALID: bad.json: id:'))).toBe(
      true,
    );
    expect(
      lines.some((l) =>
        l.startsWith('mooring render: MOORING_E_INPUT_INVALID: bad.json: source_config.resource_spec.cpu:'),
      ),
    ).toBe(true);
    expect(f.stderr()).not.toContain(CANARY);
  });

  it('a misspelt settings member is refused', async () => {
    const f = fakeContext(dir);
    expect(await render(['--deployment', 'minimal.json', '--settings', 'bad-settings.yaml'], f.ctx)).toBe(2);
    expect(f.stderr()).toContain('bad-settings.yaml');
    expect(f.stderr()).toContain('clusterDomian');
  });

  it('policy.podSecurity: restricted in the settings file renders restricted pods', async () => {
    const f = fakeContext(dir);
    expect(await render(['--deployment', 'minimal.json', '--settings', 'restricted.yaml'], f.ctx)).toBe(0);
    const docs = YAML.parseAllDocuments(f.stdout()).map((d) => d.toJS());
    const postgres = docs.find((d) => d.kind === 'StatefulSet');
    expect(postgres.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 70 });
    const api = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'minimal');
    expect(api.spec.template.spec.containers[0].securityContext).toEqual({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      runAsNonRoot: true,
    });
  });

  it('a bad policy in the settings file is refused: unknown level, never-allowed volume types', async () => {
    const f = fakeContext(dir);
    expect(await render(['--deployment', 'minimal.json', '--settings', 'bad-policy.yaml'], f.ctx)).toBe(2);
    expect(f.stderr()).toContain('policy.podSecurity: must be baseline or restricted');
    expect(f.stderr()).toContain('policy.allowedVolumeTypes.0: gitRepo volumes are never allowed');
    expect(f.stderr()).toContain(
      'policy.allowedVolumeTypes.1: hostPath is allowed by allowHostPath, not here',
    );
    expect(f.stderr()).not.toContain('allowedVolumeTypes.2');
  });

  it('the render of a deployment whose nfs volume the settings do not allow is refused', async () => {
    const f = fakeContext(dir);
    expect(await render(['--deployment', 'full.yaml'], f.ctx)).toBe(2);
    expect(f.stderr()).toContain('MOORING_E_RENDER_POLICY: nfs volume "shared" is not allowed');
    expect(f.stderr()).toContain('(field source_config.resource_spec.volumes[4].nfs)');
  });

  it('a render error prints the code, the message and the field, and exits 2', async () => {
    const f = fakeContext(dir);
    expect(await render(['--deployment', 'invalid-spec.json'], f.ctx)).toBe(2);
    expect(f.stderr()).toBe(
      'mooring render: MOORING_E_RENDER_INVALID: cpu_limit (0.5) must be >= cpu (1) (field source_config.resource_spec.cpu_limit)\n',
    );
    expect(f.stdout()).toBe('');
  });

  it("the settings file's references reach rendering: tenant binding, the agent's account, an allow-list", async () => {
    const other = fakeContext(dir);
    expect(await render(['--deployment', 'minimal.json', '--settings', 'references.yaml'], other.ctx)).toBe(
      2,
    );
    expect(other.stderr()).toBe(
      'mooring render: MOORING_E_TENANT_MISMATCH: tenant_id "3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b" is not the tenant namespace "apps" is bound to; nothing written (field tenant_id)\n',
    );
    expect(other.stdout()).toBe('');

    const agent = fakeContext(dir);
    const asAgent = ['--deployment', 'as-agent.json', '--settings', 'references-own-tenant.yaml'];
    expect(await render(asAgent, agent.ctx)).toBe(2);
    expect(agent.stderr()).toMatch(
      /^mooring render: MOORING_E_RENDER_POLICY: service_account_name "mooring" is the agent's own ServiceAccount.*\(field source_config\.resource_spec\.service_account_name\)\n$/,
    );

    const runner = fakeContext(dir);
    const asRunner = ['--deployment', 'as-runner.json', '--settings', 'references-own-tenant.yaml'];
    expect(await render(asRunner, runner.ctx)).toBe(0);
    expect(runner.stdout()).toContain('serviceAccountName: shop-runner');
  });

  it('needs a listener id when the deployment has none; --listener-id gives it', async () => {
    const a = fakeContext(dir);
    expect(await render(['--deployment', 'no-listener.json'], a.ctx)).toBe(2);
    expect(a.stderr()).toContain('--listener-id ID is required');
    const b = fakeContext(dir);
    expect(await render(['--deployment', 'no-listener.json', '--listener-id', 'lst-1'], b.ctx)).toBe(0);
    expect(b.stdout()).toContain('mooring.dev/listener-id: lst-1');
  });
});
