import type { Container, VolumeMount } from '../contract/index.ts';
import { invalidSpec } from './errors.ts';
import { isDnsLabel } from '../objects/dns-names.ts';
import { isQualifiedName, sortKeys } from './labels.ts';
import { checkMountPropagation, containerSecurityContext } from './policy.ts';
import { compareQuantities, parseQuantity } from '../quantity.ts';
import type { RenderPolicy } from './settings.ts';

/**
 * The ResourceSpec's containers (init_containers, sidecars) and volume mounts, checked and
 * turned into Kubernetes form. Free-form members (valueFrom, envFrom items) are passed through:
 * the API server checks their insides.
 */

export type KubeContainer = { name: string } & Record<string, unknown>;
export type KubeVolumeMount = { name: string; mountPath: string } & Record<string, unknown>;

/** Environment variable names every Kubernetes version accepts (C identifier-like). */
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const PULL_POLICIES: ReadonlySet<string> = new Set(['Always', 'IfNotPresent', 'Never']);

export function isEnvName(s: string): boolean {
  return ENV_NAME.test(s);
}

/** Checks volume mounts against the pod's volumes; mount paths must differ. */
export function convertMounts(
  field: string,
  mounts: ReadonlyArray<VolumeMount> | null | undefined,
  volumeNames: ReadonlySet<string>,
  policy: RenderPolicy,
): KubeVolumeMount[] {
  const paths = new Set<string>();
  return (mounts ?? []).map((m, i) => {
    const f = `${field}[${i}]`;
    if (!volumeNames.has(m.name)) throw invalidSpec(`${f}.name`, `${f}.name "${m.name}" has no volume`);
    if (paths.has(m.mountPath)) {
      throw invalidSpec(`${f}.mountPath`, `${f}.mountPath "${m.mountPath}" is mounted twice`);
    }
    paths.add(m.mountPath);
    if (m.subPath && m.subPathExpr) {
      throw invalidSpec(`${f}.subPathExpr`, `${f}: subPath and subPathExpr are mutually exclusive`);
    }
    if (m.mountPropagation) checkMountPropagation(`${f}.mountPropagation`, m.mountPropagation, policy);
    const out: KubeVolumeMount = { mountPath: m.mountPath, name: m.name };
    if (m.mountPropagation) out.mountPropagation = m.mountPropagation;
    if (typeof m.readOnly === 'boolean') out.readOnly = m.readOnly;
    if (m.subPath) out.subPath = m.subPath;
    if (m.subPathExpr) out.subPathExpr = m.subPathExpr;
    return out;
  });
}

/** Canonical quantities of a user container's limits or requests. */
function convertQuantities(
  field: string,
  q: Record<string, string | number> | null | undefined,
): Record<string, string> | undefined {
  if (!q) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(q)) {
    if (!isQualifiedName(k)) throw invalidSpec(`${field}.${k}`, `${field}: "${k}" is not a resource name`);
    const parsed = parseQuantity(v);
    if (!parsed) throw invalidSpec(`${field}.${k}`, `${field}.${k} (${JSON.stringify(v)}) is not a quantity`);
    out[k] = parsed.canonical;
  }
  return Object.keys(out).length > 0 ? sortKeys(out) : undefined;
}

function convertResources(field: string, r: Container['resources']): Record<string, unknown> | undefined {
  if (!r) return undefined;
  const limits = convertQuantities(`${field}.limits`, r.limits);
  const requests = convertQuantities(`${field}.requests`, r.requests);
  for (const [k, req] of Object.entries(requests ?? {})) {
    const lim = limits?.[k];
    if (lim === undefined) continue;
    const a = parseQuantity(lim);
    const b = parseQuantity(req);
    if (a && b && compareQuantities(a.value, b.value) < 0) {
      throw invalidSpec(
        `${field}.limits.${k}`,
        `${field}.limits.${k} (${lim}) must be >= requests.${k} (${req})`,
      );
    }
  }
  if (!limits && !requests) return undefined;
  return { ...(limits ? { limits } : {}), ...(requests ? { requests } : {}) };
}

function convertEnv(field: string, env: Container['env']): Record<string, unknown>[] | undefined {
  if (!env || env.length === 0) return undefined;
  return env.map((e, i) => {
    const f = `${field}[${i}]`;
    if (!isEnvName(e.name))
      throw invalidSpec(`${f}.name`, `${f}.name "${e.name}" is not a valid variable name`);
    if (e.value && e.valueFrom)
      throw invalidSpec(`${f}.valueFrom`, `${f}: value and valueFrom are mutually exclusive`);
    const out: Record<string, unknown> = { name: e.name };
    if (e.value !== null && e.value !== undefined) out.value = e.value;
    if (e.valueFrom) out.valueFrom = e.valueFrom;
    return out;
  });
}

/**
 * One user container in Kubernetes form. `image` defaults to the app's image. `restartPolicy` may
 * only be `Always` (a native sidecar, run as an init container).
 */
export function convertContainer(
  field: string,
  c: Container,
  opts: { appImage: string; volumeNames: ReadonlySet<string>; policy: RenderPolicy },
): KubeContainer {
  if (!isDnsLabel(c.name))
    throw invalidSpec(`${field}.name`, `${field}.name "${c.name}" is not a DNS-1123 label`);
  if (c.imagePullPolicy && !PULL_POLICIES.has(c.imagePullPolicy)) {
    throw invalidSpec(
      `${field}.imagePullPolicy`,
      `${field}.imagePullPolicy "${c.imagePullPolicy}" must be one of Always, IfNotPresent, Never`,
    );
  }
  if (c.restartPolicy && c.restartPolicy !== 'Always') {
    throw invalidSpec(
      `${field}.restartPolicy`,
      `${field}.restartPolicy "${c.restartPolicy}" must be "Always" or absent`,
    );
  }
  const out: KubeContainer = { name: c.name, image: c.image || opts.appImage };
  if (c.imagePullPolicy) out.imagePullPolicy = c.imagePullPolicy;
  if (c.command && c.command.length > 0) out.command = [...c.command];
  if (c.args && c.args.length > 0) out.args = [...c.args];
  if (c.workingDir) out.workingDir = c.workingDir;
  const env = convertEnv(`${field}.env`, c.env);
  if (env) out.env = env;
  if (c.envFrom && c.envFrom.length > 0) out.envFrom = c.envFrom.map((e) => ({ ...e }));
  const resources = convertResources(`${field}.resources`, c.resources);
  if (resources) out.resources = resources;
  if (c.restartPolicy) out.restartPolicy = c.restartPolicy;
  out.securityContext = containerSecurityContext(field, c.securityContext, opts.policy);
  const mounts = convertMounts(`${field}.volumeMounts`, c.volumeMounts, opts.volumeNames, opts.policy);
  if (mounts.length > 0) out.volumeMounts = mounts;
  return out;
}
