import { describe, expect, it, vi } from 'vitest';
import type { ResourceSpecRecord } from '../../src/contract/index.ts';
import { errorOf, renderSpec } from './helpers.ts';

/**
 * Defence in depth: with the early per-field checks switched off (as if a new code path built a
 * pod without them), the check of the final pod templates still refuses every non-compliant pod,
 * naming the rendered object and field.
 */
vi.mock('../../src/render/policy.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/render/policy.ts')>();
  return {
    ...original,
    // The user's securityContext as given, no defaults, no checks.
    containerSecurityContext: (_field: string, user: Record<string, unknown> | null | undefined) => ({
      ...user,
    }),
    checkPodAnnotations: () => {},
    checkMountPropagation: () => {},
  };
});
vi.mock('../../src/render/pod-metadata-policy.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/render/pod-metadata-policy.ts')>();
  // The operator's key policy refuses the AppArmor annotation first; off, the PSS check must.
  return { ...original, checkMetadataKeys: () => {} };
});
vi.mock('../../src/render/volume-policy.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/render/volume-policy.ts')>();
  return {
    ...original,
    // Volumes as given, no checks.
    checkVolumes: (volumes: { name: string }[] | null | undefined) => [...(volumes ?? [])],
  };
});

const API = 'Deployment/shop-api:spec.template.';
const sidecar = (securityContext: Record<string, unknown>): ResourceSpecRecord => ({
  sidecars: [{ name: 'side', securityContext }],
});

describe('the last check, with the early checks switched off', () => {
  it.each<[string, ResourceSpecRecord, string]>([
    [
      'capability sys_admin',
      sidecar({ capabilities: { add: ['sys_admin'] } }),
      'spec.containers[1].securityContext.capabilities.add[0]',
    ],
    [
      'capability ALL',
      sidecar({ capabilities: { add: ['ALL'] } }),
      'spec.containers[1].securityContext.capabilities.add[0]',
    ],
    ['privileged', sidecar({ privileged: true }), 'spec.containers[1].securityContext.privileged'],
    [
      'seccomp Unconfined',
      sidecar({ seccompProfile: { type: 'Unconfined' } }),
      'spec.containers[1].securityContext.seccompProfile.type',
    ],
    [
      'SELinux spc_t',
      sidecar({ seLinuxOptions: { type: 'spc_t' } }),
      'spec.containers[1].securityContext.seLinuxOptions.type',
    ],
    [
      'procMount Unmasked',
      sidecar({ procMount: 'Unmasked' }),
      'spec.containers[1].securityContext.procMount',
    ],
    [
      'allowPrivilegeEscalation: true',
      sidecar({ allowPrivilegeEscalation: true }),
      'spec.containers[1].securityContext.allowPrivilegeEscalation',
    ],
    [
      'init container AppArmor Unconfined',
      { init_containers: [{ name: 'i', securityContext: { appArmorProfile: { type: 'Unconfined' } } }] },
      'spec.initContainers[0].securityContext.appArmorProfile.type',
    ],
    [
      'AppArmor annotation',
      { annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'unconfined' } },
      'metadata.annotations["container.apparmor.security.beta.kubernetes.io/app"]',
    ],
    ['gitRepo', { volumes: [{ name: 'g', gitRepo: { repository: 'r' } }] }, 'spec.volumes[0].gitRepo'],
    ['flexVolume', { volumes: [{ name: 'f', flexVolume: { driver: 'd' } }] }, 'spec.volumes[0].flexVolume'],
    ['hostPath', { volumes: [{ name: 'h', hostPath: { path: '/' } }] }, 'spec.volumes[0].hostPath'],
    [
      'ephemeral volumeName',
      { volumes: [{ name: 'e', ephemeral: { volumeClaimTemplate: { spec: { volumeName: 'pv' } } } }] },
      'spec.volumes[0].ephemeral.volumeClaimTemplate.spec.volumeName',
    ],
    [
      'another deployment’s Postgres claim',
      { volumes: [{ name: 'p', persistentVolumeClaim: { claimName: 'data-billing-postgres-0' } }] },
      'spec.volumes[0].persistentVolumeClaim.claimName',
    ],
  ])('%s', (_name, spec, path) => {
    const err = errorOf(() => renderSpec(spec));
    expect(err.code).toBe('MOORING_E_RENDER_POLICY');
    // The first pod template in apply order that uses the field: the API server's Deployment, or
    // (annotations) the Postgres StatefulSet, which carries the user's annotations too.
    expect([`${API}${path}`, `StatefulSet/shop-api-postgres:spec.template.${path}`]).toContain(err.field);
  });

  it('restricted: runAsUser 0 and a missing drop ALL are refused too', () => {
    const policy = { podSecurity: 'restricted' as const };
    const root = errorOf(() =>
      renderSpec(
        sidecar({
          runAsUser: 0,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
          runAsNonRoot: true,
        }),
        policy,
      ),
    );
    expect(root.field).toBe(`${API}spec.containers[1].securityContext.runAsUser`);
    const caps = errorOf(() =>
      renderSpec(sidecar({ allowPrivilegeEscalation: false, runAsNonRoot: true }), policy),
    );
    expect(caps.field).toBe(`${API}spec.containers[1].securityContext.capabilities.drop`);
  });

  it('a compliant spec still renders', () => {
    expect(() => renderSpec(sidecar({ capabilities: { add: ['NET_BIND_SERVICE'] } }))).not.toThrow();
  });
});
