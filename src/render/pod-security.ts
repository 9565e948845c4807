/**
 * The Kubernetes Pod Security Standards (PSS), `latest` version
 * (https://kubernetes.io/docs/concepts/security/pod-security-standards/), as a check of a whole
 * pod: its spec and its annotations. Each control is implemented by its definition: the fields it
 * restricts and the values it allows, everything else refused (a value of the wrong type too: this
 * check fails closed). Where the runtime reads a value more loosely than the API server does
 * (capability names: any case, optional `CAP_` prefix), the allowed values are the canonical ones,
 * as the PodSecurity admission controller compares them; a loose spelling of an allowed value is
 * refused, never silently accepted or rewritten.
 *
 * Mooring's exemptions (`PodSecurityExemptions`) switch off named controls, nothing else.
 */

import {
  absent,
  checkCommonContext,
  checkContainerSecurityContext,
  checkRunAsUser,
  collector,
  falseOnly,
  listOf,
  NO_EXEMPTIONS,
  type PodSecurityExemptions,
  type PodSecurityViolation,
} from './pod-security-context.ts';
import { type PodSecurityLevel, SAFE_SYSCTLS, RESTRICTED_VOLUME_TYPES } from '../pod-security-lists.ts';
import { isObj, member } from './plain-object.ts';

export {
  checkContainerSecurityContext,
  describeViolation,
  NO_EXEMPTIONS,
  normalizeCapability,
  type PodSecurityExemptions,
  type PodSecurityViolation,
} from './pod-security-context.ts';

const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'] as const;
const APPARMOR_ANNOTATION = 'container.apparmor.security.beta.kubernetes.io/';
const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_ANNOTATION = 'container.seccomp.security.alpha.kubernetes.io/';

/**
 * The source types of one volume: its members other than `name` that are set. None: an emptyDir
 * (as the API server defaults it).
 */
export function volumeTypes(volume: unknown): string[] {
  if (!isObj(volume)) return [];
  const types = Object.keys(volume).filter((k) => k !== 'name' && !absent(volume[k]));
  return types.length > 0 ? types : ['emptyDir'];
}

/**
 * Checks a pod against a level of the Pod Security Standards, with mooring's exemptions. `spec`
 * is the pod's spec (a template's `spec`), `annotations` the pod's. Paths start at the pod
 * (`spec.…`, `metadata.annotations[…]`). Returns every violation; none: the pod satisfies the level.
 */
export function checkPodSecurity(
  spec: unknown,
  annotations: Readonly<Record<string, unknown>> | null | undefined,
  level: PodSecurityLevel,
  ex: PodSecurityExemptions = NO_EXEMPTIONS,
): PodSecurityViolation[] {
  const c = collector();
  if (!isObj(spec)) {
    c.add('baseline', 'pod', 'spec', spec, 'an object');
    return c.out;
  }
  for (const key of ['hostNetwork', 'hostPID', 'hostIPC']) {
    falseOnly(c, 'baseline', 'Host Namespaces', `spec.${key}`, spec[key]);
  }
  const podSc = spec.securityContext;
  if (!absent(podSc) && !isObj(podSc))
    c.add('baseline', 'securityContext', 'spec.securityContext', podSc, 'an object');
  checkCommonContext(c, podSc, 'spec.securityContext');
  const sysctls = listOf(member(podSc, 'sysctls'));
  if (sysctls === undefined) {
    c.add('baseline', 'Sysctls', 'spec.securityContext.sysctls', member(podSc, 'sysctls'), 'a list');
  } else {
    sysctls.forEach((s, i) => {
      const name = member(s, 'name');
      if (!(typeof name === 'string' && SAFE_SYSCTLS.includes(name))) {
        c.add(
          'baseline',
          'Sysctls',
          `spec.securityContext.sysctls[${i}].name`,
          name,
          `only ${SAFE_SYSCTLS.join(', ')}`,
        );
      }
    });
  }

  for (const [key, value] of Object.entries(annotations ?? {})) {
    const path = `metadata.annotations[${JSON.stringify(key)}]`;
    if (key.startsWith(APPARMOR_ANNOTATION)) {
      const ok = value === 'runtime/default' || (typeof value === 'string' && value.startsWith('localhost/'));
      if (!ok) c.add('baseline', 'AppArmor', path, value, 'runtime/default, localhost/<profile> or absent');
    }
    // The seccomp annotations of Kubernetes before 1.19 (the standard's v1.0-v1.18 definition).
    if (key === SECCOMP_POD_ANNOTATION || key.startsWith(SECCOMP_CONTAINER_ANNOTATION)) {
      const ok =
        value === 'runtime/default' ||
        value === 'docker/default' ||
        (typeof value === 'string' && value.startsWith('localhost/'));
      if (!ok)
        c.add(
          'baseline',
          'Seccomp',
          path,
          value,
          'runtime/default, docker/default, localhost/<profile> or absent',
        );
    }
  }

  const volumes = listOf(spec.volumes);
  if (volumes === undefined) c.add('baseline', 'volumes', 'spec.volumes', spec.volumes, 'a list');
  (volumes ?? []).forEach((v, i) => {
    for (const type of volumeTypes(v)) {
      const path = `spec.volumes[${i}].${type}`;
      if (type === 'hostPath') {
        if (!ex.allowHostPath)
          c.add('baseline', 'HostPath Volumes', path, member(v, type), 'no hostPath volume');
        continue;
      }
      if (
        level === 'restricted' &&
        !RESTRICTED_VOLUME_TYPES.includes(type) &&
        !ex.allowedVolumeTypes.includes(type)
      ) {
        c.add(
          'restricted',
          'Volume Types',
          path,
          member(v, type),
          `only ${RESTRICTED_VOLUME_TYPES.join(', ')} volumes`,
        );
      }
    }
  });

  const podNonRoot = member(podSc, 'runAsNonRoot');
  const podSeccomp = member(member(podSc, 'seccompProfile'), 'type');
  const podSeccompSet = podSeccomp === 'RuntimeDefault' || podSeccomp === 'Localhost';
  if (level === 'restricted') {
    if (!absent(podNonRoot) && podNonRoot !== true) {
      c.add(
        'restricted',
        'Running as Non-root',
        'spec.securityContext.runAsNonRoot',
        podNonRoot,
        'true or absent (when every container sets it)',
      );
    }
    checkRunAsUser(c, member(podSc, 'runAsUser'), 'spec.securityContext.runAsUser');
  }

  for (const list of CONTAINER_LISTS) {
    const containers = listOf(spec[list]);
    if (containers === undefined) {
      c.add('baseline', 'containers', `spec.${list}`, spec[list], 'a list');
      continue;
    }
    containers.forEach((container, i) => {
      const path = `spec.${list}[${i}]`;
      const sc = member(container, 'securityContext');
      c.out.push(...checkContainerSecurityContext(sc, `${path}.securityContext`, level, ex));
      const ports = listOf(member(container, 'ports'));
      if (ports === undefined)
        c.add('baseline', 'Host Ports', `${path}.ports`, member(container, 'ports'), 'a list');
      (ports ?? []).forEach((p, j) => {
        const hostPort = member(p, 'hostPort');
        if (!absent(hostPort) && hostPort !== 0) {
          c.add('baseline', 'Host Ports', `${path}.ports[${j}].hostPort`, hostPort, '0 or absent');
        }
      });
      if (level !== 'restricted') return;
      if (podNonRoot !== true && member(sc, 'runAsNonRoot') !== true) {
        c.add(
          'restricted',
          'Running as Non-root',
          `${path}.securityContext.runAsNonRoot`,
          member(sc, 'runAsNonRoot'),
          'true (the pod does not set it)',
        );
      }
      const seccomp = member(member(sc, 'seccompProfile'), 'type');
      if (!podSeccompSet && seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') {
        c.add(
          'restricted',
          'Seccomp',
          `${path}.securityContext.seccompProfile.type`,
          seccomp,
          'RuntimeDefault or Localhost (the pod sets neither)',
        );
      }
    });
  }
  return c.out;
}
