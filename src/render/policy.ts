import { RenderError, invalidSpec, policyViolation } from './errors.ts';
import { sortKeys } from './labels.ts';
import { isObj, member, type Obj } from './plain-object.ts';
import {
  checkContainerSecurityContext,
  checkPodSecurity,
  describeViolation,
  normalizeCapability,
  type PodSecurityExemptions,
  type PodSecurityViolation,
  volumeTypes,
} from './pod-security.ts';
import type { PodSecurityLevel } from '../pod-security-lists.ts';
import type { RenderPolicy } from './settings.ts';
import type { RenderedObject } from './types.ts';
import { volumeRefusal } from './volume-policy.ts';
import { podTemplates } from './pod-templates.ts';

/**
 * The security policy (docs/configuration.md, "Policy"). Every rendered pod must satisfy the Pod
 * Security Standard `policy.podSecurity` (baseline by default, or restricted), less the controls
 * the operator exempted (`allowHostPath`, `allowPrivileged`, `allowedVolumeTypes`). On top of the
 * standard, mooring refuses: volume types outside its allow-list (gitRepo and flexVolume always),
 * ephemeral claims that bind a pre-made PersistentVolume, claims of another deployment's bundled
 * Postgres, inline CSI drivers and podCertificate sources the operator did not allow (volume-policy.ts),
 * `allowPrivilegeEscalation: true` and Bidirectional mount propagation (both unless
 * `allowPrivileged`); pod label and annotation keys pass pod-metadata-policy.ts.
 *
 * Two layers. The ResourceSpec's parts are checked as they are converted, so that a refusal names
 * the ResourceSpec field (`sidecars[0].securityContext.capabilities.add[0]`). Then every pod
 * template of the result is checked whole (`enforcePodPolicy`), whatever built it: a pod that does
 * not comply is never returned, even if an earlier check missed something.
 */

/** The exemptions of the Pod Security Standards check that `policy` grants. */
export function exemptionsOf(policy: RenderPolicy): PodSecurityExemptions {
  return {
    allowHostPath: policy.allowHostPath,
    allowPrivileged: policy.allowPrivileged,
    allowedVolumeTypes: policy.allowedVolumeTypes,
  };
}

/** Members of a container securityContext (Kubernetes core/v1 SecurityContext), nested ones too. */
const SECURITY_CONTEXT_MEMBERS: Record<string, readonly string[] | null> = {
  allowPrivilegeEscalation: null,
  appArmorProfile: ['localhostProfile', 'type'],
  capabilities: ['add', 'drop'],
  privileged: null,
  procMount: null,
  readOnlyRootFilesystem: null,
  runAsGroup: null,
  runAsNonRoot: null,
  runAsUser: null,
  seLinuxOptions: ['level', 'role', 'type', 'user'],
  seccompProfile: ['localhostProfile', 'type'],
  windowsOptions: ['gmsaCredentialSpec', 'gmsaCredentialSpecName', 'hostProcess', 'runAsUserName'],
};

/** A copy without null members (the API server reads null as unset), at every object depth. */
function withoutNulls(o: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === null || v === undefined) continue;
    out[k] = isObj(v) ? withoutNulls(v) : v;
  }
  return out;
}

/**
 * Refuses members a SecurityContext does not have, at its top and one level down: a misspelt or
 * differently cased field (`Privileged`) would be dropped by a case-sensitive API server but read
 * by an older, case-insensitive one; neither is what the spec's author can see.
 */
function checkSecurityContextMembers(field: string, sc: Obj): void {
  for (const [k, v] of Object.entries(sc)) {
    if (!Object.hasOwn(SECURITY_CONTEXT_MEMBERS, k))
      throw invalidSpec(`${field}.${k}`, `${field} has unknown member "${k}"`);
    const nested = SECURITY_CONTEXT_MEMBERS[k];
    if (!nested) continue;
    if (!isObj(v)) throw invalidSpec(`${field}.${k}`, `${field}.${k} must be an object`);
    for (const n of Object.keys(v)) {
      if (!nested.includes(n))
        throw invalidSpec(`${field}.${k}.${n}`, `${field}.${k} has unknown member "${n}"`);
    }
  }
}

/**
 * The securityContext mooring gives a container of its own at `level`: no privilege escalation;
 * under restricted also every capability dropped and `runAsNonRoot` (app containers; the bundled
 * datastores set the user on the pod instead).
 */
export function defaultContainerSecurityContext(
  level: PodSecurityLevel,
  opts: { runAsNonRoot: boolean } = { runAsNonRoot: true },
): Record<string, unknown> {
  if (level !== 'restricted') return { allowPrivilegeEscalation: false };
  return sortKeys({
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    ...(opts.runAsNonRoot ? { runAsNonRoot: true } : {}),
  });
}

/** Whether a securityContext asks for what Kubernetes refuses next to `allowPrivilegeEscalation: false`. */
function asksForPrivilege(sc: Obj): boolean {
  const add = member(sc.capabilities, 'add');
  return (
    sc.privileged === true ||
    sc.allowPrivilegeEscalation === true ||
    (Array.isArray(add) && add.some((c) => typeof c === 'string' && normalizeCapability(c) === 'SYS_ADMIN'))
  );
}

/** A violation as a refusal naming the ResourceSpec field. */
function refusal(v: PodSecurityViolation, exemptedBy?: string): RenderError {
  return policyViolation(v.path, `${describeViolation(v)}${exemptedBy ? `; ${exemptedBy} exempts it` : ''}`);
}

/** The setting that would exempt a control, for messages. */
function exemptingSetting(control: string): string | undefined {
  if (['Privileged Containers', 'Privilege Escalation', 'Capabilities'].includes(control))
    return 'policy.allowPrivileged';
  if (control === 'HostPath Volumes') return 'policy.allowHostPath';
  if (control === 'Volume Types') return 'policy.allowedVolumeTypes';
  return undefined;
}

/**
 * A user container's securityContext: mooring's defaults (`defaultContainerSecurityContext`)
 * under the user's own, which may tighten them but not loosen them: the result is checked against
 * the Pod Security Standard of `policy`, and a value it does not allow is refused naming the
 * ResourceSpec field. Null members count as absent. When the container asks for privilege and the
 * policy allows it, the `allowPrivilegeEscalation: false` default is left out, since Kubernetes
 * rejects it next to `privileged: true` or CAP_SYS_ADMIN.
 */
export function containerSecurityContext(
  field: string,
  user: Record<string, unknown> | null | undefined,
  policy: RenderPolicy,
): Record<string, unknown> {
  const level = policy.podSecurity;
  const path = `${field}.securityContext`;
  const own = isObj(user) ? withoutNulls(user) : {};
  checkSecurityContextMembers(path, own);
  const defaults = defaultContainerSecurityContext(level);
  if (asksForPrivilege(own)) {
    if (!policy.allowPrivileged) {
      // Privileged and CAP_SYS_ADMIN are named by the standard's check below; escalation is mooring's rule.
      if (own.allowPrivilegeEscalation === true && own.privileged !== true) {
        throw policyViolation(
          `${path}.allowPrivilegeEscalation`,
          `${path}.allowPrivilegeEscalation is true, which is not allowed; policy.allowPrivileged exempts it`,
        );
      }
    } else {
      delete defaults.allowPrivilegeEscalation;
    }
  }
  const merged: Obj = { ...defaults, ...own };
  const ownCaps = own.capabilities;
  if (isObj(ownCaps) && isObj(defaults.capabilities)) {
    merged.capabilities = sortKeys({ ...defaults.capabilities, ...ownCaps });
  }
  const violation = checkContainerSecurityContext(merged, path, level, exemptionsOf(policy))[0];
  if (violation) throw refusal(violation, exemptingSetting(violation.control));
  return sortKeys(merged);
}

const PROPAGATION: ReadonlySet<string> = new Set(['None', 'HostToContainer', 'Bidirectional']);

/** Checks a mount's propagation mode: a known value; Bidirectional only when privilege is allowed. */
export function checkMountPropagation(field: string, mode: string, policy: RenderPolicy): void {
  if (!PROPAGATION.has(mode)) {
    throw invalidSpec(field, `${field} "${mode}" must be one of None, HostToContainer, Bidirectional`);
  }
  if (mode === 'Bidirectional' && !policy.allowPrivileged) {
    throw policyViolation(
      field,
      `${field} "Bidirectional" needs a privileged container, which is not allowed; policy.allowPrivileged exempts it`,
    );
  }
}

/**
 * Checks the ResourceSpec's pod annotations against the standard's annotation controls (AppArmor,
 * and the seccomp annotations of old Kubernetes versions): they go on every pod.
 */
export function checkPodAnnotations(annotations: Record<string, string>, policy: RenderPolicy): void {
  const violation = checkPodSecurity({}, annotations, policy.podSecurity, exemptionsOf(policy))[0];
  if (violation) {
    const path = violation.path.replace(/^metadata\./, '');
    throw refusal({ ...violation, path });
  }
}

/** Mooring's own rules on a whole pod spec: volumes, escalation, Bidirectional mounts. */
function mooringPodRefusals(
  spec: unknown,
  policy: RenderPolicy,
  ownBase: string,
): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  const volumes = member(spec, 'volumes');
  if (Array.isArray(volumes)) {
    volumes.forEach((v, i) => {
      const name = String(member(v, 'name'));
      for (const type of volumeTypes(v)) {
        const r = volumeRefusal(name, type, member(v, type), policy, ownBase);
        if (r) out.push({ path: `spec.volumes[${i}].${r.member}`, message: r.message });
      }
    });
  }
  if (policy.allowPrivileged) return out;
  for (const list of ['containers', 'initContainers', 'ephemeralContainers']) {
    const containers = member(spec, list);
    if (!Array.isArray(containers)) continue;
    containers.forEach((c, i) => {
      const path = `spec.${list}[${i}]`;
      if (member(member(c, 'securityContext'), 'allowPrivilegeEscalation') === true) {
        out.push({
          path: `${path}.securityContext.allowPrivilegeEscalation`,
          message: 'allowPrivilegeEscalation is true, which is not allowed',
        });
      }
      const mounts = member(c, 'volumeMounts');
      (Array.isArray(mounts) ? mounts : []).forEach((m, j) => {
        if (member(m, 'mountPropagation') === 'Bidirectional') {
          out.push({
            path: `${path}.volumeMounts[${j}].mountPropagation`,
            message: 'Bidirectional mount propagation is not allowed',
          });
        }
      });
    });
  }
  return out;
}

/**
 * The last check: every pod template of the rendered objects against the Pod Security Standard of
 * `policy` (with its exemptions) and mooring's own rules. Throws MOORING_E_RENDER_POLICY naming
 * the object and the field in it (`Deployment/shop-redis:spec.template.spec.hostNetwork`).
 */
export function enforcePodPolicy(
  objects: readonly RenderedObject[],
  policy: RenderPolicy,
  ownBase: string,
): void {
  for (const o of objects) {
    for (const t of podTemplates(o)) {
      const id = `${o.kind}/${o.metadata?.name}`;
      const annotations = isObj(t.annotations) ? t.annotations : undefined;
      const violation = checkPodSecurity(t.spec, annotations, policy.podSecurity, exemptionsOf(policy))[0];
      if (violation) {
        const exempt = exemptingSetting(violation.control);
        throw new RenderError(
          'MOORING_E_RENDER_POLICY',
          `${id}:${t.path}${violation.path}`,
          `${id}: ${t.path}${describeViolation(violation)}${exempt ? `; ${exempt} exempts it` : ''}`,
        );
      }
      const own = mooringPodRefusals(t.spec, policy, ownBase)[0];
      if (own) {
        throw new RenderError(
          'MOORING_E_RENDER_POLICY',
          `${id}:${t.path}${own.path}`,
          `${id}: ${t.path}${own.path}: ${own.message}`,
        );
      }
    }
  }
}
