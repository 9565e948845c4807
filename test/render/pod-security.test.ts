import { describe, expect, it } from 'vitest';
import type { ResourceSpecRecord } from '../../src/contract/index.ts';
import {
  checkPodSecurity,
  type KubeObject,
  type RenderPolicy,
  RenderError,
  renderDeployment,
} from '../../src/render/index.ts';
import { enforcePodPolicy } from '../../src/render/policy.ts';
import { DEFAULT_POD_METADATA_POLICY } from '../../src/render/pod-metadata-policy.ts';
import { deployment, FULL_SPEC, settings } from './fixtures.ts';
import { errorOf, policyWith, renderSpec } from './helpers.ts';
import { validateObject } from './models.ts';
import { mooringFailures, pssFailures, podTemplatesOf } from './pss-oracle.ts';

const S = 'source_config.resource_spec';
/** The API server's pod spec. */
// biome-ignore lint/suspicious/noExplicitAny: reading rendered JSON
const apiPod = (objects: KubeObject[]): any =>
  podTemplatesOf(objects).find((t) => t.id === 'Deployment/shop-api')!.spec;
/** The test deployment's base name (deployment "shop-api"). */
const BASE = 'shop-api';

const sidecar = (securityContext: Record<string, unknown>) => ({
  sidecars: [{ name: 'side', image: 'busybox:1.36', securityContext }],
});
const init = (securityContext: Record<string, unknown>) => ({
  init_containers: [{ name: 'init', securityContext }],
});
const native = (securityContext: Record<string, unknown>) => ({
  sidecars: [{ name: 'proxy', restartPolicy: 'Always', securityContext }],
});
const caps = (add: unknown[]) => sidecar({ capabilities: { add } });
const volume = (source: Record<string, unknown>) => ({ volumes: [{ name: 'v', ...source }] });

type Row = [name: string, spec: ResourceSpecRecord, policy: Partial<RenderPolicy>, field: string];

const CAP = `${S}.sidecars[0].securityContext.capabilities`;
const SC = `${S}.sidecars[0].securityContext`;

/** One row per control and variant: each refused with MOORING_E_RENDER_POLICY, naming the field. */
const REFUSED: Row[] = [
  // Capabilities: compared as the runtime reads them, and only the standard's spelling is allowed.
  ['capability sys_admin (lower case)', caps(['sys_admin']), {}, `${CAP}.add[0]`],
  ['capability Sys_Admin (mixed case)', caps(['Sys_Admin']), {}, `${CAP}.add[0]`],
  ['capability SYS_ADMIN', caps(['SYS_ADMIN']), {}, `${CAP}.add[0]`],
  ['capability CAP_SYS_ADMIN (prefix)', caps(['CAP_SYS_ADMIN']), {}, `${CAP}.add[0]`],
  ['capability cap_sys_admin (prefix, lower case)', caps(['cap_sys_admin']), {}, `${CAP}.add[0]`],
  ['capability ALL', caps(['ALL']), {}, `${CAP}.add[0]`],
  ['capability all (lower case)', caps(['all']), {}, `${CAP}.add[0]`],
  ['capability SYS_MODULE', caps(['SYS_MODULE']), {}, `${CAP}.add[0]`],
  ['capability SYS_PTRACE', caps(['SYS_PTRACE']), {}, `${CAP}.add[0]`],
  ['capability NET_ADMIN', caps(['NET_ADMIN']), {}, `${CAP}.add[0]`],
  ['capability DAC_READ_SEARCH', caps(['DAC_READ_SEARCH']), {}, `${CAP}.add[0]`],
  ['capability BPF', caps(['BPF']), {}, `${CAP}.add[0]`],
  ['capability SYS_RAWIO', caps(['SYS_RAWIO']), {}, `${CAP}.add[0]`],
  ['capability NET_RAW (not in the baseline list)', caps(['NET_RAW']), {}, `${CAP}.add[0]`],
  ['capability second in the list', caps(['CHOWN', 'sys_ptrace']), {}, `${CAP}.add[1]`],
  ['capability chown: allowed, but not so spelled', caps(['chown']), {}, `${CAP}.add[0]`],
  ['capability CAP_CHOWN: allowed, but not so spelled', caps(['CAP_CHOWN']), {}, `${CAP}.add[0]`],
  ['capability that is not a string', caps([42]), {}, `${CAP}.add[0]`],
  [
    'capability in an init container',
    { init_containers: [{ name: 'init', securityContext: { capabilities: { add: ['SYS_ADMIN'] } } }] },
    {},
    `${S}.init_containers[0].securityContext.capabilities.add[0]`,
  ],
  [
    'capability in a native sidecar',
    native({ capabilities: { add: ['net_admin'] } }),
    {},
    `${S}.sidecars[0].securityContext.capabilities.add[0]`,
  ],
  [
    'restricted: a baseline capability other than NET_BIND_SERVICE',
    caps(['CHOWN']),
    { podSecurity: 'restricted' },
    `${CAP}.add[0]`,
  ],
  [
    'restricted: capabilities.drop without ALL',
    sidecar({ capabilities: { drop: ['NET_RAW'] } }),
    { podSecurity: 'restricted' },
    `${CAP}.drop`,
  ],
  [
    'restricted: capabilities.drop with all (lower case)',
    sidecar({ capabilities: { drop: ['all'] } }),
    { podSecurity: 'restricted' },
    `${CAP}.drop`,
  ],
  // Privileged Containers
  ['privileged: true', sidecar({ privileged: true }), {}, `${SC}.privileged`],
  ['privileged: "true" (not a boolean)', sidecar({ privileged: 'true' }), {}, `${SC}.privileged`],
  [
    'privileged init container',
    init({ privileged: true }),
    {},
    `${S}.init_containers[0].securityContext.privileged`,
  ],
  // Privilege escalation (mooring's rule at baseline, the standard's under restricted)
  [
    'allowPrivilegeEscalation: true',
    sidecar({ allowPrivilegeEscalation: true }),
    {},
    `${SC}.allowPrivilegeEscalation`,
  ],
  [
    'restricted: allowPrivilegeEscalation: true',
    sidecar({ allowPrivilegeEscalation: true }),
    { podSecurity: 'restricted' },
    `${SC}.allowPrivilegeEscalation`,
  ],
  // HostProcess
  [
    'windowsOptions.hostProcess',
    sidecar({ windowsOptions: { hostProcess: true } }),
    {},
    `${SC}.windowsOptions.hostProcess`,
  ],
  // Seccomp
  [
    'seccomp Unconfined (container)',
    sidecar({ seccompProfile: { type: 'Unconfined' } }),
    {},
    `${SC}.seccompProfile.type`,
  ],
  [
    'seccomp unconfined (lower case)',
    sidecar({ seccompProfile: { type: 'unconfined' } }),
    {},
    `${SC}.seccompProfile.type`,
  ],
  [
    'seccomp Unconfined in an init container',
    init({ seccompProfile: { type: 'Unconfined' } }),
    {},
    `${S}.init_containers[0].securityContext.seccompProfile.type`,
  ],
  [
    'seccomp annotation unconfined (pod, before 1.19)',
    { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' } },
    {},
    `${S}.annotations["seccomp.security.alpha.kubernetes.io/pod"]`,
  ],
  [
    'seccomp annotation unconfined (container, before 1.19)',
    { annotations: { 'container.seccomp.security.alpha.kubernetes.io/app': 'unconfined' } },
    {},
    `${S}.annotations["container.seccomp.security.alpha.kubernetes.io/app"]`,
  ],
  // AppArmor
  [
    'appArmorProfile Unconfined',
    sidecar({ appArmorProfile: { type: 'Unconfined' } }),
    {},
    `${SC}.appArmorProfile.type`,
  ],
  [
    'AppArmor annotation unconfined (on every pod)',
    { annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'unconfined' } },
    {},
    `${S}.annotations["container.apparmor.security.beta.kubernetes.io/app"]`,
  ],
  [
    'AppArmor annotation of the Redis container',
    { annotations: { 'container.apparmor.security.beta.kubernetes.io/redis': 'unconfined' } },
    {},
    `${S}.annotations["container.apparmor.security.beta.kubernetes.io/redis"]`,
  ],
  // SELinux
  [
    'seLinuxOptions.type spc_t',
    sidecar({ seLinuxOptions: { type: 'spc_t' } }),
    {},
    `${SC}.seLinuxOptions.type`,
  ],
  [
    'seLinuxOptions.type unconfined_t',
    sidecar({ seLinuxOptions: { type: 'unconfined_t' } }),
    {},
    `${SC}.seLinuxOptions.type`,
  ],
  ['seLinuxOptions.user', sidecar({ seLinuxOptions: { user: 'system_u' } }), {}, `${SC}.seLinuxOptions.user`],
  ['seLinuxOptions.role', sidecar({ seLinuxOptions: { role: 'system_r' } }), {}, `${SC}.seLinuxOptions.role`],
  // /proc Mount Type
  ['procMount Unmasked', sidecar({ procMount: 'Unmasked' }), {}, `${SC}.procMount`],
  // Running as non-root (restricted)
  ['restricted: runAsUser 0', sidecar({ runAsUser: 0 }), { podSecurity: 'restricted' }, `${SC}.runAsUser`],
  [
    'restricted: runAsUser "0" (not a number)',
    sidecar({ runAsUser: '0' }),
    { podSecurity: 'restricted' },
    `${SC}.runAsUser`,
  ],
  [
    'restricted: runAsNonRoot false',
    sidecar({ runAsNonRoot: false }),
    { podSecurity: 'restricted' },
    `${SC}.runAsNonRoot`,
  ],
  // Volumes
  ['hostPath volume', volume({ hostPath: { path: '/' } }), {}, `${S}.volumes[0].hostPath`],
  [
    'gitRepo volume (CVE-2024-10220)',
    volume({ gitRepo: { repository: 'https://x/r.git' } }),
    {},
    `${S}.volumes[0].gitRepo`,
  ],
  [
    'gitRepo volume even when listed in allowedVolumeTypes',
    volume({ gitRepo: { repository: 'https://x/r.git' } }),
    { allowedVolumeTypes: ['gitRepo'] },
    `${S}.volumes[0].gitRepo`,
  ],
  ['flexVolume', volume({ flexVolume: { driver: 'vendor/driver' } }), {}, `${S}.volumes[0].flexVolume`],
  [
    'flexVolume even when listed in allowedVolumeTypes',
    volume({ flexVolume: { driver: 'vendor/driver' } }),
    { allowedVolumeTypes: ['flexVolume'] },
    `${S}.volumes[0].flexVolume`,
  ],
  [
    'nfs volume (not in the default list)',
    volume({ nfs: { server: 'n', path: '/' } }),
    {},
    `${S}.volumes[0].nfs`,
  ],
  [
    'iscsi volume (not in the default list)',
    volume({ iscsi: { targetPortal: 't', iqn: 'i', lun: 0 } }),
    {},
    `${S}.volumes[0].iscsi`,
  ],
  [
    'ephemeral claim binding a named PersistentVolume',
    volume({
      ephemeral: {
        volumeClaimTemplate: { spec: { volumeName: 'pv-of-someone', accessModes: ['ReadWriteOnce'] } },
      },
    }),
    {},
    `${S}.volumes[0].ephemeral.volumeClaimTemplate.spec.volumeName`,
  ],
  [
    'ephemeral claim cloning another deployment’s Postgres claim',
    volume({
      ephemeral: {
        volumeClaimTemplate: {
          spec: { dataSource: { kind: 'PersistentVolumeClaim', name: 'data-billing-postgres-0' } },
        },
      },
    }),
    {},
    `${S}.volumes[0].ephemeral.volumeClaimTemplate.spec.dataSource.name`,
  ],
  [
    'another deployment’s Postgres claim',
    volume({ persistentVolumeClaim: { claimName: 'data-billing-postgres-0' } }),
    {},
    `${S}.volumes[0].persistentVolumeClaim.claimName`,
  ],
  [
    'the Postgres claim of a deployment whose name extends ours',
    volume({ persistentVolumeClaim: { claimName: `data-${BASE}-postgres-1-postgres-0` } }),
    {},
    `${S}.volumes[0].persistentVolumeClaim.claimName`,
  ],
];

describe('the policy refuses each control and variant, naming the field', () => {
  it.each(REFUSED)('%s', (_name, spec, policy, field) => {
    const err = errorOf(() => renderSpec(spec, policy));
    expect(err.code).toBe('MOORING_E_RENDER_POLICY');
    expect(err.field).toBe(field);
    // Container fields are named in the message too; volumes by their name and type.
    const member = field.slice(S.length + 1);
    if (member.startsWith('volumes[')) expect(err.message).toContain(`volume "v"`);
    else expect(err.message).toContain(member);
  });

  it('names the value and the control in the message', () => {
    expect(errorOf(() => renderSpec(caps(['sys_admin']))).message).toBe(
      'sidecars[0].securityContext.capabilities.add[0] is "sys_admin" (the runtime reads it as CAP_SYS_ADMIN): ' +
        'Pod Security Standard "baseline" (Capabilities) allows only AUDIT_WRITE, CHOWN, DAC_OVERRIDE, FOWNER, ' +
        'FSETID, KILL, MKNOD, NET_BIND_SERVICE, SETFCAP, SETGID, SETPCAP, SETUID, SYS_CHROOT; ' +
        'policy.allowPrivileged exempts it',
    );
    expect(errorOf(() => renderSpec(sidecar({ seLinuxOptions: { type: 'spc_t' } }))).message).toBe(
      'sidecars[0].securityContext.seLinuxOptions.type is "spc_t": Pod Security Standard "baseline" (SELinux) ' +
        'allows "", container_t, container_init_t, container_kvm_t, container_engine_t or absent',
    );
    expect(errorOf(() => renderSpec(sidecar({ runAsUser: 0 }), { podSecurity: 'restricted' })).message).toBe(
      'sidecars[0].securityContext.runAsUser is 0: Pod Security Standard "restricted" (Running as Non-root user) ' +
        'allows a non-zero user id or absent',
    );
  });

  it('refuses a securityContext member that Kubernetes does not have (a differently cased field)', () => {
    const err = errorOf(() => renderSpec(sidecar({ Privileged: true })));
    expect(err.code).toBe('MOORING_E_RENDER_INVALID');
    expect(err.field).toBe(`${SC}.Privileged`);
    const nested = errorOf(() => renderSpec(sidecar({ capabilities: { Add: ['SYS_ADMIN'] } })));
    expect(nested.field).toBe(`${CAP}.Add`);
  });

  it('a null member is absent: it cannot unset a default', () => {
    const { objects } = renderSpec(sidecar({ allowPrivilegeEscalation: null, runAsNonRoot: null }), {
      podSecurity: 'restricted',
    });
    const side = apiPod(objects).containers[1];
    expect(side.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      runAsNonRoot: true,
    });
  });
});

/** Specs that comply: they render, and every pod satisfies the level by the independent oracle. */
const COMPLIANT: [name: string, spec: ResourceSpecRecord, policy: Partial<RenderPolicy>][] = [
  ['the baseline capabilities', caps(['AUDIT_WRITE', 'CHOWN', 'NET_BIND_SERVICE', 'SYS_CHROOT']), {}],
  [
    'seccomp RuntimeDefault and Localhost',
    sidecar({ seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } }),
    {},
  ],
  ['AppArmor RuntimeDefault', sidecar({ appArmorProfile: { type: 'RuntimeDefault' } }), {}],
  [
    'AppArmor annotations runtime/default and localhost/',
    {
      annotations: {
        'container.apparmor.security.beta.kubernetes.io/app': 'runtime/default',
        'container.apparmor.security.beta.kubernetes.io/side': 'localhost/k8s-side',
      },
      ...sidecar({}),
    },
    // Refused by the default pod metadata policy; an operator's exception lets the PSS check see them.
    {
      podMetadata: {
        ...DEFAULT_POD_METADATA_POLICY,
        annotations: { allow: ['container.apparmor.*'], deny: [] },
      },
    },
  ],
  [
    'SELinux container_t with a level',
    sidecar({ seLinuxOptions: { type: 'container_t', level: 's0:c123,c456' } }),
    {},
  ],
  ['SELinux container_init_t', sidecar({ seLinuxOptions: { type: 'container_init_t' } }), {}],
  ['procMount Default', sidecar({ procMount: 'Default' }), {}],
  ['runAsUser 0 under baseline (baseline does not restrict it)', sidecar({ runAsUser: 0 }), {}],
  [
    'the default volume types',
    {
      volumes: [
        { name: 'a', configMap: { name: 'c' } },
        { name: 'b', secret: { secretName: 's' } },
        { name: 'c', emptyDir: {} },
        { name: 'd', persistentVolumeClaim: { claimName: 'uploads' } },
        { name: 'e', projected: { sources: [] } },
        { name: 'f', downwardAPI: { items: [] } },
        { name: 'g', csi: { driver: 'secrets-store.csi.k8s.io' } },
        {
          name: 'h',
          ephemeral: {
            volumeClaimTemplate: {
              spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
            },
          },
        },
        { name: 'i', image: { reference: 'registry.example.com/models:1' } },
        { name: 'j' },
      ],
    },
    { allowedCsiDrivers: ['secrets-store.csi.k8s.io'] },
  ],
  [
    'this deployment’s own Postgres claim',
    volume({ persistentVolumeClaim: { claimName: `data-${BASE}-postgres-0` } }),
    {},
  ],
  [
    'nfs when allowedVolumeTypes lists it',
    volume({ nfs: { server: 'n', path: '/' } }),
    { allowedVolumeTypes: ['nfs'] },
  ],
  [
    'restricted: NET_BIND_SERVICE with drop ALL',
    sidecar({ capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] } }),
    { podSecurity: 'restricted' },
  ],
  [
    'restricted: a tightening securityContext',
    sidecar({ readOnlyRootFilesystem: true, runAsUser: 1000, runAsGroup: 1000 }),
    { podSecurity: 'restricted' },
  ],
  [
    'restricted: the full spec (nfs allowed)',
    FULL_SPEC,
    {
      podSecurity: 'restricted',
      allowedVolumeTypes: ['nfs'],
      allowedCsiDrivers: ['secrets-store.csi.k8s.io'],
    },
  ],
  [
    'baseline: the full spec (nfs allowed)',
    FULL_SPEC,
    { allowedVolumeTypes: ['nfs'], allowedCsiDrivers: ['secrets-store.csi.k8s.io'] },
  ],
];

describe('compliant specs still render, and every pod satisfies the level', () => {
  it.each(COMPLIANT)('%s', (_name, spec, policy) => {
    const { objects } = renderSpec(spec, policy);
    const level = policy.podSecurity ?? 'baseline';
    const templates = podTemplatesOf(objects);
    expect(templates.length).toBeGreaterThanOrEqual(3);
    const ex = { volumeTypes: policy.allowedVolumeTypes ?? [] };
    for (const t of templates) {
      expect(pssFailures(t.spec, t.annotations, level, ex), t.id).toEqual([]);
      expect(mooringFailures(t.spec, BASE, ex), t.id).toEqual([]);
    }
    for (const o of objects) validateObject(o);
  });
});

describe('the exemptions switch off their named controls and nothing else', () => {
  const privileged = { allowPrivileged: true };

  it('allowPrivileged: privileged, privilege escalation and any capability render', () => {
    for (const sc of [
      { privileged: true },
      { allowPrivilegeEscalation: true },
      { capabilities: { add: ['SYS_ADMIN', 'sys_ptrace', 'ALL'] } },
    ]) {
      const { objects } = renderSpec(sidecar(sc), privileged);
      const side = apiPod(objects).containers[1];
      // The escalation default is left out: Kubernetes refuses it next to privilege.
      expect(side.securityContext).toEqual(sc);
    }
  });

  it('allowPrivileged under restricted: capabilities are exempt, running as non-root is not', () => {
    const { objects } = renderSpec(sidecar({ capabilities: { add: ['NET_ADMIN'] } }), {
      ...privileged,
      podSecurity: 'restricted',
    });
    const side = apiPod(objects).containers[1];
    expect(side.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] },
      runAsNonRoot: true,
    });
    const err = errorOf(() =>
      renderSpec(sidecar({ privileged: true, runAsUser: 0 }), { ...privileged, podSecurity: 'restricted' }),
    );
    expect(err.field).toBe(`${SC}.runAsUser`);
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'seccomp Unconfined',
      { privileged: true, seccompProfile: { type: 'Unconfined' } },
      'seccompProfile.type',
    ],
    [
      'AppArmor Unconfined',
      { privileged: true, appArmorProfile: { type: 'Unconfined' } },
      'appArmorProfile.type',
    ],
    ['SELinux spc_t', { privileged: true, seLinuxOptions: { type: 'spc_t' } }, 'seLinuxOptions.type'],
    ['procMount Unmasked', { privileged: true, procMount: 'Unmasked' }, 'procMount'],
    [
      'hostProcess',
      { privileged: true, windowsOptions: { hostProcess: true } },
      'windowsOptions.hostProcess',
    ],
  ])('allowPrivileged does not exempt %s', (_name, sc, member) => {
    const err = errorOf(() => renderSpec(sidecar(sc), { allowPrivileged: true, allowHostPath: true }));
    expect(err.code).toBe('MOORING_E_RENDER_POLICY');
    expect(err.field).toBe(`${SC}.${member}`);
  });

  it('allowHostPath: a hostPath volume renders, also under restricted; it exempts no other volume', () => {
    const hostPath = volume({ hostPath: { path: '/var/run' } });
    expect(() => renderSpec(hostPath, { allowHostPath: true })).not.toThrow();
    expect(() => renderSpec(hostPath, { allowHostPath: true, podSecurity: 'restricted' })).not.toThrow();
    const nfs = errorOf(() =>
      renderSpec(volume({ nfs: { server: 'n', path: '/' } }), { allowHostPath: true }),
    );
    expect(nfs.field).toBe(`${S}.volumes[0].nfs`);
    const priv = errorOf(() => renderSpec(sidecar({ privileged: true }), { allowHostPath: true }));
    expect(priv.field).toBe(`${SC}.privileged`);
  });

  it('allowedVolumeTypes: the listed types render under restricted too; others stay refused', () => {
    const nfs = volume({ nfs: { server: 'n', path: '/' } });
    expect(() => renderSpec(nfs, { allowedVolumeTypes: ['nfs'], podSecurity: 'restricted' })).not.toThrow();
    const iscsi = errorOf(() =>
      renderSpec(volume({ iscsi: { targetPortal: 't', iqn: 'i', lun: 0 } }), { allowedVolumeTypes: ['nfs'] }),
    );
    expect(iscsi.field).toBe(`${S}.volumes[0].iscsi`);
  });
});

describe('restricted', () => {
  const restricted = settings({ policy: policyWith({ podSecurity: 'restricted' }) });
  const render = (spec: ResourceSpecRecord = {}) =>
    renderDeployment({ deployment: deployment({ spec }), settings: restricted }).objects;

  it('every pod of every workload satisfies restricted: API server, workers, Redis, Postgres', () => {
    const objects = render({
      queue_cpu: 1,
      orchestrator_cpu: 1,
      executor_cpu: 1,
      ...native({}),
      ...init({}),
    });
    const templates = podTemplatesOf(objects);
    expect(templates.map((t) => t.id).sort()).toEqual([
      'Deployment/shop-api',
      'Deployment/shop-api-executor',
      'Deployment/shop-api-orchestrator',
      'Deployment/shop-api-queue',
      'Deployment/shop-api-redis',
      'StatefulSet/shop-api-postgres',
    ]);
    for (const t of templates) expect(pssFailures(t.spec, t.annotations, 'restricted'), t.id).toEqual([]);
    for (const o of objects) validateObject(o);
  });

  it('the bundled datastores run as their images’ non-root users, with every capability dropped', () => {
    const objects = render();
    const pod = (id: string) => podTemplatesOf(objects).find((t) => t.id === id)!.spec;
    expect(pod('StatefulSet/shop-api-postgres').securityContext).toEqual({
      fsGroup: 70,
      fsGroupChangePolicy: 'OnRootMismatch',
      runAsGroup: 70,
      runAsNonRoot: true,
      runAsUser: 70,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod('Deployment/shop-api-redis').securityContext).toEqual({
      fsGroup: 1000,
      fsGroupChangePolicy: 'OnRootMismatch',
      runAsGroup: 1000,
      runAsNonRoot: true,
      runAsUser: 999,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    for (const id of ['StatefulSet/shop-api-postgres', 'Deployment/shop-api-redis']) {
      expect(pod(id).containers[0].securityContext).toEqual({
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
    }
  });

  it('app containers get drop ALL and runAsNonRoot by default; a user securityContext may tighten them', () => {
    const objects = render(
      sidecar({ readOnlyRootFilesystem: true, capabilities: { add: ['NET_BIND_SERVICE'] } }),
    );
    const api = podTemplatesOf(objects).find((t) => t.id === 'Deployment/shop-api')!.spec;
    expect(api.securityContext).toEqual({ seccompProfile: { type: 'RuntimeDefault' } });
    expect(api.containers[0].securityContext).toEqual({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      runAsNonRoot: true,
    });
    expect(api.containers[1].securityContext).toEqual({
      allowPrivilegeEscalation: false,
      capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] },
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
    });
  });

  it('baseline output keeps its defaults (the golden files hold the rest)', () => {
    const { objects } = renderSpec({});
    for (const t of podTemplatesOf(objects)) {
      expect(t.spec.securityContext).toEqual({ seccompProfile: { type: 'RuntimeDefault' } });
      expect(t.spec.containers[0].securityContext).toEqual({ allowPrivilegeEscalation: false });
    }
  });
});

describe('checkPodSecurity: the whole-pod check, field by field', () => {
  const container = (securityContext?: unknown, extra: Record<string, unknown> = {}) => ({
    name: 'c',
    image: 'i',
    ...(securityContext === undefined ? {} : { securityContext }),
    ...extra,
  });
  const pod = (spec: Record<string, unknown>) => ({ containers: [container()], ...spec });
  const restrictedContainer = container({
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    runAsNonRoot: true,
  });
  const restrictedPod = (spec: Record<string, unknown> = {}) => ({
    securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
    containers: [restrictedContainer],
    ...spec,
  });

  /** [name, pod spec, annotations, level, the path of the first violation]. */
  it.each<
    [string, Record<string, unknown>, Record<string, string> | undefined, 'baseline' | 'restricted', string]
  >([
    ['hostNetwork', pod({ hostNetwork: true }), undefined, 'baseline', 'spec.hostNetwork'],
    ['hostPID', pod({ hostPID: true }), undefined, 'baseline', 'spec.hostPID'],
    ['hostIPC', pod({ hostIPC: true }), undefined, 'baseline', 'spec.hostIPC'],
    [
      'hostPort',
      pod({ containers: [container(undefined, { ports: [{ containerPort: 80, hostPort: 80 }] })] }),
      undefined,
      'baseline',
      'spec.containers[0].ports[0].hostPort',
    ],
    [
      'pod seccomp Unconfined',
      pod({ securityContext: { seccompProfile: { type: 'Unconfined' } } }),
      undefined,
      'baseline',
      'spec.securityContext.seccompProfile.type',
    ],
    [
      'pod AppArmor Unconfined',
      pod({ securityContext: { appArmorProfile: { type: 'Unconfined' } } }),
      undefined,
      'baseline',
      'spec.securityContext.appArmorProfile.type',
    ],
    [
      'pod SELinux spc_t',
      pod({ securityContext: { seLinuxOptions: { type: 'spc_t' } } }),
      undefined,
      'baseline',
      'spec.securityContext.seLinuxOptions.type',
    ],
    [
      'pod hostProcess',
      pod({ securityContext: { windowsOptions: { hostProcess: true } } }),
      undefined,
      'baseline',
      'spec.securityContext.windowsOptions.hostProcess',
    ],
    [
      'unsafe sysctl',
      pod({ securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }] } }),
      undefined,
      'baseline',
      'spec.securityContext.sysctls[0].name',
    ],
    [
      'sysctl in slash form',
      pod({ securityContext: { sysctls: [{ name: 'net/ipv4/ip_local_port_range', value: '1 2' }] } }),
      undefined,
      'baseline',
      'spec.securityContext.sysctls[0].name',
    ],
    [
      'hostPath volume',
      pod({ volumes: [{ name: 'h', hostPath: { path: '/' } }] }),
      undefined,
      'baseline',
      'spec.volumes[0].hostPath',
    ],
    [
      'privileged ephemeral container',
      pod({ ephemeralContainers: [container({ privileged: true })] }),
      undefined,
      'baseline',
      'spec.ephemeralContainers[0].securityContext.privileged',
    ],
    [
      'AppArmor annotation',
      pod({}),
      { 'container.apparmor.security.beta.kubernetes.io/c': 'unconfined' },
      'baseline',
      'metadata.annotations["container.apparmor.security.beta.kubernetes.io/c"]',
    ],
    [
      'restricted: pod runAsNonRoot false',
      restrictedPod({ securityContext: { runAsNonRoot: false, seccompProfile: { type: 'RuntimeDefault' } } }),
      undefined,
      'restricted',
      'spec.securityContext.runAsNonRoot',
    ],
    [
      'restricted: pod runAsUser 0',
      restrictedPod({ securityContext: { runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } } }),
      undefined,
      'restricted',
      'spec.securityContext.runAsUser',
    ],
    [
      'restricted: runAsNonRoot set nowhere',
      restrictedPod({
        containers: [container({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } })],
      }),
      undefined,
      'restricted',
      'spec.containers[0].securityContext.runAsNonRoot',
    ],
    [
      'restricted: seccomp set nowhere',
      restrictedPod({ securityContext: {} }),
      undefined,
      'restricted',
      'spec.containers[0].securityContext.seccompProfile.type',
    ],
    [
      'restricted: no allowPrivilegeEscalation',
      restrictedPod({ containers: [container({ capabilities: { drop: ['ALL'] }, runAsNonRoot: true })] }),
      undefined,
      'restricted',
      'spec.containers[0].securityContext.allowPrivilegeEscalation',
    ],
    [
      'restricted: nfs volume',
      restrictedPod({ volumes: [{ name: 'n', nfs: { server: 's', path: '/' } }] }),
      undefined,
      'restricted',
      'spec.volumes[0].nfs',
    ],
    [
      'restricted: gitRepo volume',
      restrictedPod({ volumes: [{ name: 'g', gitRepo: { repository: 'r' } }] }),
      undefined,
      'restricted',
      'spec.volumes[0].gitRepo',
    ],
  ])('%s', (_name, spec, annotations, level, path) => {
    const violations = checkPodSecurity(spec, annotations, level);
    expect(violations[0]?.path).toBe(path);
    // The independent oracle agrees that the pod fails the level.
    expect(pssFailures(spec, annotations, level)).not.toEqual([]);
  });

  it('a compliant pod passes both levels; the oracle agrees', () => {
    const spec = restrictedPod({
      securityContext: {
        seccompProfile: { type: 'RuntimeDefault' },
        sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: '0' }],
      },
      initContainers: [restrictedContainer],
      volumes: [{ name: 'e', emptyDir: {} }, { name: 'd' }],
    });
    expect(checkPodSecurity(spec, {}, 'baseline')).toEqual([]);
    expect(checkPodSecurity(spec, {}, 'restricted')).toEqual([]);
    expect(pssFailures(spec, {}, 'restricted')).toEqual([]);
  });
});

describe('the last check refuses any non-compliant pod in the output, naming the object and field', () => {
  /** A baseline render with one pod template changed by `tamper`. */
  const tampered = (policy: Partial<RenderPolicy>, tamper: (objects: KubeObject[]) => void) => {
    const { objects } = renderSpec({ queue_cpu: 1 }, policy);
    tamper(objects);
    try {
      enforcePodPolicy(objects, policyWith(policy), BASE);
    } catch (err) {
      expect(err).toBeInstanceOf(RenderError);
      return err as RenderError;
    }
    throw new Error('expected a RenderError');
  };
  // biome-ignore lint/suspicious/noExplicitAny: editing rendered JSON
  const template = (objects: KubeObject[], id: string): any =>
    // biome-ignore lint/suspicious/noExplicitAny: editing rendered JSON
    (objects.find((o) => `${o.kind}/${o.metadata.name}` === id)!.spec as any).template;

  it.each<[string, Partial<RenderPolicy>, (objects: KubeObject[]) => void, string]>([
    [
      'hostNetwork on Redis',
      {},
      (o) => {
        template(o, 'Deployment/shop-api-redis').spec.hostNetwork = true;
      },
      'Deployment/shop-api-redis:spec.template.spec.hostNetwork',
    ],
    [
      'a capability on Postgres',
      {},
      (o) => {
        template(o, 'StatefulSet/shop-api-postgres').spec.containers[0].securityContext.capabilities = {
          add: ['sys_admin'],
        };
      },
      'StatefulSet/shop-api-postgres:spec.template.spec.containers[0].securityContext.capabilities.add[0]',
    ],
    [
      'seccomp Unconfined on the queue pod',
      {},
      (o) => {
        template(o, 'Deployment/shop-api-queue').spec.securityContext.seccompProfile.type = 'Unconfined';
      },
      'Deployment/shop-api-queue:spec.template.spec.securityContext.seccompProfile.type',
    ],
    [
      'an AppArmor annotation',
      {},
      (o) => {
        template(o, 'Deployment/shop-api').metadata.annotations[
          'container.apparmor.security.beta.kubernetes.io/app'
        ] = 'unconfined';
      },
      'Deployment/shop-api:spec.template.metadata.annotations["container.apparmor.security.beta.kubernetes.io/app"]',
    ],
    [
      'restricted: Postgres as root',
      { podSecurity: 'restricted' },
      (o) => {
        template(o, 'StatefulSet/shop-api-postgres').spec.securityContext.runAsUser = 0;
      },
      'StatefulSet/shop-api-postgres:spec.template.spec.securityContext.runAsUser',
    ],
    [
      'a gitRepo volume',
      {},
      (o) => {
        template(o, 'Deployment/shop-api').spec.volumes = [{ name: 'g', gitRepo: { repository: 'r' } }];
      },
      'Deployment/shop-api:spec.template.spec.volumes[0].gitRepo',
    ],
    [
      'another deployment’s Postgres claim',
      {},
      (o) => {
        template(o, 'Deployment/shop-api').spec.volumes = [
          { name: 'p', persistentVolumeClaim: { claimName: 'data-billing-postgres-0' } },
        ];
      },
      'Deployment/shop-api:spec.template.spec.volumes[0].persistentVolumeClaim.claimName',
    ],
    [
      'allowPrivilegeEscalation: true',
      {},
      (o) => {
        template(o, 'Deployment/shop-api').spec.containers[0].securityContext.allowPrivilegeEscalation = true;
      },
      'Deployment/shop-api:spec.template.spec.containers[0].securityContext.allowPrivilegeEscalation',
    ],
  ])('%s', (_name, policy, tamper, field) => {
    const err = tampered(policy, tamper);
    expect(err.code).toBe('MOORING_E_RENDER_POLICY');
    expect(err.field).toBe(field);
    expect(err.message.startsWith(`${field.split(':')[0]}: `)).toBe(true);
  });

  it('an untouched render passes it', () => {
    for (const level of ['baseline', 'restricted'] as const) {
      const { objects } = renderSpec({ queue_cpu: 1 }, { podSecurity: level });
      expect(() => enforcePodPolicy(objects, policyWith({ podSecurity: level }), BASE)).not.toThrow();
    }
  });
});
