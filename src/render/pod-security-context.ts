/**
 * The Pod Security Standards controls on a securityContext (seccomp, AppArmor, SELinux,
 * HostProcess, privileged, capabilities, privilege escalation, running as non-root), shared by the
 * pod check (`pod-security.ts`) and the checks of single ResourceSpec fields; and the shapes of
 * what those checks report.
 */

import {
  type PodSecurityLevel,
  BASELINE_CAPABILITIES,
  RESTRICTED_CAPABILITIES,
  SELINUX_TYPES,
} from '../pod-security-lists.ts';
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
export function absent(v: unknown): v is null | undefined {
  return v === undefined || v === null;
}

/** The elements of a list field: [] when absent; undefined when it is not a list (a violation). */
export function listOf(v: unknown): unknown[] | undefined {
  if (absent(v)) return [];
  return Array.isArray(v) ? v : undefined;
}

export const quoteList = (values: readonly string[]) => values.map((v) => (v === '' ? '""' : v)).join(', ');

export interface Collector {
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

export function collector(): Collector {
  const out: PodSecurityViolation[] = [];
  return {
    out,
    add: (level, control, path, value, allowed, note) =>
      out.push({ level, control, path, value, allowed, ...(note ? { note } : {}) }),
  };
}

/** A field that is allowed only absent or `false`. */
export function falseOnly(
  c: Collector,
  level: PodSecurityLevel,
  control: string,
  path: string,
  v: unknown,
): void {
  if (!absent(v) && v !== false) c.add(level, control, path, v, 'false or absent');
}

/** The securityContext fields shared by pods and containers: seccomp, AppArmor, SELinux, hostProcess. */
export function checkCommonContext(c: Collector, sc: unknown, path: string): void {
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

export function checkRunAsUser(c: Collector, v: unknown, path: string): void {
  if (absent(v)) return;
  if (typeof v !== 'number' || !Number.isInteger(v) || v === 0) {
    c.add('restricted', 'Running as Non-root user', path, v, 'a non-zero user id or absent');
  }
}
