/**
 * The operator's policy on the label and annotation keys a record puts on its pods. Mesh
 * injectors, the Vault agent injector, AppArmor/seccomp and Kubernetes itself read pod metadata
 * as configuration after admission (a sidecar's image, its interception mode, a Vault role, the
 * networks a pod joins): the pod the renderer checked is not the pod that runs. The default
 * refuses those namespaces; the settings file's `policy.podMetadata` adds, lifts or replaces
 * patterns (docs/security.md, "Pod labels and annotations", gives each default its reason).
 */
import { z } from 'zod';
import { policyViolation } from './errors.ts';

/** Patterns for one kind of key. A key matching `allow` passes; else one matching `deny` is refused. */
export interface KeyPatterns {
  /** Exceptions: a key matching one of these is allowed whatever `deny` says. */
  allow: readonly string[];
  /** A key matching one of these (and no `allow`) is refused. `*` matches any run of characters. */
  deny: readonly string[];
}

/** What the operator lets records put on pods: label keys and annotation keys. */
export interface PodMetadataPolicy {
  labels: KeyPatterns;
  annotations: KeyPatterns;
}

/**
 * Namespaces whose keys change a pod's privileges or traffic once it is admitted, refused by
 * default as annotations and as labels (injectors read either, depending on version).
 */
const INJECTOR_KEYS = [
  // Istio's injector: sidecar.istio.io/*, proxy.istio.io/config, traffic.sidecar.istio.io/*,
  // inject.istio.io/templates; istio.io/rev and istio.io/dataplane-mode pick the injector or ambient.
  '*istio.io/*',
  // Linkerd: linkerd.io/inject, config.linkerd.io/* (proxy image, skipped ports, init container).
  '*linkerd.io/*',
  // Consul: connect-inject, Envoy's extra arguments, upstreams, transparent proxy exclusions.
  '*consul.hashicorp.com/*',
  // Kuma: sidecar injection, transparent proxying, its init container.
  '*kuma.io/*',
  // Vault agent injector: a role reads whatever Vault grants the pod's ServiceAccount; templates
  // and the agent's image and its settings come from annotations too.
  '*vault.hashicorp.com/*',
  // Multus: extra network attachments (a host network among them) outside NetworkPolicy.
  '*cni.cncf.io/*',
] as const;

/**
 * The Kubernetes-reserved namespaces (AppArmor and seccomp annotations, bandwidth shaping,
 * cluster-autoscaler eviction, pod deletion cost): the project keeps adding keys there that
 * change a pod's treatment, so the namespace is refused rather than its keys one by one.
 */
const RESERVED_KEYS = ['*kubernetes.io/*', '*k8s.io/*'] as const;

/** Where frozen patterns keep their compiled check (a member no copy or JSON of them carries). */
const COMPILED = Symbol('mooring.keyPatterns.compiled');

/**
 * Frozen patterns carrying their compiled check: made once with the policy and dropped with it.
 * Patterns made any other way (a copy, a test's literal) are compiled at each check instead.
 */
function frozenPatterns(allow: readonly string[], deny: readonly string[]): KeyPatterns {
  const patterns = { allow: Object.freeze([...allow]), deny: Object.freeze([...deny]) };
  Object.defineProperty(patterns, COMPILED, { value: compile(patterns), enumerable: false });
  return Object.freeze(patterns);
}

/** The default: the patterns above refused, the harmless exceptions allowed. */
export const DEFAULT_POD_METADATA_POLICY: PodMetadataPolicy = Object.freeze({
  // The recommended labels (mooring sets some itself; those stay refused as mooring's own).
  labels: frozenPatterns(['app.kubernetes.io/*'], [...INJECTOR_KEYS, ...RESERVED_KEYS]),
  // Only tells kubectl which container `logs` and `exec` pick.
  annotations: frozenPatterns(
    ['kubectl.kubernetes.io/default-container'],
    [...INJECTOR_KEYS, ...RESERVED_KEYS],
  ),
});

const keyPatterns = z
  .strictObject({
    allow: z.array(z.string().min(1)).optional(),
    deny: z.array(z.string().min(1)).optional(),
  })
  .optional();

/** The settings file's `policy.podMetadata`: each list given replaces its default. */
export const PodMetadataSettingsFile = z.strictObject({ labels: keyPatterns, annotations: keyPatterns });
export type PodMetadataSettingsFile = z.infer<typeof PodMetadataSettingsFile>;

/** `file` over the default, list by list; frozen, each list compiled once (`frozenPatterns`). */
export function mergePodMetadataPolicy(file: PodMetadataSettingsFile | undefined): PodMetadataPolicy {
  const d = DEFAULT_POD_METADATA_POLICY;
  const merge = (base: KeyPatterns, over: z.infer<typeof keyPatterns>): KeyPatterns =>
    frozenPatterns(over?.allow ?? base.allow, over?.deny ?? base.deny);
  return { labels: merge(d.labels, file?.labels), annotations: merge(d.annotations, file?.annotations) };
}

/** One pattern as a regular expression source: `*` any characters, everything else literal. */
function patternSource(pattern: string): string {
  return pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'))
    .join('.*');
}

/** A list of patterns as one case-insensitive expression; null for an empty list. */
function matcher(patterns: readonly string[]): RegExp | null {
  return patterns.length === 0 ? null : new RegExp(`^(?:${patterns.map(patternSource).join('|')})$`, 'i');
}

/** `patterns` compiled: whether a key is allowed. */
function compile(patterns: KeyPatterns): (key: string) => boolean {
  const allow = matcher(patterns.allow);
  const deny = matcher(patterns.deny);
  return (key) => allow?.test(key) === true || deny?.test(key) !== true;
}

/** The check that frozen patterns carry, else `patterns` compiled for this check alone. */
function keyCheck(patterns: KeyPatterns): (key: string) => boolean {
  return (patterns as { [COMPILED]?: (key: string) => boolean })[COMPILED] ?? compile(patterns);
}

/** Whether `key` is allowed by `patterns`. */
export function keyAllowed(key: string, patterns: KeyPatterns): boolean {
  return keyCheck(patterns)(key);
}

/**
 * Refuses the first key of `values` the policy does not allow, naming the ResourceSpec field
 * (`annotations["sidecar.istio.io/proxyImage"]`) and the key (MOORING_E_RENDER_POLICY).
 */
export function checkMetadataKeys(
  field: 'labels' | 'annotations',
  values: Readonly<Record<string, string>>,
  policy: PodMetadataPolicy,
): void {
  const keys = Object.keys(values);
  if (keys.length === 0) return;
  const allowed = keyCheck(policy[field]);
  for (const key of keys) {
    if (allowed(key)) continue;
    const kind = field === 'labels' ? 'label' : 'annotation';
    throw policyViolation(
      `${field}[${JSON.stringify(key)}]`,
      `${kind} ${JSON.stringify(key)} is not allowed on pods by policy.podMetadata.${field} (by default, the namespaces that configure a pod after admission are refused)`,
    );
  }
}
