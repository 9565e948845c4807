/**
 * The lists the Pod Security Standards (`latest`) are written in: the levels, the capabilities,
 * SELinux types and sysctls each level allows, and the volume types; plus the volume types mooring
 * refuses whatever the settings. Data only, shared by the renderer's checks (render/pod-security.ts),
 * its settings, and the agent's flags (config/), which must not depend on the renderer.
 */

export const POD_SECURITY_LEVELS = ['baseline', 'restricted'] as const;
export type PodSecurityLevel = (typeof POD_SECURITY_LEVELS)[number];

/** Baseline "Capabilities": what `capabilities.add` may hold (the container runtime's default set). */
export const BASELINE_CAPABILITIES: readonly string[] = [
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
];

/** Restricted "Capabilities": the one capability `capabilities.add` may hold. */
export const RESTRICTED_CAPABILITIES: readonly string[] = ['NET_BIND_SERVICE'];

/** Baseline "SELinux": the allowed `seLinuxOptions.type` values (absent is allowed too). */
export const SELINUX_TYPES: readonly string[] = [
  '',
  'container_t',
  'container_init_t',
  'container_kvm_t',
  'container_engine_t',
];

/** Baseline "Sysctls": the safe set, namespaced and isolated between pods. */
export const SAFE_SYSCTLS: readonly string[] = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
];

/**
 * Restricted "Volume Types": the volume sources a restricted pod may use (`image` since
 * Kubernetes 1.33). Also mooring's default allow-list at every level.
 */
export const RESTRICTED_VOLUME_TYPES: readonly string[] = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'image',
  'persistentVolumeClaim',
  'projected',
  'secret',
];

/** Every volume source Kubernetes knows. */
export const VOLUME_SOURCES: readonly string[] = [
  'awsElasticBlockStore',
  'azureDisk',
  'azureFile',
  'cephfs',
  'cinder',
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'fc',
  'flexVolume',
  'flocker',
  'gcePersistentDisk',
  'gitRepo',
  'glusterfs',
  'hostPath',
  'image',
  'iscsi',
  'nfs',
  'persistentVolumeClaim',
  'photonPersistentDisk',
  'portworxVolume',
  'projected',
  'quobyte',
  'rbd',
  'scaleIO',
  'secret',
  'storageos',
  'vsphereVolume',
];

/**
 * Volume types mooring refuses whatever the settings: `gitRepo` runs git on the node as root
 * (CVE-2024-10220: hooks of the cloned repository run on the host) and `flexVolume` runs a
 * node-installed driver binary as root with the pod's options.
 */
export const NEVER_ALLOWED_VOLUME_TYPES: readonly string[] = ['gitRepo', 'flexVolume'];

/** Volume types `policy.allowedVolumeTypes` may name: known, not hostPath (its own switch), not refused always. */
export const EXTRA_VOLUME_TYPES: readonly string[] = VOLUME_SOURCES.filter(
  (t) => t !== 'hostPath' && !NEVER_ALLOWED_VOLUME_TYPES.includes(t),
);

/**
 * Why `type` cannot be an extra allowed volume type (`policy.allowedVolumeTypes`), or undefined
 * when it can. `hostPathSetting` names the setting that allows hostPath instead.
 */
export function extraVolumeTypeProblem(type: string, hostPathSetting: string): string | undefined {
  if (type === 'hostPath') return `hostPath is allowed by ${hostPathSetting}, not here`;
  if (NEVER_ALLOWED_VOLUME_TYPES.includes(type)) return `${type} volumes are never allowed`;
  if (!EXTRA_VOLUME_TYPES.includes(type))
    return `"${type}" is not a Kubernetes volume type (e.g. nfs, iscsi)`;
  return undefined;
}
