/**
 * Mooring's volume rules, beyond the Pod Security Standards: a volume type outside the allow-list
 * (gitRepo and flexVolume always), an ephemeral claim that binds a pre-made PersistentVolume (by
 * name, label selector or an empty storage class), a claim (mounted or cloned) of another
 * deployment's bundled Postgres, an inline CSI volume of a driver the operator did not allow and a
 * projected podCertificate source (unless allowed) are refused; hostPath only with `allowHostPath`. `checkVolumes` applies them to the ResourceSpec, and policy.ts's last
 * check to every rendered pod.
 */
import type { Volume } from '../contract/index.ts';
import { POSTGRES_DEFAULTS } from './defaults.ts';
import { invalidSpec, policyViolation } from './errors.ts';
import { isDnsLabel } from '../objects/dns-names.ts';
import { member } from './plain-object.ts';
import { absent } from './pod-security-context.ts';
import {
  NEVER_ALLOWED_VOLUME_TYPES,
  RESTRICTED_VOLUME_TYPES,
  VOLUME_SOURCES,
} from '../pod-security-lists.ts';
import type { RenderPolicy } from './settings.ts';

export type KubeVolume = { name: string } & Record<string, unknown>;

const KNOWN_VOLUME_SOURCES: ReadonlySet<string> = new Set(VOLUME_SOURCES);

/** The volume types a pod may use under `policy`: the default list, the extra ones, hostPath if allowed. */
export function allowedVolumeTypes(policy: RenderPolicy): ReadonlySet<string> {
  return new Set([
    ...RESTRICTED_VOLUME_TYPES,
    ...policy.allowedVolumeTypes.filter((t) => !NEVER_ALLOWED_VOLUME_TYPES.includes(t)),
    ...(policy.allowHostPath ? ['hostPath'] : []),
  ]);
}

/** The claim template of the bundled Postgres: its claims are `<template>-<base>-postgres-<ordinal>`. */
const POSTGRES_CLAIM = new RegExp(`^${POSTGRES_DEFAULTS.claimTemplate}-(.+)-postgres-[0-9]+$`);

/** The base name of the deployment whose bundled Postgres owns the claim `name`, if it is one. */
export function postgresClaimOwner(name: unknown): string | undefined {
  return typeof name === 'string' ? POSTGRES_CLAIM.exec(name)?.[1] : undefined;
}

/** A refusal of mooring's volume rules: the member (from the volume) and the reason. */
interface VolumeRefusal {
  member: string;
  message: string;
}

/**
 * Mooring's rules for one volume source (beyond the Pod Security Standards): its type must be
 * allowed, an ephemeral claim may not bind a named PersistentVolume, and no claim (mounted or
 * cloned) may be another deployment's bundled Postgres volume.
 */
export function volumeRefusal(
  name: string,
  type: string,
  value: unknown,
  policy: RenderPolicy,
  ownBase: string,
): VolumeRefusal | undefined {
  const volume = `${type} volume "${name}"`;
  if (type === 'gitRepo') {
    return {
      member: type,
      message: `${volume} is never allowed (git runs on the node as root: CVE-2024-10220); clone into an emptyDir from an init container instead`,
    };
  }
  if (type === 'flexVolume') {
    return {
      member: type,
      message: `${volume} is never allowed (its driver runs on the node as root with the pod's options); use a CSI driver`,
    };
  }
  if (type === 'hostPath' && !policy.allowHostPath) {
    return { member: type, message: `hostPath volume "${name}" is not allowed (policy.allowHostPath)` };
  }
  if (!allowedVolumeTypes(policy).has(type)) {
    return {
      member: type,
      message: `${volume} is not allowed: the allowed volume types are ${[...allowedVolumeTypes(policy)].join(', ')} (policy.allowedVolumeTypes adds others)`,
    };
  }
  const foreignClaim = (claim: unknown) => {
    const owner = postgresClaimOwner(claim);
    return owner !== undefined && owner !== ownBase;
  };
  if (type === 'persistentVolumeClaim') {
    const claim = member(value, 'claimName');
    if (foreignClaim(claim)) {
      return {
        member: `${type}.claimName`,
        message: `${volume} uses the claim "${String(claim)}", the bundled Postgres volume of another deployment, which is not allowed`,
      };
    }
  }
  if (type === 'csi') {
    const driver = member(value, 'driver');
    if (typeof driver !== 'string' || !policy.allowedCsiDrivers.includes(driver)) {
      const allowed = policy.allowedCsiDrivers.length > 0 ? policy.allowedCsiDrivers.join(', ') : 'none';
      return {
        member: `${type}.driver`,
        message: `${volume} uses the CSI driver ${JSON.stringify(driver)}, which is not allowed inline (allowed: ${allowed}; policy.allowedCsiDrivers adds drivers)`,
      };
    }
  }
  if (type === 'projected' && !policy.allowPodCertificates) {
    const sources = member(value, 'sources');
    const at = Array.isArray(sources) ? sources.findIndex((s) => !absent(member(s, 'podCertificate'))) : -1;
    if (at >= 0) {
      return {
        member: `${type}.sources[${at}].podCertificate`,
        message: `${volume} has a podCertificate source, a credential for the pod's identity, which is not allowed (policy.allowPodCertificates)`,
      };
    }
  }
  if (type === 'ephemeral') {
    const claimSpec = member(member(value, 'volumeClaimTemplate'), 'spec');
    const pv = member(claimSpec, 'volumeName');
    if (pv !== undefined && pv !== null && pv !== '') {
      return {
        member: `${type}.volumeClaimTemplate.spec.volumeName`,
        message: `${volume} binds the PersistentVolume ${JSON.stringify(pv)} by name, which is not allowed (let the claim be provisioned)`,
      };
    }
    // A selector binds any pre-made PersistentVolume whose labels match (one holding another's
    // data, or a hostPath); an empty class asks for exactly such a pre-made volume.
    if (!absent(member(claimSpec, 'selector'))) {
      return {
        member: `${type}.volumeClaimTemplate.spec.selector`,
        message: `${volume} selects a pre-made PersistentVolume by label, which is not allowed (let the claim be provisioned)`,
      };
    }
    if (member(claimSpec, 'storageClassName') === '') {
      return {
        member: `${type}.volumeClaimTemplate.spec.storageClassName`,
        message: `${volume} has an empty storageClassName, which binds a pre-made PersistentVolume and is not allowed (name a class, or leave it unset for the default)`,
      };
    }
    for (const source of ['dataSource', 'dataSourceRef']) {
      const ref = member(claimSpec, source);
      const kind = member(ref, 'kind');
      if (kind === 'PersistentVolumeClaim' && foreignClaim(member(ref, 'name'))) {
        return {
          member: `${type}.volumeClaimTemplate.spec.${source}.name`,
          message: `${volume} clones the claim "${String(member(ref, 'name'))}", the bundled Postgres volume of another deployment, which is not allowed`,
        };
      }
    }
  }
  return undefined;
}

/**
 * Checks the ResourceSpec's volumes and returns them as pod volumes. A volume with no source
 * becomes an `emptyDir` (as the API server would default it); more than one source is an error.
 * `ownBase` is this deployment's base name (its own Postgres claims are allowed).
 */
export function checkVolumes(
  volumes: ReadonlyArray<Volume> | null | undefined,
  policy: RenderPolicy,
  ownBase: string,
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
      if (!KNOWN_VOLUME_SOURCES.has(k))
        throw invalidSpec(`${field}.${k}`, `volume "${v.name}" has unknown member "${k}"`);
      if (typeof val !== 'object' || Array.isArray(val)) {
        throw invalidSpec(`${field}.${k}`, `volume "${v.name}" member "${k}" must be an object`);
      }
    }
    if (sources.length > 1) {
      throw invalidSpec(field, `volume "${v.name}" has ${sources.length} sources; exactly one is allowed`);
    }
    const [source, value] = sources[0] ?? ['emptyDir', {}];
    const refusal = volumeRefusal(v.name, source, value, policy, ownBase);
    if (refusal) throw policyViolation(`${field}.${refusal.member}`, refusal.message);
    out.push({ name: v.name, [source]: value });
  });
  return out;
}
