import type { Volume } from '../contract/index.ts';
import { invalidSpec, policyViolation } from './errors.ts';
import { isDnsLabel, sortKeys } from './labels.ts';
import type { RenderSettings } from './settings.ts';

/**
 * The security policy: what a ResourceSpec may not ask for unless the operator allowed it
 * (`settings.policy`). Refused: hostPath volumes; privileged containers, privilege escalation and
 * CAP_SYS_ADMIN; Bidirectional mount propagation (it needs a privileged container).
 */

/** Every volume source Kubernetes knows; a volume member outside this list is an error. */
const VOLUME_SOURCES: ReadonlySet<string> = new Set([
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
]);

export type KubeVolume = { name: string } & Record<string, unknown>;

/**
 * Checks the ResourceSpec's volumes and returns them as pod volumes. A volume with no source
 * becomes an `emptyDir` (as the API server would default it); more than one source is an error.
 */
export function checkVolumes(
  volumes: ReadonlyArray<Volume> | null | undefined,
  policy: RenderSettings['policy'],
): KubeVolume[] {
  const out: KubeVolume[] = [];
  const seen = new Set<string>();
  (volumes ?? []).forEach((v, i) => {
    const field = `volumes[${i}]`;
    if (!isDnsLabel(v.name))
      throw invalidSpec(`${field}.name`, `${field}.name "${v.name}" is not a DNS-1123 label`);
    if (seen.has(v.name))
      throw invalidSpec(`${field}.name`, `${field}.name "${v.name}" is used by another volume`);
    seen.add(v.name);
    const sources = Object.entries(v).filter(([k, val]) => k !== 'name' && val !== null && val !== undefined);
    for (const [k, val] of sources) {
      if (!VOLUME_SOURCES.has(k))
        throw invalidSpec(`${field}.${k}`, `volume "${v.name}" has unknown member "${k}"`);
      if (typeof val !== 'object' || Array.isArray(val)) {
        throw invalidSpec(`${field}.${k}`, `volume "${v.name}" member "${k}" must be an object`);
      }
    }
    if (sources.length > 1) {
      throw invalidSpec(field, `volume "${v.name}" has ${sources.length} sources; exactly one is allowed`);
    }
    const [source, value] = sources[0] ?? ['emptyDir', {}];
    if (source === 'hostPath' && !policy.allowHostPath) {
      throw policyViolation(`${field}.hostPath`, `hostPath volume "${v.name}" is not allowed`);
    }
    out.push({ name: v.name, [source]: value });
  });
  return out;
}

const ESCALATING_CAPABILITIES: ReadonlySet<string> = new Set(['SYS_ADMIN', 'CAP_SYS_ADMIN']);

/**
 * A container's securityContext: mooring's defaults (`allowPrivilegeEscalation: false`) under the
 * user's own. Privilege (privileged, allowPrivilegeEscalation, CAP_SYS_ADMIN) is refused unless
 * the policy allows it; then the default is dropped, since Kubernetes rejects it next to privilege.
 */
export function containerSecurityContext(
  field: string,
  user: Record<string, unknown> | null | undefined,
  policy: RenderSettings['policy'],
): Record<string, unknown> {
  if (!user) return { allowPrivilegeEscalation: false };
  const caps = user.capabilities as { add?: unknown } | undefined;
  const added = Array.isArray(caps?.add) ? caps.add : [];
  const reasons: string[] = [];
  if (user.privileged === true) reasons.push('privileged: true');
  if (user.allowPrivilegeEscalation === true) reasons.push('allowPrivilegeEscalation: true');
  if (added.some((c) => typeof c === 'string' && ESCALATING_CAPABILITIES.has(c)))
    reasons.push('CAP_SYS_ADMIN');
  if (reasons.length > 0) {
    if (!policy.allowPrivileged) {
      throw policyViolation(
        `${field}.securityContext`,
        `${field} asks for ${reasons.join(', ')}, which is not allowed`,
      );
    }
    return sortKeys({ ...user });
  }
  return sortKeys({ allowPrivilegeEscalation: false, ...user });
}

const PROPAGATION: ReadonlySet<string> = new Set(['None', 'HostToContainer', 'Bidirectional']);

/** Checks a mount's propagation mode: a known value; Bidirectional only when privilege is allowed. */
export function checkMountPropagation(field: string, mode: string, policy: RenderSettings['policy']): void {
  if (!PROPAGATION.has(mode)) {
    throw invalidSpec(field, `${field} "${mode}" must be one of None, HostToContainer, Bidirectional`);
  }
  if (mode === 'Bidirectional' && !policy.allowPrivileged) {
    throw policyViolation(
      field,
      `${field} "Bidirectional" needs a privileged container, which is not allowed`,
    );
  }
}
