import { LABELS } from '../labels.ts';
import { APP_PORT } from './defaults.ts';
import { RenderError } from './errors.ts';
import {
  exposureFrom,
  hostAllowed,
  type HttpRouteExposure,
  type IngressExposure,
} from './exposure-settings.ts';
import { isDnsSubdomain } from '../objects/dns-names.ts';
import { selectorLabels, sortKeys } from './labels.ts';
import { type RenderedObject, meta, type RenderContext } from './types.ts';

/** Where a deployment's URL is read from (`details.field` of its refusals). */
export const CUSTOM_URL_FIELD = 'source_config.custom_url';

/** The cert-manager annotation that has its ingress-shim issue the Ingress's TLS Secret. */
export const CLUSTER_ISSUER_ANNOTATION = 'cert-manager.io/cluster-issuer';

/** A path prefix a controller takes literally: no encoded, reserved or configuration characters. */
const PLAIN_PATH = /^\/[A-Za-z0-9._~/-]*$/;

/** Host and path prefix of a deployment's `custom_url`. */
export interface ExposedUrl {
  host: string;
  /** Starts with `/`; no trailing slash except the root. */
  path: string;
}

/**
 * Reads `custom_url`: an absolute http(s) URL whose host is a DNS name (an Ingress host or a route
 * hostname cannot be an IP address or carry a port), with no credentials, query or fragment, and a
 * path of plain characters.
 * Throws a RenderError naming the field; messages quote only the URL's host, never the whole value.
 */
export function parseCustomUrl(raw: string): ExposedUrl {
  const refuse = (why: string) =>
    new RenderError('MOORING_E_RENDER_INVALID', CUSTOM_URL_FIELD, `${CUSTOM_URL_FIELD} ${why}`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('is not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('is not an http or https URL');
  const host = url.hostname;
  if (!isDnsSubdomain(host) || /^[0-9.]+$/.test(host))
    throw refuse(`has host "${host.slice(0, 253)}", which is not a DNS name`);
  if (url.port !== '') throw refuse('has a port: the ingress controller or gateway decides the port');
  if (url.username !== '' || url.password !== '') throw refuse('has credentials in it');
  if (url.search !== '' || url.hash !== '') throw refuse('has a query or fragment');
  let path = url.pathname;
  // Only what ingress-nginx's strict path validation accepts: the path reaches controller configuration.
  if (!PLAIN_PATH.test(path) || path.includes('//'))
    throw refuse('has a path that is not a plain prefix (letters, digits, / . _ ~ - only)');
  if (path.length > 1) path = path.replace(/\/+$/, '');
  return { host, path: path || '/' };
}

/**
 * The objects that expose a deployment at its `custom_url`: one Ingress or HTTPRoute named after
 * the API server, routing the URL's host and path prefix to the API server Service, and the
 * NetworkPolicy that admits the controller's or gateway's namespaces to the API server pods. None
 * when exposure is off or the deployment has no `custom_url`.
 */
export function renderExposure(ctx: RenderContext): RenderedObject[] {
  const exposure = ctx.settings.exposure;
  const raw = ctx.deployment.source_config?.custom_url;
  if (exposure.kind === 'none' || raw === undefined || raw === null || raw === '') return [];
  const url = parseCustomUrl(raw);
  // A record names its own URL: on a shared controller it could claim any host, so the operator may list them.
  if (!hostAllowed(url.host, exposure.allowedHosts)) {
    throw new RenderError(
      'MOORING_E_RENDER_POLICY',
      CUSTOM_URL_FIELD,
      `${CUSTOM_URL_FIELD} has host "${url.host}", which exposure.allowedHosts does not list`,
    );
  }
  const route = exposure.kind === 'ingress' ? ingress(ctx, exposure, url) : httpRoute(ctx, exposure, url);
  return [route, apiServerPolicy(ctx, exposure)];
}

function ingress(ctx: RenderContext, exposure: IngressExposure, url: ExposedUrl): RenderedObject {
  const annotations: Record<string, string> = { ...exposure.annotations };
  const tls = exposure.tls;
  if (tls && 'clusterIssuer' in tls) annotations[CLUSTER_ISSUER_ANNOTATION] = tls.clusterIssuer;
  const secretName = tls && ('secretName' in tls ? tls.secretName : `${ctx.names.apiServer}-tls`);
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: meta(ctx, ctx.names.apiServer, 'exposure', annotations),
    spec: {
      ...(exposure.ingressClassName ? { ingressClassName: exposure.ingressClassName } : {}),
      rules: [
        {
          host: url.host,
          http: {
            paths: [
              {
                backend: { service: { name: ctx.names.apiServer, port: { number: APP_PORT } } },
                path: url.path,
                pathType: 'Prefix',
              },
            ],
          },
        },
      ],
      ...(secretName ? { tls: [{ hosts: [url.host], secretName }] } : {}),
    },
  };
}

function httpRoute(ctx: RenderContext, exposure: HttpRouteExposure, url: ExposedUrl): RenderedObject {
  const { name, namespace, sectionName } = exposure.gateway;
  // Every field the Gateway API CRD would default is written out, so the live object equals ours.
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: meta(ctx, ctx.names.apiServer, 'exposure'),
    spec: {
      hostnames: [url.host],
      parentRefs: [
        {
          group: 'gateway.networking.k8s.io',
          kind: 'Gateway',
          name,
          namespace,
          ...(sectionName ? { sectionName } : {}),
        },
      ],
      rules: [
        {
          backendRefs: [{ group: '', kind: 'Service', name: ctx.names.apiServer, port: APP_PORT, weight: 1 }],
          matches: [{ path: { type: 'PathPrefix', value: url.path } }],
        },
      ],
    },
  };
}

/**
 * NetworkPolicy `b` (`exposure.from`): the API server pods accept the app port from the ingress
 * controller's or gateway's namespaces and from this deployment's own pods (its workers), nothing
 * else. Without it, a namespace that denies ingress by default would drop the routed traffic.
 */
function apiServerPolicy(ctx: RenderContext, exposure: IngressExposure | HttpRouteExposure): RenderedObject {
  const deploymentId = { [LABELS.deploymentId]: ctx.labels.deploymentId };
  const namespaceSelector = sortKeys({ ...exposureFrom(exposure) });
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: meta(ctx, ctx.names.apiServer, 'network'),
    spec: {
      ingress: [
        {
          from: [{ namespaceSelector }, { podSelector: { matchLabels: deploymentId } }],
          ports: [{ port: APP_PORT, protocol: 'TCP' }],
        },
      ],
      podSelector: { matchLabels: selectorLabels(ctx.labels, 'api-server') },
      policyTypes: ['Ingress'],
    },
  };
}
