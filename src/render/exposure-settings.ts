import { z } from 'zod';
import { isDnsLabel, isDnsSubdomain } from '../objects/dns-names.ts';

/**
 * How a deployment with a `custom_url` is reached from outside the cluster (render settings
 * `exposure`): not at all (`none`, the default), through an Ingress, or through a Gateway API
 * HTTPRoute. The objects are built in exposure.ts; docs/configuration.md documents the members.
 */
export type ExposureSettings = NoExposure | IngressExposure | HttpRouteExposure;

export interface NoExposure {
  kind: 'none';
}

/** A namespace selector (`matchLabels` and/or `matchExpressions`), as in a NetworkPolicy peer. */
export interface NamespaceSelector {
  matchLabels?: Record<string, string> | undefined;
  matchExpressions?: { key: string; operator: string; values?: string[] | undefined }[] | undefined;
}

/** What every exposure kind shares. */
interface ExposureCommon {
  /**
   * Hosts a `custom_url` may use: `shop.example.com` exactly, `*.apps.example.com` any subdomain
   * of it (not itself). Absent: any host.
   */
  allowedHosts?: string[] | undefined;
}

export interface IngressExposure extends ExposureCommon {
  kind: 'ingress';
  /** The IngressClass; absent: the cluster's default class. */
  ingressClassName?: string | undefined;
  /** Annotations added to every Ingress (controller settings). */
  annotations?: Record<string, string> | undefined;
  /** TLS: an existing Secret, or a cert-manager ClusterIssuer that issues `<base>-tls`. */
  tls?: { secretName: string } | { clusterIssuer: string } | undefined;
  /** Namespaces the ingress controller runs in; default `EXPOSURE_FROM_DEFAULT_INGRESS`. */
  from?: NamespaceSelector | undefined;
}

export interface HttpRouteExposure extends ExposureCommon {
  kind: 'httproute';
  /** The Gateway every route attaches to (a `parentRef`). */
  gateway: { name: string; namespace: string; sectionName?: string | undefined };
  /** Namespaces the gateway's data plane runs in; default: the gateway's namespace. */
  from?: NamespaceSelector | undefined;
}

/** The exposure kinds, as settings spell them. */
export const EXPOSURE_KINDS = ['none', 'ingress', 'httproute'] as const;
export type ExposureKind = (typeof EXPOSURE_KINDS)[number];

/** Where an Ingress controller runs unless `exposure.from` says otherwise (ingress-nginx's default). */
export const EXPOSURE_FROM_DEFAULT_INGRESS_NAMESPACE = 'ingress-nginx';

/** The label every namespace carries with its own name (set by Kubernetes since 1.22). */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/** The default: nothing exposed. */
export function defaultExposureSettings(): ExposureSettings {
  return { kind: 'none' };
}

const dnsLabel = () => z.string().refine(isDnsLabel, 'must be a DNS-1123 label');
const dnsSubdomain = () => z.string().refine(isDnsSubdomain, 'must be a DNS-1123 subdomain');

const NamespaceSelectorFile = z
  .strictObject({
    matchLabels: z.record(z.string().min(1), z.string()).optional(),
    matchExpressions: z
      .array(
        z.strictObject({
          key: z.string().min(1),
          operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
          values: z.array(z.string()).optional(),
        }),
      )
      .optional(),
  })
  .refine((s) => s.matchLabels !== undefined || s.matchExpressions !== undefined, {
    message: 'must set matchLabels or matchExpressions (an empty selector would admit every namespace)',
  });

const HOST_PATTERN = /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;
const allowedHosts = () =>
  z.array(z.string().max(253).regex(HOST_PATTERN, 'must be a host name, or *. and a domain')).optional();

/** Whether `host` is one `allowedHosts` lets a custom_url use (absent: any). */
export function hostAllowed(host: string, allowed: readonly string[] | undefined): boolean {
  if (!allowed) return true;
  return allowed.some((h) => (h.startsWith('*.') ? host.endsWith(h.slice(1)) : host === h));
}

/** The `exposure` member of a settings file: closed, one shape per kind. */
export const ExposureSettingsFile = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('none') }),
  z
    .strictObject({
      kind: z.literal('ingress'),
      ingressClassName: dnsSubdomain().optional(),
      annotations: z.record(z.string().min(1), z.string()).optional(),
      tls: z
        .union([
          z.strictObject({ secretName: dnsSubdomain() }),
          z.strictObject({ clusterIssuer: dnsSubdomain() }),
        ])
        .optional(),
      from: NamespaceSelectorFile.optional(),
      allowedHosts: allowedHosts(),
    })
    // A ClusterIssuer signs whatever host a record's custom_url names: without allowedHosts any
    // tenant could have a certificate issued for any host (a domain of another tenant's, or ours).
    .refine((s) => !(s.tls && 'clusterIssuer' in s.tls) || (s.allowedHosts?.length ?? 0) > 0, {
      message: 'tls.clusterIssuer requires allowedHosts (the hosts a certificate may be issued for)',
      path: ['allowedHosts'],
    }),
  z.strictObject({
    kind: z.literal('httproute'),
    gateway: z.strictObject({
      name: dnsSubdomain(),
      namespace: dnsLabel(),
      sectionName: dnsSubdomain().optional(),
    }),
    from: NamespaceSelectorFile.optional(),
    allowedHosts: allowedHosts(),
  }),
]);
export type ExposureSettingsFile = z.infer<typeof ExposureSettingsFile>;

/** A settings file's `exposure` (absent: none), copied so that the settings share nothing with it. */
export function mergeExposureSettings(file: ExposureSettingsFile | undefined): ExposureSettings {
  return file ? structuredClone(file) : defaultExposureSettings();
}

/** The namespaces admitted to the API server pods: `exposure.from`, else the documented default. */
export function exposureFrom(exposure: IngressExposure | HttpRouteExposure): NamespaceSelector {
  if (exposure.from) return exposure.from;
  const namespace =
    exposure.kind === 'ingress' ? EXPOSURE_FROM_DEFAULT_INGRESS_NAMESPACE : exposure.gateway.namespace;
  return { matchLabels: { [NAMESPACE_NAME_LABEL]: namespace } };
}
