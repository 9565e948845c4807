/**
 * The chart's proxy, control-plane CA and NetworkPolicy values, rendered by the real helm: what
 * reaches the agent's environment and volumes, the policy's rules, and the cross-field refusals.
 */
import { describe, expect, it } from 'vitest';
import { type KubeObject, only, template, templateRaw } from './helm.ts';
import { validateObject } from './models.ts';

const BASE = {
  controlPlane: { url: 'https://control-plane.corp.example' },
  listenerId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  namespaces: ['apps'],
  apiKey: 'chart-test-key',
};

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}

// biome-ignore lint/suspicious/noExplicitAny: reading a rendered manifest
function container(objects: KubeObject[]): any {
  // biome-ignore lint/suspicious/noExplicitAny: reading a rendered manifest
  return (only(objects, 'Deployment').spec as any).template.spec.containers[0];
}

function env(objects: KubeObject[]): Map<string, EnvVar> {
  return new Map((container(objects).env as EnvVar[]).map((e) => [e.name, e]));
}

// biome-ignore lint/suspicious/noExplicitAny: reading a rendered manifest
function policy(objects: KubeObject[]): any {
  const np = only(objects, 'NetworkPolicy');
  validateObject(np);
  return np.spec;
}

/** The TCP ports of each egress rule, in order. */
// biome-ignore lint/suspicious/noExplicitAny: reading a rendered manifest
const egressPorts = (spec: any): number[][] => spec.egress.map((r: any) => r.ports.map((p: any) => p.port));

describe('chart proxy values', () => {
  it('set HTTPS_PROXY, HTTP_PROXY and NO_PROXY, and nothing by default', () => {
    expect([...env(template([BASE])).keys()].filter((k) => k.endsWith('_PROXY'))).toEqual([]);
    const e = env(
      template([
        {
          ...BASE,
          proxy: { https: 'http://proxy.corp:3128', http: 'proxy.corp:3128', noProxy: '.svc,10.0.0.0/8' },
        },
      ]),
    );
    expect(e.get('HTTPS_PROXY')?.value).toBe('http://proxy.corp:3128');
    expect(e.get('HTTP_PROXY')?.value).toBe('proxy.corp:3128');
    expect(e.get('NO_PROXY')?.value).toBe('.svc,10.0.0.0/8');
  });

  it('take a proxy URL with credentials from a Secret only', () => {
    const e = env(template([{ ...BASE, proxy: { existingSecret: 'corp-proxy' } }]));
    expect(e.get('HTTPS_PROXY')).toEqual({
      name: 'HTTPS_PROXY',
      valueFrom: { secretKeyRef: { name: 'corp-proxy', key: 'https-proxy' } },
    });
    const both = templateRaw([{ ...BASE, proxy: { existingSecret: 'corp-proxy', https: 'http://p:1' } }]);
    expect(both.status).not.toBe(0);
    expect(both.stderr).toContain('mooring: set only one of proxy.https and proxy.existingSecret');
  });

  it('refuse proxy variables in extraEnv beside proxy values', () => {
    const res = templateRaw([
      { ...BASE, proxy: { noProxy: '.svc' }, extraEnv: [{ name: 'https_proxy', value: 'http://p:1' }] },
    ]);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('mooring: extraEnv sets https_proxy while proxy values are set');
  });
});

describe('chart control-plane CA and client certificate', () => {
  it('mount the CA from a ConfigMap or a Secret where --control-plane-ca-file points', () => {
    for (const ca of [{ configMap: 'corp-ca' }, { secret: 'corp-ca', key: 'root.pem' }]) {
      const objects = template([{ ...BASE, controlPlane: { ...BASE.controlPlane, ca } }]);
      const c = container(objects);
      const file = env(objects).get('MOORING_CONTROL_PLANE_CA_FILE')?.value ?? '';
      const mount = c.volumeMounts.find((m: { mountPath: string }) => file.startsWith(`${m.mountPath}/`));
      expect(mount, file).toMatchObject({ name: 'control-plane-ca', readOnly: true });
      // biome-ignore lint/suspicious/noExplicitAny: reading a rendered manifest
      const volume = (only(objects, 'Deployment').spec as any).template.spec.volumes.find(
        (v: { name: string }) => v.name === 'control-plane-ca',
      );
      const source = ca.configMap ? volume.configMap : volume.secret;
      expect(source.items).toEqual([{ key: ca.key ?? 'ca.crt', path: file.split('/').at(-1) }]);
    }
    const res = templateRaw([
      { ...BASE, controlPlane: { ...BASE.controlPlane, ca: { configMap: 'a', secret: 'b' } } },
    ]);
    expect(res.stderr).toContain(
      'mooring: set only one of controlPlane.ca.configMap and controlPlane.ca.secret',
    );
  });

  it('mount a client certificate Secret for mutual TLS', () => {
    const objects = template([
      { ...BASE, controlPlane: { ...BASE.controlPlane, clientCertificate: { secret: 'cp-client' } } },
    ]);
    const e = env(objects);
    expect(e.get('MOORING_CONTROL_PLANE_CLIENT_CERT_FILE')?.value).toBe(
      '/etc/mooring/control-plane-client/tls.crt',
    );
    expect(e.get('MOORING_CONTROL_PLANE_CLIENT_KEY_FILE')?.value).toBe(
      '/etc/mooring/control-plane-client/tls.key',
    );
    expect(container(objects).volumeMounts).toContainEqual({
      name: 'control-plane-client',
      mountPath: '/etc/mooring/control-plane-client',
      readOnly: true,
    });
  });
});

describe('chart NetworkPolicy for the agent', () => {
  it('is not rendered by default', () => {
    expect(template([BASE]).filter((o) => o.kind === 'NetworkPolicy')).toEqual([]);
  });

  it('denies all ingress and allows DNS, the API server and the control plane port', () => {
    const spec = policy(template([{ ...BASE, networkPolicy: { enabled: true } }]));
    expect(spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(spec.ingress).toEqual([]);
    expect(egressPorts(spec)).toEqual([[53, 53], [443, 6443], [443]]);
    // The agent's pods and the helm test Pod, which must go out the way the agent does.
    expect(spec.podSelector).toEqual({
      matchLabels: { 'app.kubernetes.io/instance': 'mooring' },
      matchExpressions: [
        { key: 'app.kubernetes.io/name', operator: 'In', values: ['mooring', 'mooring-check'] },
      ],
    });
  });

  it("opens the proxy's port rather than the control plane's when a proxy is set", () => {
    const spec = policy(
      template([{ ...BASE, proxy: { https: 'http://proxy.corp:3128' }, networkPolicy: { enabled: true } }]),
    );
    expect(egressPorts(spec)[2]).toEqual([3128]);
    const plain = policy(
      template([
        {
          ...BASE,
          controlPlane: { url: 'http://cp.corp:8000' },
          proxy: { https: 'http://ignored:1' },
          networkPolicy: { enabled: true },
        },
      ]),
    );
    expect(egressPorts(plain)[2]).toEqual([8000]);
  });

  it('lets the ops port in from the peers given, and asks for the port of a proxy held in a Secret', () => {
    const from = [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }];
    const spec = policy(template([{ ...BASE, networkPolicy: { enabled: true, ingressFrom: from } }]));
    expect(spec.ingress).toEqual([{ from, ports: [{ port: 'http-metrics', protocol: 'TCP' }] }]);
    const res = templateRaw([{ ...BASE, proxy: { existingSecret: 'p' }, networkPolicy: { enabled: true } }]);
    expect(res.stderr).toContain('networkPolicy.controlPlane.ports must name the proxy');
  });
});
