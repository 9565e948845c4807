import { describe, expect, it } from 'vitest';
import { mergeRenderSettings, parseSettingsText, renderDeployment } from '../../src/render/index.ts';
import { deployment, LISTENER_ID } from './fixtures.ts';

type Pod = {
  containers: {
    name: string;
    command?: string[];
    args?: string[];
    resources: { requests: Record<string, string> };
    readinessProbe?: unknown;
    livenessProbe?: unknown;
    startupProbe?: unknown;
  }[];
  nodeSelector?: unknown;
  tolerations?: unknown;
  priorityClassName?: string;
  imagePullSecrets?: { name: string }[];
};

function renderWith(yaml: string, d = deployment({ name: 'shop', spec: { queue_cpu: 1 } })) {
  const parsed = parseSettingsText(yaml);
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  return renderDeployment({ deployment: d, settings: mergeRenderSettings(LISTENER_ID, parsed.settings) })
    .objects;
}

function pod(objects: ReturnType<typeof renderWith>, kind: string, name: string): Pod {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`no ${kind}/${name}`);
  return (o.spec as { template: { spec: Pod } }).template.spec;
}

describe('health probes on the API server', () => {
  it('by default a TCP probe of the app port: readiness, liveness and startup, with the documented timings', () => {
    const api = pod(renderWith(''), 'Deployment', 'shop').containers[0]!;
    expect(api.readinessProbe).toEqual({
      tcpSocket: { port: 'http' },
      initialDelaySeconds: 0,
      periodSeconds: 10,
      timeoutSeconds: 3,
      failureThreshold: 3,
    });
    expect(api.livenessProbe).toMatchObject({ tcpSocket: { port: 'http' }, periodSeconds: 20 });
    expect(api.startupProbe).toMatchObject({
      tcpSocket: { port: 'http' },
      periodSeconds: 5,
      failureThreshold: 60,
    });
    // Workers serve no port: no probe.
    expect(pod(renderWith(''), 'Deployment', 'shop-queue').containers[0]!.readinessProbe).toBeUndefined();
  });

  it('probes.path makes them HTTP GETs; timings are settable; enabled: false renders none', () => {
    const api = pod(
      renderWith('probes: { path: /healthz, readiness: { periodSeconds: 2, failureThreshold: 1 } }'),
      'Deployment',
      'shop',
    ).containers[0]!;
    expect(api.readinessProbe).toEqual({
      httpGet: { path: '/healthz', port: 'http' },
      initialDelaySeconds: 0,
      periodSeconds: 2,
      timeoutSeconds: 3,
      failureThreshold: 1,
    });
    const off = pod(renderWith('probes: { enabled: false }'), 'Deployment', 'shop').containers[0]!;
    expect([off.readinessProbe, off.livenessProbe, off.startupProbe]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('commands and args per component', () => {
  it('renders each component its own command and args; a component not asked for is not rendered', () => {
    const objects = renderWith(
      'commands: { queue: [python, -m, worker], executor: [python] }\nargs: { queue: [--concurrency, "4"], api-server: [--port, "8000"] }',
    );
    expect(pod(objects, 'Deployment', 'shop-queue').containers[0]).toMatchObject({
      command: ['python', '-m', 'worker'],
      args: ['--concurrency', '4'],
    });
    expect(pod(objects, 'Deployment', 'shop').containers[0]!.args).toEqual(['--port', '8000']);
    expect(objects.map((o) => o.metadata.name)).not.toContain('shop-executor');
  });
});

describe('operator-wide pod defaults', () => {
  const settings = `
placement:
  app: { nodeSelector: { pool: apps }, priorityClassName: apps-high }
  datastores:
    nodeSelector: { pool: data }
    tolerations: [{ key: dedicated, operator: Equal, value: data, effect: NoSchedule }]
datastoreImagePullSecrets: [mirror-creds]
resources: { api-server: { cpu: 2 }, redis: { memoryMb: 512 } }
service: { type: LoadBalancer, annotations: { service.beta.kubernetes.io/aws-load-balancer-internal: "true" } }
`;
  it('places app and datastore pods apart, pulls datastore images with the default secrets', () => {
    const objects = renderWith(settings);
    expect(pod(objects, 'Deployment', 'shop')).toMatchObject({
      nodeSelector: { pool: 'apps' },
      priorityClassName: 'apps-high',
    });
    expect(pod(objects, 'Deployment', 'shop').tolerations).toBeUndefined();
    expect(pod(objects, 'Deployment', 'shop').imagePullSecrets).toBeUndefined();
    for (const [kind, name] of [
      ['StatefulSet', 'shop-postgres'],
      ['Deployment', 'shop-redis'],
    ] as const) {
      const p = pod(objects, kind, name);
      expect(p.nodeSelector).toEqual({ pool: 'data' });
      expect(p.tolerations).toHaveLength(1);
      expect(p.imagePullSecrets).toEqual([{ name: 'mirror-creds' }]);
    }
  });

  it('per-component resource defaults; the ResourceSpec still wins', () => {
    const objects = renderWith(settings);
    expect(pod(objects, 'Deployment', 'shop').containers[0]!.resources.requests.cpu).toBe('2');
    expect(pod(objects, 'Deployment', 'shop-redis').containers[0]!.resources.requests.memory).toBe('512Mi');
    const own = renderWith(settings, deployment({ name: 'shop', spec: { cpu: 0.5 } }));
    expect(pod(own, 'Deployment', 'shop').containers[0]!.resources.requests.cpu).toBe('500m');
  });

  it('the API server Service type and annotations', () => {
    const svc = renderWith(settings).find((o) => o.kind === 'Service' && o.metadata.name === 'shop')!;
    expect((svc.spec as { type: string }).type).toBe('LoadBalancer');
    expect(svc.metadata.annotations?.['service.beta.kubernetes.io/aws-load-balancer-internal']).toBe('true');
  });

  it('a misspelt or mistyped member is refused', () => {
    expect(parseSettingsText('placement: { apps: {} }').ok).toBe(false);
    expect(parseSettingsText('service: { type: Ingress }').ok).toBe(false);
    expect(parseSettingsText('probes: { path: healthz }').ok).toBe(false);
  });
});
