/**
 * The operator's policy on the pod labels and annotations a record asks for: the default refuses
 * the keys that mesh injectors, the Vault agent injector, AppArmor/seccomp and Kubernetes itself
 * read as configuration of the pod after admission; the settings file adds, lifts or replaces them.
 * Each refusal is coded and names the field and the key, at either Pod Security level.
 */
import { describe, expect, it } from 'vitest';
import { POD_SECURITY_LEVELS, type RenderPolicy } from '../../src/render/index.ts';
import {
  DEFAULT_POD_METADATA_POLICY,
  keyAllowed,
  mergePodMetadataPolicy,
} from '../../src/render/pod-metadata-policy.ts';
import { errorOf, renderSpec } from './helpers.ts';

const S = 'source_config.resource_spec';

/** Every pod template of a render, with its metadata. */
function podMeta(objects: { kind: string; spec?: unknown }[]) {
  return objects
    .map((o) => (o.spec as { template?: { metadata?: { labels?: object; annotations?: object } } })?.template)
    .filter((t) => t !== undefined)
    .map((t) => t.metadata ?? {});
}

const REFUSED_ANNOTATIONS = [
  'sidecar.istio.io/proxyImage',
  'sidecar.istio.io/inject',
  'proxy.istio.io/config',
  'traffic.sidecar.istio.io/excludeOutboundIPRanges',
  'linkerd.io/inject',
  'config.linkerd.io/proxy-image',
  'consul.hashicorp.com/connect-inject',
  'kuma.io/sidecar-injection',
  'vault.hashicorp.com/agent-inject',
  'vault.hashicorp.com/role',
  'container.apparmor.security.beta.kubernetes.io/app',
  'seccomp.security.alpha.kubernetes.io/pod',
  'container.seccomp.security.alpha.kubernetes.io/app',
  'k8s.v1.cni.cncf.io/networks',
  'kubernetes.io/ingress-bandwidth',
  'cluster-autoscaler.kubernetes.io/safe-to-evict',
];

const REFUSED_LABELS = [
  'sidecar.istio.io/inject',
  'istio.io/rev',
  'istio.io/dataplane-mode',
  'kuma.io/sidecar-injection',
];

describe.each(POD_SECURITY_LEVELS)('pod metadata policy at %s', (podSecurity) => {
  const policy = (extra: Partial<RenderPolicy> = {}): Partial<RenderPolicy> => ({ podSecurity, ...extra });

  it.each(REFUSED_ANNOTATIONS)('refuses the annotation %s by default, naming the field and key', (key) => {
    const err = errorOf(() => renderSpec({ annotations: { [key]: 'true' } }, policy()));
    expect(err.code).toBe('MOORING_E_RENDER_POLICY');
    expect(err.field).toBe(`${S}.annotations[${JSON.stringify(key)}]`);
    expect(err.message).toContain(JSON.stringify(key));
  });

  it.each(REFUSED_LABELS)('refuses the label %s by default, naming the field and key', (key) => {
    const err = errorOf(() => renderSpec({ labels: { [key]: 'enabled' } }, policy()));
    expect(err.code).toBe('MOORING_E_RENDER_POLICY');
    expect(err.field).toBe(`${S}.labels[${JSON.stringify(key)}]`);
  });

  it('keeps ordinary keys and the harmless default-container annotation, on every pod, datastores included', () => {
    const annotations = { 'example.com/team': 'shop', 'kubectl.kubernetes.io/default-container': 'app' };
    const labels = { team: 'shop', 'app.kubernetes.io/part-of': 'shop' };
    const { objects } = renderSpec({ annotations, labels }, policy());
    const pods = podMeta(objects);
    expect(pods.length).toBeGreaterThanOrEqual(3);
    for (const meta of pods) {
      expect(meta.annotations).toMatchObject(annotations);
      expect(meta.labels).toMatchObject(labels);
    }
  });

  it('an operator allow pattern lifts a default refusal; an operator deny pattern adds one', () => {
    const podMetadata = {
      ...DEFAULT_POD_METADATA_POLICY,
      annotations: {
        allow: ['sidecar.istio.io/inject'],
        deny: [...DEFAULT_POD_METADATA_POLICY.annotations.deny, 'example.com/*'],
      },
    };
    const ok = renderSpec({ annotations: { 'sidecar.istio.io/inject': 'false' } }, policy({ podMetadata }));
    expect(podMeta(ok.objects)[0]?.annotations).toMatchObject({ 'sidecar.istio.io/inject': 'false' });
    const still = errorOf(() =>
      renderSpec({ annotations: { 'sidecar.istio.io/proxyImage': 'x' } }, policy({ podMetadata })),
    );
    expect(still.code).toBe('MOORING_E_RENDER_POLICY');
    const added = errorOf(() =>
      renderSpec({ annotations: { 'example.com/team': 'shop' } }, policy({ podMetadata })),
    );
    expect(added.field).toBe(`${S}.annotations["example.com/team"]`);
  });

  it('deny "*" with an allow list lets only the listed keys through', () => {
    const podMetadata = { ...DEFAULT_POD_METADATA_POLICY, labels: { allow: ['team'], deny: ['*'] } };
    expect(() => renderSpec({ labels: { team: 'shop' } }, policy({ podMetadata }))).not.toThrow();
    const err = errorOf(() => renderSpec({ labels: { tier: 'web' } }, policy({ podMetadata })));
    expect(err.field).toBe(`${S}.labels["tier"]`);
  });
});

describe('the compiled patterns (kept by a frozen policy, else made for one check)', () => {
  it('reads patterns made by hand as they are at each check, even a list changed in place since the last', () => {
    const deny = ['example.com/*'];
    const patterns = { allow: [], deny };
    expect(keyAllowed('team.io/x', patterns)).toBe(true);
    deny.push('team.io/*');
    expect(keyAllowed('team.io/x', patterns)).toBe(false);
    expect(keyAllowed('EXAMPLE.com/y', patterns)).toBe(false);
  });

  it('compiles a merged policy once with it: its lists are frozen, so the compiled check cannot go stale', () => {
    const policy = mergePodMetadataPolicy({ labels: { deny: ['team.io/*'] } });
    expect(Object.isFrozen(policy.labels) && Object.isFrozen(policy.labels.deny)).toBe(true);
    expect(() => (policy.labels.deny as string[]).push('other.io/*')).toThrow(TypeError);
    expect(keyAllowed('team.io/x', policy.labels)).toBe(false);
    expect(keyAllowed('app.kubernetes.io/name', policy.labels)).toBe(true);
    // A copy (JSON, spread) carries the lists and not the compiled check: it is compiled anew.
    const copy = { ...JSON.parse(JSON.stringify(policy.labels)), deny: ['other.io/*'] };
    expect(keyAllowed('team.io/x', copy)).toBe(true);
    expect(JSON.stringify(DEFAULT_POD_METADATA_POLICY.labels)).toBe(
      JSON.stringify({ allow: ['app.kubernetes.io/*'], deny: DEFAULT_POD_METADATA_POLICY.labels.deny }),
    );
  });
});
