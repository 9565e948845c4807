/**
 * Volume sources that reach what is not the record's: an inline CSI volume of a driver the operator
 * did not allow (the Secrets Store driver mounts any SecretProviderClass of the namespace), an
 * ephemeral claim that binds a pre-made PersistentVolume by label selector or by an empty storage
 * class, and a projected podCertificate source (a credential for the pod's identity). Refused at
 * either Pod Security level, by the ResourceSpec check and by the last check of the rendered pod.
 */
import { describe, expect, it } from 'vitest';
import type { ResourceSpecRecord } from '../../src/contract/index.ts';
import { POD_SECURITY_LEVELS, type RenderPolicy } from '../../src/render/index.ts';
import { enforcePodPolicy } from '../../src/render/policy.ts';
import { errorOf, policyWith, renderSpec } from './helpers.ts';

const S = 'source_config.resource_spec';
const volume = (source: Record<string, unknown>): ResourceSpecRecord => ({
  volumes: [{ name: 'v', ...source }],
});
const claim = (spec: Record<string, unknown>) =>
  volume({ ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], ...spec } } } });

const CSI = volume({
  csi: {
    driver: 'secrets-store.csi.k8s.io',
    readOnly: true,
    volumeAttributes: { secretProviderClass: 'billing' },
  },
});
const POD_CERTIFICATE = volume({
  projected: {
    sources: [
      { podCertificate: { signerName: 'example.com/signer', keyType: 'ED25519', credentialBundlePath: 'c' } },
    ],
  },
});

const ROWS: [string, ResourceSpecRecord, string][] = [
  ['inline CSI volume of a driver not allowed', CSI, `${S}.volumes[0].csi.driver`],
  [
    'ephemeral claim with a label selector',
    claim({ selector: { matchLabels: { disk: 'billing' } } }),
    `${S}.volumes[0].ephemeral.volumeClaimTemplate.spec.selector`,
  ],
  [
    'ephemeral claim with an empty storageClassName',
    claim({ storageClassName: '' }),
    `${S}.volumes[0].ephemeral.volumeClaimTemplate.spec.storageClassName`,
  ],
  ['projected podCertificate source', POD_CERTIFICATE, `${S}.volumes[0].projected.sources[0].podCertificate`],
];

describe.each(POD_SECURITY_LEVELS)('volume sources at %s', (podSecurity) => {
  it.each(ROWS)('refuses an %s, naming the field', (_name, spec, field) => {
    const err = errorOf(() => renderSpec(spec, { podSecurity }));
    expect(err.code).toBe('MOORING_E_RENDER_POLICY');
    expect(err.field).toBe(field);
  });

  it.each(ROWS)('the last check refuses an %s on a rendered pod too', (_name, spec) => {
    const volumes = spec.volumes as unknown[];
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
        containers: [
          {
            name: 'c',
            image: 'i',
            securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
          },
        ],
        volumes,
      },
    };
    const err = errorOf(() => enforcePodPolicy([pod as never], policyWith({ podSecurity }), 'shop-api'));
    expect(err.code).toBe('MOORING_E_RENDER_POLICY');
    expect(err.field).toContain('Pod/p:spec.volumes[0]');
  });

  it('renders what the operator allowed: a listed CSI driver, pod certificates, a provisioned claim', () => {
    const allowed: Partial<RenderPolicy> = {
      podSecurity,
      allowedCsiDrivers: ['secrets-store.csi.k8s.io'],
      allowPodCertificates: true,
    };
    expect(() => renderSpec(CSI, allowed)).not.toThrow();
    expect(() => renderSpec(POD_CERTIFICATE, allowed)).not.toThrow();
    expect(() => renderSpec(claim({ storageClassName: 'fast' }), { podSecurity })).not.toThrow();
    expect(() => renderSpec(claim({}), { podSecurity })).not.toThrow();
  });
});
