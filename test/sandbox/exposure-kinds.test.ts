/**
 * The exposure kinds in the sandbox, through real kubectl: Ingress (built in) and the Gateway API
 * HTTPRoute (a CRD, served only when installed), with get's server-side columns and describe.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTPROUTE_CRD } from '../../src/sandbox/resources.ts';
import { manifest, type Sandbox, startSandbox } from './helpers.ts';

const INGRESS = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: shop, namespace: apps}
spec:
  ingressClassName: nginx
  rules:
  - host: shop.example.com
    http:
      paths:
      - {path: /store, pathType: Prefix, backend: {service: {name: shop, port: {number: 8000}}}}
  tls:
  - {hosts: [shop.example.com], secretName: shop-tls}
`;

const ROUTE = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: apps}
spec:
  hostnames: [shop.example.com]
  parentRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: public, namespace: gateways}]
  rules:
  - backendRefs: [{group: '', kind: Service, name: shop, port: 8000, weight: 1}]
    matches: [{path: {type: PathPrefix, value: /}}]
`;

describe('sandbox exposure kinds (Gateway API installed)', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['apps'], crds: [HTTPROUTE_CRD] });
  });
  afterAll(async () => {
    await sb.close();
  });

  it('kubectl get ingress prints CLASS HOSTS ADDRESS PORTS AGE; describe shows the backend', async () => {
    const applied = await sb.kubectl(['apply', '--server-side', '-f', manifest(sb, 'ing.yaml', INGRESS)]);
    expect(applied.stderr).toBe('');
    const get = await sb.kubectl(['get', 'ingress', '-A']);
    expect(get.code).toBe(0);
    expect(get.stdout).toMatch(/^NAMESPACE\s+NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE/);
    expect(get.stdout).toMatch(/apps\s+shop\s+nginx\s+shop\.example\.com\s+80, 443\s+\d+s/);
    const described = await sb.kubectl(['describe', 'ingress', 'shop', '-n', 'apps']);
    expect(described.stderr).toBe('');
    expect(described.stdout).toMatch(/Ingress Class:\s+nginx/);
    expect(described.stdout).toMatch(/shop\.example\.com\s*\n\s+\/store\s+shop:8000/);
  });

  it('kubectl get httproutes prints HOSTNAMES AGE; describe prints the spec', async () => {
    const applied = await sb.kubectl(['apply', '--server-side', '-f', manifest(sb, 'route.yaml', ROUTE)]);
    expect(applied.stderr).toBe('');
    const get = await sb.kubectl(['get', 'httproutes', '-A']);
    expect(get.code).toBe(0);
    expect(get.stdout).toMatch(/^NAMESPACE\s+NAME\s+HOSTNAMES\s+AGE/);
    expect(get.stdout).toMatch(/apps\s+shop\s+\["shop\.example\.com"\]\s+\d+s/);
    const described = await sb.kubectl(['describe', 'httproute', 'shop', '-n', 'apps']);
    expect(described.stderr).toBe('');
    expect(described.stdout).toMatch(/Kind:\s+HTTPRoute/);
    expect(described.stdout).toMatch(/Hostnames:\s*\n\s+shop\.example\.com/);
  });
});

describe('sandbox without the Gateway API CRDs', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ namespaces: ['apps'] });
  });
  afterAll(async () => {
    await sb.close();
  });

  it('HTTPRoute is neither discoverable nor served; Ingress is', async () => {
    const resources = await sb.kubectl(['api-resources', '--no-headers', '-o', 'name']);
    const names = resources.stdout.split('\n');
    expect(names).toContain('ingresses.networking.k8s.io');
    expect(names).not.toContain('httproutes.gateway.networking.k8s.io');
    expect((await sb.call('GET', '/apis/gateway.networking.k8s.io/v1')).status).toBe(404);
    expect(
      (await sb.call('GET', '/apis/gateway.networking.k8s.io/v1/namespaces/apps/httproutes')).status,
    ).toBe(404);
    const get = await sb.kubectl(['get', 'httproutes', '-A']);
    expect(get.code).not.toBe(0);
    expect(get.stderr).toContain(`the server doesn't have a resource type "httproutes"`);
  });
});
