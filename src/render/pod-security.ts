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
  type PodSecurityLevel,
  BASELINE_CAPABILITIES,
  RESTRICTED_CAPABILITIES,
  SELINUX_TYPES,
  SAFE_SYSCTLS,
  RESTRICTED_VOLUME_TYPES,
} from './pod-security-lists.ts';
import { isObj, member } from './plain-object.ts';

/**
 * The operator's exemptions, each switching off named controls and nothing else:
 * - `allowHostPath`: baseline "HostPath Volumes", and hostPath under restricted "Volume Types";
 * - `allowPrivileged`: baseline "Privileged Containers", restricted "Privilege Escalation", and
 *   "Capabilities" at both levels;
 * - `allowedVolumeTypes`: these types under restricted "Volume Types".
 */
export interface PodSecurityExemptions {
  allowHostPath: boolean;
  allowPrivileged: boolean;
  allowedVolumeTypes: readonly string[];
}

export const NO_EXEMPTIONS: PodSecurityExemptions = {
  allowHostPath: false,
  allowPrivileged: false,
  allowedVolumeTypes: [],
};

/** One field of a pod that a control does not allow. */
export interface PodSecurityViolation {
  /** The level that defines the control. */
  level: PodSecurityLevel;
  /** The control's name in the standard, e.g. "Capabilities". */
  control: string;
  /** The field, from the pod (`spec.containers[1].securityContext.privileged`). */
  path: string;
  /** The offending value (`undefined` when the control requires a value that is absent). */
  value: unknown;
  /** What the control allows there, in words. */
  allowed: string;
  /** How the runtime would read the value, when that is worth saying (`"sys_admin"`: CAP_SYS_ADMIN). */
  note?: string;
}

/** A violation as one line: the field, its value, the control and what it allows. */
export function describeViolation(v: PodSecurityViolation): string {
  const shown = v.value === undefined ? 'absent' : JSON.stringify(v.value);
  const note = v.note ? ` (${v.note})` : '';
  return `${v.path} is ${shown}${note}: Pod Security Standard "${v.level}" (${v.control}) allows ${v.allowed}`;
}

/** A capability as the container runtimes read it: upper-cased, without the `CAP_` prefix. */
export function normalizeCapability(name: string): string {
  const upper = name.toUpperCase();
  return upper.startsWith('CAP_') ? upper.slice(4) : upper;
}

/** What a capability name means to the runtime, when it is not written canonically or is ALL. */
function capabilityNote(name: string): string | undefined {
  const canonical = normalizeCapability(name);
  if (canonical === 'ALL') return 'every capability';
  if (canonical === name) return undefined;
  return BASELINE_CAPABILITIES.includes(canonical)
    ? `the runtime reads it as CAP_${canonical}; write it ${canonical}`
    : `the runtime reads it as CAP_${canonical}`;
}

/** Absent: undefined or null (the API server reads a JSON null as an unset field). */
function absent(v: unknown): v is null | undefined {
  return v === undefined || v === null;
}

/** The elements of a list field: [] when absent; undefined when it is not a list (a violation). */
function listOf(v: unknown): unknown[] | undefined {
  if (absent(v)) return [];
  return Array.isArray(v) ? v : undefined;
}

const quoteList = (values: readonly string[]) => values.map((v) => (v === '' ? '""' : v)).join(', ');

interface Collector {
  out: PodSecurityViolation[];
  add(
    level: PodSecurityLevel,
    control: string,
    path: string,
    value: unknown,
    allowed: string,
    note?: string,
  ): void;
}

function collector(): Collector {
  const out: PodSecurityViolation[] = [];
  return {
    out,
    add: (level, control, path, value, allowed, note) =>
      out.push({ level, control, path, value, allowed, ...(note ? { note } : {}) }),
  };
}

/** A field that is allowed only absent or `false`. */
function falseOnly(c: Collector, level: PodSecurityLevel, control: string, path: string, v: unknown): void {
  if (!absent(v) && v !== false) c.add(level, control, path, v, 'false or absent');
}

/** The securityContext fields shared by pods and containers: seccomp, AppArmor, SELinux, hostProcess. */
function checkCommonContext(c: Collector, sc: unknown, path: string): void {
  falseOnly(
    c,
    'baseline',
    'HostProcess',
    `${path}.windowsOptions.hostProcess`,
    member(member(sc, 'windowsOptions'), 'hostProcess'),
  );
  const seccomp = member(member(sc, 'seccompProfile'), 'type');
  if (!absent(seccomp) && seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') {
    c.add(
      'baseline',
      'Seccomp',
      `${path}.seccompProfile.type`,
      seccomp,
      'RuntimeDefault, Localhost or absent',
    );
  }
  const apparmor = member(member(sc, 'appArmorProfile'), 'type');
  if (!absent(apparmor) && apparmor !== 'RuntimeDefault' && apparmor !== 'Localhost') {
    c.add(
      'baseline',
      'AppArmor',
      `${path}.appArmorProfile.type`,
      apparmor,
      'RuntimeDefault, Localhost or absent',
    );
  }
  const selinux = member(sc, 'seLinuxOptions');
  const type = member(selinux, 'type');
  if (!absent(type) && !(typeof type === 'string' && SELINUX_TYPES.includes(type))) {
    c.add(
      'baseline',
      'SELinux',
      `${path}.seLinuxOptions.type`,
      type,
      `${quoteList(SELINUX_TYPES)} or absent`,
    );
  }
  for (const key of ['user', 'role']) {
    const v = member(selinux, key);
    if (!absent(v) && v !== '')
      c.add('baseline', 'SELinux', `${path}.seLinuxOptions.${key}`, v, '"" or absent');
  }
}

/**
 * The container-level controls of one container's securityContext (`path` names it). The
 * pod-level conditions of restricted "Running as Non-root" and "Seccomp" (a field may be absent
 * when the pod sets it) are the pod check's; here an absent value passes them.
 */
export function checkContainerSecurityContext(
  sc: unknown,
  path: string,
  level: PodSecurityLevel,
  ex: PodSecurityExemptions,
): PodSecurityViolation[] {
  const c = collector();
  if (!absent(sc) && !isObj(sc)) {
    c.add('baseline', 'securityContext', path, sc, 'an object');
    return c.out;
  }
  checkCommonContext(c, sc, path);
  if (!ex.allowPrivileged) {
    falseOnly(c, 'baseline', 'Privileged Containers', `${path}.privileged`, member(sc, 'privileged'));
  }
  const proc = member(sc, 'procMount');
  if (!absent(proc) && proc !== 'Default')
    c.add('baseline', '/proc Mount Type', `${path}.procMount`, proc, 'Default or absent');

  const caps = member(sc, 'capabilities');
  if (!ex.allowPrivileged) {
    if (!absent(caps) && !isObj(caps))
      c.add('baseline', 'Capabilities', `${path}.capabilities`, caps, 'an object');
    const add = listOf(member(caps, 'add'));
    if (add === undefined) {
      c.add('baseline', 'Capabilities', `${path}.capabilities.add`, member(caps, 'add'), 'a list');
    } else {
      add.forEach((cap, i) => {
        const at = `${path}.capabilities.add[${i}]`;
        const note = typeof cap === 'string' ? capabilityNote(cap) : undefined;
        if (!(typeof cap === 'string' && BASELINE_CAPABILITIES.includes(cap))) {
          c.add('baseline', 'Capabilities', at, cap, `only ${quoteList(BASELINE_CAPABILITIES)}`, note);
        } else if (level === 'restricted' && !RESTRICTED_CAPABILITIES.includes(cap)) {
          c.add('restricted', 'Capabilities', at, cap, `only ${quoteList(RESTRICTED_CAPABILITIES)}`);
        }
      });
    }
  }

  if (level !== 'restricted') return c.out;
  if (!ex.allowPrivileged) {
    const ape = member(sc, 'allowPrivilegeEscalation');
    if (ape !== false)
      c.add('restricted', 'Privilege Escalation', `${path}.allowPrivilegeEscalation`, ape, 'false');
    const drop = listOf(member(caps, 'drop'));
    if (drop === undefined || !drop.includes('ALL')) {
      c.add(
        'restricted',
        'Capabilities',
        `${path}.capabilities.drop`,
        member(caps, 'drop'),
        'a list that includes ALL',
      );
    }
  }
  const nonRoot = member(sc, 'runAsNonRoot');
  if (!absent(nonRoot) && nonRoot !== true) {
    c.add(
      'restricted',
      'Running as Non-root',
      `${path}.runAsNonRoot`,
      nonRoot,
      'true or absent (when the pod sets it)',
    );
  }
  checkRunAsUser(c, member(sc, 'runAsUser'), `${path}.runAsUser`);
  return c.out;
}

function checkRunAsUser(c: Collector, v: unknown, path: string): void {
  if (absent(v)) return;
  if (typeof v !== 'number' || !Number.isInteger(v) || v === 0) {
    c.add('restricted', 'Running as Non-root user', path, v, 'a non-zero user id or absent');
  }
}

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
