import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { chartDir } from '../../scripts/render-deploy.ts';
import { installDryRun, ciValueSets, type KubeObject, lint, only, template } from './helm.ts';
import { serviceMonitorShape, validateObject } from './models.ts';

const chart = parse(readFileSync(path.join(chartDir, 'Chart.yaml'), 'utf8')) as {
  version: string;
  appVersion: string;
};
const sets = ciValueSets();

/** The agent's settings as agreed with the agent (flag/env table): the chart may set only these. */
const AGREED_ENV = new Set([
  'MOORING_CONTROL_PLANE_URL',
  'MOORING_SETTINGS',
  'MOORING_API_KEY_FILE',
  'MOORING_TENANT_ID',
  'MOORING_LISTENER_ID',
  'MOORING_NAMESPACES',
  'MOORING_KUBECONFIG',
  'MOORING_POLL_INTERVAL',
  'MOORING_RESYNC_INTERVAL',
  'MOORING_HEARTBEAT_INTERVAL',
  'MOORING_CONCURRENCY',
  'MOORING_RECONCILE_TIMEOUT',
  'MOORING_KUBE_QPS',
  'MOORING_KUBE_BURST',
  'MOORING_OPS_HOST',
  'MOORING_OPS_PORT',
  'MOORING_LEADER_ELECTION',
  'MOORING_LEASE_NAME',
  'MOORING_LEASE_NAMESPACE',
  'MOORING_SHARDS',
  'MOORING_RESTART_MEMO',
  'MOORING_POD_NAME',
  'MOORING_POD_NAMESPACE',
  'MOORING_POD_IP',
  'MOORING_SHUTDOWN_GRACE_PERIOD',
  'MOORING_DRY_RUN',
  'MOORING_DELETE_VOLUMES',
  'MOORING_RECREATE_STATEFULSETS',
  'MOORING_WATCH',
  'MOORING_REDIS_IMAGE',
  'MOORING_POSTGRES_IMAGE',
  'MOORING_STORAGE_CLASS',
  'MOORING_CLUSTER_DOMAIN',
  'MOORING_POD_SECURITY',
  'MOORING_ALLOW_HOST_PATH',
  'MOORING_ALLOW_PRIVILEGED',
  'MOORING_SERVICE_ACCOUNT',
  'MOORING_DEPLOYMENT_SERVICE_ACCOUNTS',
  'MOORING_ALLOW_SERVICE_ACCOUNT_TOKENS',
  'MOORING_NAMESPACE_TENANTS',
  'MOORING_ALLOWED_VOLUME_TYPES',
  'MOORING_LOG_LEVEL',
  'MOORING_CONTROL_PLANE_CA_FILE',
  'MOORING_CONTROL_PLANE_CLIENT_CERT_FILE',
  'MOORING_CONTROL_PLANE_CLIENT_KEY_FILE',
  // Read as Go's ProxyFromEnvironment reads them (docs/operator-guide.md, "Behind a proxy").
  'HTTPS_PROXY',
  'HTTP_PROXY',
  'NO_PROXY',
]);

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string } };
}

function podSpec(objects: KubeObject[]) {
  // biome-ignore lint/suspicious/noExplicitAny: reading a rendered manifest
  return (only(objects, 'Deployment').spec as any).template.spec;
}

function agentEnv(objects: KubeObject[]): Map<string, EnvVar> {
  const env = podSpec(objects).containers[0].env as EnvVar[];
  return new Map(env.map((e) => [e.name, e]));
}

describe('the chart renders and validates for every value set', () => {
  it('has the value sets of the acceptance list', () => {
    expect([...sets.keys()]).toEqual([
      'default',
      'existing-secret',
      'exposure',
      'leader-election',
      'namespaces',
      'observability',
      'openshift',
      'private-registry',
      'proxy-network-policy',
      'rendering',
      'service-monitor',
    ]);
  });

  describe.each([...sets.entries()])('%s', (_name, file) => {
    let objects: KubeObject[];
    beforeAll(() => {
      objects = template([file]);
    });

    it('passes helm lint --strict', () => {
      const res = lint([file]);
      expect(res.stderr + res.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
      expect(res.status).toBe(0);
    });

    it('renders objects that validate against the Kubernetes schemas', () => {
      // ServiceAccount, Secret, Deployment, Service, a Role and RoleBinding at least.
      expect(objects.length).toBeGreaterThanOrEqual(5);
      for (const object of objects) expect(() => validateObject(object), object.kind).not.toThrow();
    });

    it('never renders a cluster-wide grant', () => {
      const kinds = objects.map((o) => o.kind);
      expect(kinds).not.toContain('ClusterRole');
      expect(kinds).not.toContain('ClusterRoleBinding');
    });

    it('puts the chart labels and a namespace on every object', () => {
      for (const o of objects) {
        expect(o.metadata.namespace, `${o.kind}/${o.metadata.name}`).toMatch(/^[a-z0-9-]+$/);
        // The `helm test` Pod is named apart, so that no selector of the agent's picks it.
        const isTest =
          (o.metadata.annotations as Record<string, string> | undefined)?.['helm.sh/hook'] === 'test';
        expect(o.metadata.labels).toMatchObject({
          'helm.sh/chart': `mooring-${chart.version}`,
          'app.kubernetes.io/name': isTest ? 'mooring-check' : 'mooring',
          'app.kubernetes.io/instance': 'mooring',
          'app.kubernetes.io/version': chart.appVersion,
          'app.kubernetes.io/managed-by': 'Helm',
        });
      }
    });

    it('sets only agreed agent settings, and the API key only as a file', () => {
      const env = agentEnv(objects);
      const extra = new Set(
        ((parse(readFileSync(file, 'utf8')) as { extraEnv?: EnvVar[] }).extraEnv ?? []).map((e) => e.name),
      );
      for (const name of env.keys()) {
        if (!extra.has(name)) expect(AGREED_ENV, name).toContain(name);
      }
      expect(env.has('MOORING_API_KEY')).toBe(false);
      const keyFile = env.get('MOORING_API_KEY_FILE')?.value ?? '';
      const mount = podSpec(objects).containers[0].volumeMounts.find((m: { mountPath: string }) =>
        keyFile.startsWith(`${m.mountPath}/`),
      );
      expect(mount, 'the key file lies in a mounted volume').toMatchObject({
        name: 'api-key',
        readOnly: true,
      });
      expect(env.get('MOORING_POD_NAME')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
      expect(env.get('MOORING_POD_NAMESPACE')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.namespace');
      expect(env.get('MOORING_SERVICE_ACCOUNT')?.valueFrom?.fieldRef?.fieldPath).toBe(
        'spec.serviceAccountName',
      );
      // The ops port binds to the pod's IP (probes and Prometheus reach it there), not 0.0.0.0.
      expect(env.get('MOORING_POD_IP')?.valueFrom?.fieldRef?.fieldPath).toBe('status.podIP');
      expect(env.has('MOORING_OPS_HOST')).toBe(false);
    });

    it('prints NOTES naming the listener, the namespaces and the key Secret, never the key', () => {
      const res = installDryRun([file]);
      expect(res.status, res.stderr).toBe(0);
      const notes = res.stdout.slice(res.stdout.indexOf('NOTES:'));
      const env = agentEnv(objects);
      expect(notes).toContain(`Listener:      ${env.get('MOORING_LISTENER_ID')?.value}`);
      expect(notes).toContain(
        `Writes to:     ${env.get('MOORING_NAMESPACES')?.value?.split(',').join(', ')}`,
      );
      const volume = podSpec(objects).volumes.find((v: { name: string }) => v.name === 'api-key');
      expect(notes).toContain(`Secret ${volume.secret.secretName}, key ${volume.secret.items[0].key}`);
      expect(res.stdout).not.toContain('example-api-key-not-a-real-one');
    });

    it('exposes metrics on a Service port named http-metrics that selects the agent pods', () => {
      const service = only(objects, 'Service') as KubeObject & {
        spec: {
          selector: Record<string, string>;
          ports: Array<{ name: string; port: number; targetPort: string }>;
        };
      };
      expect(service.spec.ports).toEqual([
        { name: 'http-metrics', port: 8080, targetPort: 'http-metrics', protocol: 'TCP' },
      ]);
      const podLabels = (only(objects, 'Deployment').spec as { template: { metadata: { labels: object } } })
        .template.metadata.labels;
      expect(podLabels).toMatchObject(service.spec.selector);
      const probes = podSpec(objects).containers[0];
      expect(probes.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http-metrics' });
      expect(probes.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http-metrics' });
    });
  });
});

describe('what each value set changes', () => {
  it('default: one replica of the appVersion image, the documented resources, no Secret of ours', () => {
    const objects = template([sets.get('default')!]);
    expect((only(objects, 'Deployment').spec as { replicas: number }).replicas).toBe(1);
    const container = podSpec(objects).containers[0];
    expect(container.image).toBe(`ghcr.io/mooring-dev/mooring:${chart.appVersion}`);
    expect(container.resources).toEqual({
      requests: { cpu: '50m', memory: '64Mi' },
      limits: { cpu: '500m', memory: '256Mi' },
    });
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    const env = agentEnv(objects);
    expect(env.get('MOORING_NAMESPACES')?.value).toBe('mooring-apps');
    expect(env.get('MOORING_LEADER_ELECTION')?.value).toBe('false');
    expect(env.get('MOORING_POLL_INTERVAL')?.value).toBe('15');
    expect(env.has('MOORING_RESYNC_INTERVAL')).toBe(false); // every poll is a resync
    const resync = agentEnv(template([sets.get('default')!, { resyncIntervalSeconds: 300 }]));
    expect(resync.get('MOORING_RESYNC_INTERVAL')?.value).toBe('300');
    expect(objects.map((o) => o.kind)).not.toContain('PodDisruptionBudget');
    expect(objects.map((o) => o.kind)).not.toContain('ServiceMonitor');
  });

  it('namespaces: a Role and RoleBinding per namespace, the key in a chart Secret', () => {
    const objects = template([sets.get('namespaces')!]);
    const watched = ['team-a', 'team-b', 'team-c'];
    for (const ns of watched) {
      expect(objects.filter((o) => o.metadata.namespace === ns).map((o) => o.kind)).toEqual([
        'Role',
        'RoleBinding',
      ]);
    }
    expect(agentEnv(objects).get('MOORING_NAMESPACES')?.value).toBe(watched.join(','));
    expect(agentEnv(objects).get('MOORING_TENANT_ID')?.value).toBe('3f2b6c1e-8d4a-4f7e-9b2c-5a6d7e8f9a0b');
    const secret = only(objects, 'Secret') as KubeObject & { data: Record<string, string> };
    expect(Buffer.from(secret.data['api-key'] ?? '', 'base64').toString()).toBe(
      'example-api-key-not-a-real-one',
    );
    const volume = podSpec(objects).volumes.find((v: { name: string }) => v.name === 'api-key');
    expect(volume.secret).toMatchObject({
      secretName: secret.metadata.name,
      items: [{ key: 'api-key', path: 'api-key' }],
    });
  });

  it('existing-secret: mounts the named Secret and key, renders no Secret', () => {
    const objects = template([sets.get('existing-secret')!]);
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    const volume = podSpec(objects).volumes.find((v: { name: string }) => v.name === 'api-key');
    expect(volume.secret).toMatchObject({
      secretName: 'control-plane-credentials',
      items: [{ key: 'MOORING_KEY', path: 'api-key' }],
    });
    expect(only(objects, 'ServiceAccount').metadata.annotations).toEqual({
      'example.com/owner': 'platform-team',
    });
  });

  it('leader-election: two replicas, the Lease settings, a PDB', () => {
    const objects = template([sets.get('leader-election')!]);
    expect((only(objects, 'Deployment').spec as { replicas: number }).replicas).toBe(2);
    const env = agentEnv(objects);
    expect(env.get('MOORING_LEADER_ELECTION')?.value).toBe('true');
    expect(env.get('MOORING_LEASE_NAME')?.value).toBe('mooring-prod-leader');
    expect(env.get('MOORING_LEASE_NAMESPACE')?.value).toBe('mooring');
    expect(only(objects, 'PodDisruptionBudget').spec).toMatchObject({ maxUnavailable: 1 });
  });

  it('sharding: sharding.shards passed as --shards, and refused without leader election', () => {
    const sharded = { leaderElection: { enabled: true, replicas: 3 }, sharding: { shards: 6 } };
    const objects = template([sets.get('leader-election')!, sharded]);
    expect((only(objects, 'Deployment').spec as { replicas: number }).replicas).toBe(3);
    expect(agentEnv(objects).get('MOORING_SHARDS')?.value).toBe('6');
    expect(() => template([sets.get('default')!, { sharding: { shards: 2 } }])).toThrow(
      /sharding.shards is 2: more than one shard needs leaderElection.enabled/,
    );
    expect(() => template([sets.get('leader-election')!, { sharding: { shards: 257 } }])).toThrow();
  });

  it('service-monitor: a ServiceMonitor scraping the metrics Service port', () => {
    const objects = template([sets.get('service-monitor')!]);
    const monitor = serviceMonitorShape.parse(only(objects, 'ServiceMonitor'));
    const service = only(objects, 'Service') as KubeObject & { spec: { ports: Array<{ name: string }> } };
    expect(service.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
    expect(monitor.spec.namespaceSelector.matchNames).toEqual([service.metadata.namespace]);
    expect(service.spec.ports.map((p) => p.name)).toContain(monitor.spec.endpoints[0]?.port);
    expect(monitor.metadata.labels).toMatchObject({ release: 'kube-prometheus-stack' });
    expect(monitor.spec.endpoints[0]).toMatchObject({ path: '/metrics', interval: '15s' });
  });

  it('private-registry: the mirrored image by digest, a pull secret, placement', () => {
    const objects = template([sets.get('private-registry')!]);
    const spec = podSpec(objects);
    expect(spec.containers[0].image).toBe(
      'registry.internal.example.com:5000/platform/mooring@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
    );
    expect(spec.containers[0].imagePullPolicy).toBe('Always');
    expect(spec.imagePullSecrets).toEqual([{ name: 'internal-registry' }]);
    expect(spec.nodeSelector).toMatchObject({ 'kubernetes.io/os': 'linux' });
    expect(spec.tolerations).toHaveLength(1);
    expect(agentEnv(objects).get('HTTPS_PROXY')?.value).toBe('http://proxy.internal.example.com:3128');
  });

  it('a tag without a digest is used as given', () => {
    const objects = template([
      sets.get('default')!,
      { image: { registry: 'mirror.example.com', tag: '9.9.9' } },
    ]);
    expect(podSpec(objects).containers[0].image).toBe('mirror.example.com/mooring-dev/mooring:9.9.9');
  });
});
