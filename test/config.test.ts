import { describe, expect, it } from 'vitest';
import { configHelp, parseAgentConfig, SETTINGS } from '../src/config.ts';

const LISTENER = '3f1c8a52-6a43-4a51-9a0e-0c1f7f3f9d11';
const TENANT_A = '0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a';
const TENANT_B = 'c4b3a291-8f7e-4d6c-9b5a-4f3e2d1c0b9a';
const BASE_ENV = {
  MOORING_CONTROL_PLANE_URL: 'http://cp.example:8000/',
  MOORING_API_KEY: 'k-123',
  MOORING_LISTENER_ID: LISTENER,
  MOORING_NAMESPACES: 'team-a, team-b',
};

function parse(
  argv: string[],
  env: Record<string, string | undefined> = BASE_ENV,
  files: Record<string, string> = {},
) {
  return parseAgentConfig({
    argv,
    env,
    hostname: () => 'host-1',
    readFile: (p) => {
      const content = files[p];
      if (content === undefined) throw Object.assign(new Error('nope'), { code: 'ENOENT' });
      return content;
    },
  });
}

function ok(result: ReturnType<typeof parse>) {
  if (!result.ok || result.help) throw new Error(`expected a config, got ${JSON.stringify(result)}`);
  return result.config;
}

function problems(result: ReturnType<typeof parse>): string[] {
  if (result.ok) throw new Error('expected problems');
  return result.problems;
}

describe('parseAgentConfig', () => {
  it('applies documented defaults and converts seconds to milliseconds', () => {
    const c = ok(parse([]));
    expect(c).toMatchObject({
      controlPlaneUrl: 'http://cp.example:8000',
      apiKey: 'k-123',
      listenerId: LISTENER,
      namespaces: ['team-a', 'team-b'],
      pollIntervalMs: 15_000,
      resyncIntervalMs: 0,
      heartbeatIntervalMs: 60_000,
      concurrency: 8,
      reconcileTimeoutMs: 120_000,
      opsHost: '127.0.0.1',
      opsPort: 8080,
      leaderElection: false,
      leaseName: 'mooring-leader',
      leaseNamespace: 'team-a',
      identity: 'host-1',
      shutdownGracePeriodMs: 20_000,
      dryRun: false,
      redisImage: 'docker.io/library/redis:7.4-alpine',
      postgresImage: 'docker.io/library/postgres:16-alpine',
      clusterDomain: 'cluster.local',
      logLevel: 'info',
    });
    expect(c.kubeconfig).toBeUndefined();
    expect(c.storageClass).toBeUndefined();
  });

  it('binds the ops port to the pod IP when the chart passes it, else to loopback, never to every interface by default', () => {
    expect(ok(parse([], { ...BASE_ENV, MOORING_POD_IP: '10.42.0.17' })).opsHost).toBe('10.42.0.17');
    expect(ok(parse([], { ...BASE_ENV, MOORING_POD_IP: '' })).opsHost).toBe('127.0.0.1');
    expect(
      ok(parse([], { ...BASE_ENV, MOORING_POD_IP: '10.42.0.17', MOORING_OPS_HOST: '0.0.0.0' })).opsHost,
    ).toBe('0.0.0.0');
    expect(ok(parse(['--ops-host', '::'], { ...BASE_ENV, MOORING_POD_IP: '10.42.0.17' })).opsHost).toBe('::');
    expect(unwrapped(configHelp('run', ''))).toContain(
      'env MOORING_OPS_HOST; default: $MOORING_POD_IP, else 127.0.0.1',
    );
  });

  it('paces Kubernetes requests by the server by default (auto), or by a number the operator sets', () => {
    const qps = (argv: string[]) => {
      const r = parse(argv);
      return r.ok && !r.help ? r.config.kubeQps : r.ok ? 'help' : r.problems;
    };
    expect(qps([])).toBe('auto');
    expect(qps(['--kube-qps', '25.5'])).toBe(25.5);
    expect(qps(['--kube-qps', '0'])).toBe(0);
    expect(qps(['--kube-qps', 'fast'])).toEqual([
      '--kube-qps (MOORING_KUBE_QPS): must be auto or a number of requests a second (0 = no limit) (got "fast")',
    ]);
  });

  it('lets flags win over the environment', () => {
    const c = ok(
      parse(['--poll-interval', '1.5', '--namespaces', 'x', '--dry-run', '--no-leader-election'], {
        ...BASE_ENV,
        MOORING_POLL_INTERVAL: '30',
        MOORING_DRY_RUN: 'false',
        MOORING_LEADER_ELECTION: 'true',
      }),
    );
    expect(c.pollIntervalMs).toBe(1500);
    expect(ok(parse(['--resync-interval', '300'])).resyncIntervalMs).toBe(300_000);
    expect(c.namespaces).toEqual(['x']);
    expect(c.dryRun).toBe(true);
    expect(c.leaderElection).toBe(false);
  });

  it('reads booleans from the environment', () => {
    const c = ok(parse([], { ...BASE_ENV, MOORING_LEADER_ELECTION: 'yes', MOORING_ALLOW_HOST_PATH: '1' }));
    expect(c.leaderElection).toBe(true);
    expect(c.allowHostPath).toBe(true);
  });

  it('reads the render policy: baseline and no extra volume types by default', () => {
    const c = ok(parse([]));
    expect(c).toMatchObject({
      podSecurity: 'baseline',
      allowHostPath: false,
      allowPrivileged: false,
      allowedVolumeTypes: [],
    });
    const r = ok(
      parse(['--pod-security', 'restricted'], { ...BASE_ENV, MOORING_ALLOWED_VOLUME_TYPES: 'nfs, iscsi' }),
    );
    expect(r.podSecurity).toBe('restricted');
    expect(r.allowedVolumeTypes).toEqual(['nfs', 'iscsi']);
    expect(ok(parse([], { ...BASE_ENV, MOORING_POD_SECURITY: 'restricted' })).podSecurity).toBe('restricted');
  });

  it('refuses an unknown level and volume types that are never allowed or unknown', () => {
    expect(problems(parse(['--pod-security', 'privileged']))).toEqual([
      '--pod-security (MOORING_POD_SECURITY): must be one of baseline, restricted (got "privileged")',
    ]);
    expect(problems(parse(['--allowed-volume-types', 'nfs,gitRepo']))).toEqual([
      '--allowed-volume-types (MOORING_ALLOWED_VOLUME_TYPES): gitRepo volumes are never allowed (got "nfs,gitRepo")',
    ]);
    expect(problems(parse(['--allowed-volume-types', 'flexVolume']))[0]).toContain(
      'flexVolume volumes are never allowed',
    );
    expect(problems(parse(['--allowed-volume-types', 'hostPath']))[0]).toContain(
      'hostPath is allowed by --allow-host-path',
    );
    expect(problems(parse(['--allowed-volume-types', 'NFS']))[0]).toContain(
      '"NFS" is not a Kubernetes volume type',
    );
  });

  it('takes the lease namespace from MOORING_POD_NAMESPACE before the first namespace', () => {
    expect(ok(parse([], { ...BASE_ENV, MOORING_POD_NAMESPACE: 'mooring-system' })).leaseNamespace).toBe(
      'mooring-system',
    );
    expect(
      ok(parse(['--lease-namespace', 'ops'], { ...BASE_ENV, MOORING_POD_NAMESPACE: 'x' })).leaseNamespace,
    ).toBe('ops');
  });

  it('reads the API key from a file and trims the trailing newline', () => {
    const env = { ...BASE_ENV, MOORING_API_KEY: undefined, MOORING_API_KEY_FILE: '/run/key' };
    expect(ok(parse([], env, { '/run/key': 'from-file\n' })).apiKey).toBe('from-file');
  });

  it('reports a missing key file without failing on other settings first', () => {
    const env = { ...BASE_ENV, MOORING_API_KEY: undefined, MOORING_API_KEY_FILE: '/run/missing' };
    expect(problems(parse([], env))).toEqual([
      '--api-key-file (MOORING_API_KEY_FILE): cannot read "/run/missing" (ENOENT)',
    ]);
  });

  it('reports every problem at once, one line each', () => {
    const lines = problems(
      parse(['--poll-interval', 'soon', '--concurrency', '0', '--ops-port', '70000'], {
        MOORING_LISTENER_ID: 'nope',
      }),
    );
    expect(lines).toEqual([
      '--listener-id (MOORING_LISTENER_ID): must be a uuid (got "nope")',
      '--poll-interval (MOORING_POLL_INTERVAL): must be a positive number of seconds (got "soon")',
      '--concurrency (MOORING_CONCURRENCY): must be at least 1 (got "0")',
      '--ops-port (MOORING_OPS_PORT): must be a port number (0-65535) (got "70000")',
      '--control-plane-url (MOORING_CONTROL_PLANE_URL): is required',
      '--namespaces (MOORING_NAMESPACES): is required',
      '--api-key-file (MOORING_API_KEY_FILE) or --api-key (MOORING_API_KEY): one is required',
    ]);
  });

  it('never echoes the API key in a problem', () => {
    const lines = problems(parse(['--api-key', '  '], { ...BASE_ENV, MOORING_API_KEY: undefined }));
    expect(lines).toEqual(['--api-key (MOORING_API_KEY): must not be empty']);
  });

  it('refuses both key forms at once', () => {
    expect(problems(parse(['--api-key-file', '/k'], BASE_ENV, { '/k': 'x' }))).toEqual([
      '--api-key (MOORING_API_KEY) and --api-key-file (MOORING_API_KEY_FILE): set only one',
    ]);
  });

  it('rejects unknown flags, bad namespaces, bad URLs and levels', () => {
    expect(problems(parse(['--poll', '3']))[0]).toMatch(/Unknown option '--poll'/);
    expect(problems(parse(['--namespaces', 'Team_A']))).toEqual([
      '--namespaces (MOORING_NAMESPACES): each namespace must be a DNS-1123 label (got "Team_A")',
    ]);
    expect(problems(parse(['--control-plane-url', 'ftp://x']))).toEqual([
      '--control-plane-url (MOORING_CONTROL_PLANE_URL): must be an http(s) URL (got "ftp://x")',
    ]);
    expect(problems(parse(['--log-level', 'loud']))[0]).toMatch(
      /^--log-level \(MOORING_LOG_LEVEL\): must be one of/,
    );
  });

  it('reads what deployments may refer to: the agent account, an allow-list, tokens, tenants', () => {
    const none = ok(parse([]));
    expect(none.references).toEqual({
      serviceAccount: undefined,
      podNamespace: undefined,
      deploymentServiceAccounts: undefined,
      allowServiceAccountTokens: false,
      namespaceTenants: {},
    });
    const c = ok(
      parse(['--deployment-service-accounts', 'runner, batch.sa', '--allow-service-account-tokens'], {
        ...BASE_ENV,
        MOORING_SERVICE_ACCOUNT: 'mooring',
        MOORING_POD_NAMESPACE: 'mooring-system',
        MOORING_NAMESPACE_TENANTS: ` team-a=${TENANT_A.toUpperCase()},team-b=${TENANT_B} `,
      }),
    );
    expect(c.references).toEqual({
      serviceAccount: 'mooring',
      podNamespace: 'mooring-system',
      deploymentServiceAccounts: ['runner', 'batch.sa'],
      allowServiceAccountTokens: true,
      namespaceTenants: { 'team-a': TENANT_A, 'team-b': TENANT_B },
    });
  });

  it('reports bad tenant bindings and service account names', () => {
    expect(problems(parse(['--namespace-tenants', 'team-a:x']))).toEqual([
      '--namespace-tenants (MOORING_NAMESPACE_TENANTS): each entry must be namespace=tenant-uuid (got "team-a:x")',
    ]);
    expect(problems(parse(['--namespace-tenants', 'team-a=not-a-uuid']))).toEqual([
      '--namespace-tenants (MOORING_NAMESPACE_TENANTS): each entry must be namespace=tenant-uuid (got "team-a=not-a-uuid")',
    ]);
    expect(problems(parse(['--namespace-tenants', `team-a=${TENANT_A},team-a=${TENANT_B}`]))[0]).toMatch(
      /: namespace "team-a" is bound twice/,
    );
    expect(problems(parse(['--namespace-tenants', `team-z=${TENANT_A}`]))).toEqual([
      '--namespace-tenants (MOORING_NAMESPACE_TENANTS): namespace "team-z" is not one of --namespaces',
    ]);
    expect(problems(parse(['--deployment-service-accounts', 'ok,Not_OK']))).toEqual([
      '--deployment-service-accounts (MOORING_DEPLOYMENT_SERVICE_ACCOUNTS): each name must be a DNS-1123 subdomain (got "ok,Not_OK")',
    ]);
  });

  it('answers --help without validating', () => {
    expect(parse(['--help'], {})).toEqual({ ok: true, help: true });
  });
});

/** Help text with its wrapped flag descriptions joined again, for phrase matches. */
function unwrapped(help: string): string {
  return help.replace(/\n {4,}/g, ' ');
}

describe('configHelp', () => {
  it('no line of any agent command help is over 100 columns', () => {
    for (const command of ['run', 'diff', 'check']) {
      const long = configHelp(command, 'x '.repeat(80))
        .split('\n')
        .filter((l) => l.length > 100);
      expect(long).toEqual([]);
    }
  });

  it('lists every setting with its env twin and default', () => {
    const text = unwrapped(configHelp('run', 'Run the agent.'));
    for (const s of SETTINGS) {
      expect(text).toContain(`--${s.flag}`);
      expect(text).toContain(`env ${s.env}; default: ${s.defaultText}`);
    }
    expect(text).toContain('--poll-interval <seconds>');
    expect(text).toContain('default: 15 (seconds)');
  });
});

describe('docs/operator-guide.md', () => {
  it('documents every setting, its variable and its default', async () => {
    const { readFileSync } = await import('node:fs');
    const guide = readFileSync(new URL('../docs/operator-guide.md', import.meta.url), 'utf8');
    for (const s of SETTINGS) {
      const row = guide.split('\n').find((l) => l.startsWith(`| \`--${s.flag}\` |`));
      expect(row, `row for --${s.flag}`).toBeDefined();
      expect(row).toContain(`\`${s.env}\``);
      if (s.value !== undefined) expect(row).toContain(`| ${s.value} |`);
    }
  });
});

describe('lease settings: --lease-duration and --shards', () => {
  it('default to one shard on a 15 s lease', () => {
    expect(ok(parse([]))).toMatchObject({ shards: 1, leaseDurationMs: 15_000 });
  });

  it('take a shorter lease and several shards with leader election', () => {
    const c = ok(parse(['--leader-election', '--shards', '6', '--lease-duration', '4.5']));
    expect(c).toMatchObject({ shards: 6, leaseDurationMs: 4_500 });
  });

  it('refuse a lease under 3 s', () => {
    expect(problems(parse(['--lease-duration', '2']))).toEqual([
      '--lease-duration (MOORING_LEASE_DURATION): must be at least 3 seconds (got "2")',
    ]);
  });

  it('refuse shards without leader election, with their own code', () => {
    expect(problems(parse([], { ...BASE_ENV, MOORING_SHARDS: '4' }))).toEqual([
      'MOORING_E_SHARDS_INVALID: --shards (MOORING_SHARDS): 4 shards need --leader-election (MOORING_LEADER_ELECTION): without it every replica would write every shard',
    ]);
  });

  it('refuse more than 256 shards, and none', () => {
    expect(problems(parse(['--leader-election', '--shards', '257']))).toEqual([
      'MOORING_E_SHARDS_INVALID: --shards (MOORING_SHARDS): must be at most 256 (got "257")',
    ]);
    expect(problems(parse(['--shards', '0']))[0]).toContain('--shards (MOORING_SHARDS): must be at least 1');
  });
});
