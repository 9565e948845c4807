import { describe, expect, it } from 'vitest';
import { type KubeObject, renderDeployment, RenderSettingsFile } from '../../src/render/index.ts';
import { mergeRenderSettings } from '../../src/render/settings.ts';
import type { ExposureSettings } from '../../src/render/exposure-settings.ts';
import { deployment, LISTENER_ID, settings } from './fixtures.ts';
import { errorOf } from './helpers.ts';
import { validateObject } from './models.ts';

const INGRESS: ExposureSettings = { kind: 'ingress', ingressClassName: 'nginx' };
const ROUTE: ExposureSettings = { kind: 'httproute', gateway: { name: 'public', namespace: 'gateways' } };

function render(custom_url: string | null | undefined, exposure: ExposureSettings = INGRESS) {
  return renderDeployment({ deployment: deployment({ custom_url }), settings: settings({ exposure }) });
}

// biome-ignore lint/suspicious/noExplicitAny: the tests read nested fields of rendered objects.
type Loose = Record<string, any>;

function find(objects: KubeObject[], kind: string, name = 'shop-api'): Loose | undefined {
  return objects.find((o) => o.kind === kind && o.metadata.name === name) as Loose | undefined;
}

describe('exposure at custom_url', () => {
  it('an Ingress routes the URL host and path prefix to the API server Service', () => {
    const { objects } = render('https://shop.example.com/api/v1/');
    const ingress = find(objects, 'Ingress');
    expect(ingress?.spec.rules).toEqual([
      {
        host: 'shop.example.com',
        http: {
          paths: [
            {
              backend: { service: { name: 'shop-api', port: { number: 8000 } } },
              path: '/api/v1',
              pathType: 'Prefix',
            },
          ],
        },
      },
    ]);
    expect(find(objects, 'Service')?.spec.ports[0].port).toBe(8000);
  });

  it('the path prefix defaults to /', () => {
    expect(find(render('http://shop.example.com').objects, 'Ingress')?.spec.rules[0].http.paths[0].path).toBe(
      '/',
    );
  });

  it('an HTTPRoute attaches to the gateway and routes to the API server Service', () => {
    const route = find(render('https://shop.example.com/x', ROUTE).objects, 'HTTPRoute');
    expect(route?.spec.hostnames).toEqual(['shop.example.com']);
    expect(route?.spec.parentRefs).toEqual([
      { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'public', namespace: 'gateways' },
    ]);
    expect(route?.spec.rules[0].backendRefs[0]).toMatchObject({
      kind: 'Service',
      name: 'shop-api',
      port: 8000,
    });
    expect(route?.spec.rules[0].matches).toEqual([{ path: { type: 'PathPrefix', value: '/x' } }]);
  });

  it('tls.secretName names the Secret; tls.clusterIssuer adds the cert-manager annotation', () => {
    const withSecret = find(
      render('https://shop.example.com', { ...INGRESS, tls: { secretName: 'wildcard' } }).objects,
      'Ingress',
    );
    expect(withSecret?.spec.tls).toEqual([{ hosts: ['shop.example.com'], secretName: 'wildcard' }]);
    expect(withSecret?.metadata.annotations?.['cert-manager.io/cluster-issuer']).toBeUndefined();
    const issued = find(
      render('https://shop.example.com', { ...INGRESS, tls: { clusterIssuer: 'le' } }).objects,
      'Ingress',
    );
    expect(issued?.metadata.annotations?.['cert-manager.io/cluster-issuer']).toBe('le');
    expect(issued?.spec.tls).toEqual([{ hosts: ['shop.example.com'], secretName: 'shop-api-tls' }]);
  });

  it('no custom_url, or exposure none: no exposure object and no API server NetworkPolicy', () => {
    for (const url of [undefined, null, '']) {
      const { objects } = render(url);
      expect(objects.filter((o) => ['Ingress', 'HTTPRoute'].includes(o.kind))).toEqual([]);
      expect(find(objects, 'NetworkPolicy')).toBeUndefined();
    }
    // exposure none reads no custom_url at all: not even a malformed one is refused.
    const none = render('not a url', { kind: 'none' }).objects;
    expect(none.map((o) => o.kind)).not.toContain('Ingress');
  });

  it('the API server NetworkPolicy admits the controller namespace (documented default) and its own pods', () => {
    const ingressPolicy = find(render('https://shop.example.com').objects, 'NetworkPolicy');
    expect(ingressPolicy?.spec.podSelector.matchLabels['app.kubernetes.io/component']).toBe('api-server');
    expect(ingressPolicy?.spec.ingress[0].from).toEqual([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } },
      { podSelector: { matchLabels: { 'mooring.dev/deployment-id': deployment({}).id } } },
    ]);
    expect(ingressPolicy?.spec.ingress[0].ports).toEqual([{ port: 8000, protocol: 'TCP' }]);
    const routePolicy = find(render('https://shop.example.com', ROUTE).objects, 'NetworkPolicy');
    expect(routePolicy?.spec.ingress[0].from[0]).toEqual({
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'gateways' } },
    });
    const from = { matchExpressions: [{ key: 'ingress', operator: 'Exists' as const }] };
    const custom = find(render('https://shop.example.com', { ...INGRESS, from }).objects, 'NetworkPolicy');
    expect(custom?.spec.ingress[0].from[0]).toEqual({ namespaceSelector: from });
    for (const o of [ingressPolicy, routePolicy, custom]) validateObject(o as KubeObject);
  });

  it.each([
    ['not a URL', 'shop.example.com/api', 'is not an absolute URL'],
    ['a relative path', '/api', 'is not an absolute URL'],
    ['another scheme', 'ftp://shop.example.com/', 'is not an http or https URL'],
    ['javascript', 'javascript:alert(1)', 'is not an http or https URL'],
    ['an IP host', 'http://10.0.0.1/', 'not a DNS name'],
    ['a port', 'https://shop.example.com:8443/', 'has a port'],
    ['credentials', 'https://admin:hunter2-secret@shop.example.com/', 'has credentials'],
    ['a query', 'https://shop.example.com/?a=1', 'has a query or fragment'],
    ['a doubled slash', 'https://shop.example.com//x', 'not a plain prefix'],
    // ingress-nginx writes the path into its configuration: only characters it accepts as a plain path.
    ['a semicolon in the path', 'https://shop.example.com/x;proxy_pass', 'not a plain prefix'],
    ['a brace in the path', 'https://shop.example.com/x{y}', 'not a plain prefix'],
    ['an encoded character in the path', 'https://shop.example.com/caf%C3%A9', 'not a plain prefix'],
  ])('custom_url with %s is refused with a coded error naming the field', (_, url, why) => {
    const err = errorOf(() => render(url));
    expect(err.code).toBe('MOORING_E_RENDER_INVALID');
    expect(err.field).toBe('source_config.custom_url');
    expect(err.message).toContain(why);
    // The URL itself is not echoed: it may carry credentials.
    expect(err.message).not.toContain('hunter2');
  });

  it('every exposure object validates against the official schemas', () => {
    for (const exposure of [
      INGRESS,
      ROUTE,
      { ...INGRESS, tls: { clusterIssuer: 'le' } } as ExposureSettings,
    ]) {
      for (const o of render('https://a.b.example.com/deep/path', exposure).objects) validateObject(o);
    }
  });
});

describe('exposure settings', () => {
  const parse = (exposure: unknown) => RenderSettingsFile.safeParse({ exposure });

  it('defaults to none', () => {
    expect(mergeRenderSettings(LISTENER_ID, {}).exposure).toEqual({ kind: 'none' });
  });

  it('accepts each kind', () => {
    expect(parse({ kind: 'none' }).success).toBe(true);
    expect(parse({ kind: 'ingress', ingressClassName: 'nginx', tls: { secretName: 's' } }).success).toBe(
      true,
    );
    expect(
      parse({ kind: 'httproute', gateway: { name: 'g', namespace: 'n', sectionName: 'https' } }).success,
    ).toBe(true);
  });

  it.each([
    ['an unknown kind', { kind: 'loadbalancer' }],
    ['a misspelt member', { kind: 'ingress', ingressClass: 'nginx' }],
    ['httproute without a gateway', { kind: 'httproute' }],
    ['tls with both forms', { kind: 'ingress', tls: { secretName: 's', clusterIssuer: 'i' } }],
    ['an empty from (every namespace)', { kind: 'ingress', from: {} }],
    [
      'a gateway namespace that is no DNS label',
      { kind: 'httproute', gateway: { name: 'g', namespace: 'N_' } },
    ],
  ])('refuses %s', (_, exposure) => {
    expect(parse(exposure).success).toBe(false);
  });

  it('the merged settings share nothing with the file', () => {
    const file = RenderSettingsFile.parse({ exposure: { kind: 'ingress', annotations: { a: 'b' } } });
    const merged = mergeRenderSettings(LISTENER_ID, file);
    (file.exposure as { annotations: Record<string, string> }).annotations.a = 'changed';
    expect(merged.exposure).toEqual({ kind: 'ingress', annotations: { a: 'b' } });
  });
});

describe('exposure.allowedHosts', () => {
  const limited = (allowedHosts: string[]): ExposureSettings => ({ ...INGRESS, allowedHosts });

  it('lets a custom_url use a listed host or a subdomain of a *. entry', () => {
    const hosts = ['shop.example.com', '*.apps.example.com'];
    for (const url of [
      'https://shop.example.com/',
      'https://a.apps.example.com',
      'https://x.y.apps.example.com/p',
    ]) {
      expect(find(render(url, limited(hosts)).objects, 'Ingress'), url).toBeDefined();
    }
  });

  it.each([
    ['another host', 'https://login.example.com/'],
    ['the bare suffix of a *. entry', 'https://apps.example.com/'],
    ['a look-alike suffix', 'https://evilapps.example.com/'],
  ])('refuses %s with a policy error naming custom_url', (_, url) => {
    const err = errorOf(() => render(url, limited(['shop.example.com', '*.apps.example.com'])));
    expect(err.code).toBe('MOORING_E_RENDER_POLICY');
    expect(err.field).toBe('source_config.custom_url');
    expect(err.message).toContain('exposure.allowedHosts');
  });

  it('is checked for httproute too, and absent allows any host', () => {
    const route: ExposureSettings = { ...ROUTE, allowedHosts: ['*.example.org'] };
    expect(errorOf(() => render('https://shop.example.com', route)).code).toBe('MOORING_E_RENDER_POLICY');
    expect(find(render('https://login.example.com').objects, 'Ingress')).toBeDefined();
  });

  it('the settings file takes exact hosts and *. wildcards, nothing else', () => {
    const parse = (allowedHosts: unknown) =>
      RenderSettingsFile.safeParse({ exposure: { kind: 'ingress', allowedHosts } }).success;
    expect(parse(['shop.example.com', '*.apps.example.com'])).toBe(true);
    for (const bad of [['*'], ['*.'], ['a.*.example.com'], ['Shop.example.com'], 'shop.example.com']) {
      expect(parse(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});
