import type { DeploymentRecord } from '../contract/index.ts';
import { policyViolation, RenderError } from './errors.ts';
import { objectNames } from './names.ts';
import type { ReferenceSettings } from './reference-settings.ts';
import type { RenderedObject, RenderContext } from './types.ts';
import { isObj } from './plain-object.ts';
import { podTemplates } from './pod-templates.ts';

/**
 * What a deployment may refer to beyond its own objects. A deployment record may come from a
 * compromised control plane or from one tenant of a shared one, so it may not:
 *
 * - run as the agent's own ServiceAccount (or, with an allow-list, any account not on it), nor mint
 *   ServiceAccount tokens through a projected volume unless the operator allows it;
 * - refer to a Secret mooring manages for another deployment (`<base>-env`,
 *   `<base>-postgres-credentials`): any Secret named so that is not this deployment's own; nor,
 *   while Ingresses get certificates from a ClusterIssuer, any `<base>-tls`, its own included;
 *   nor a Secret the operator's settings name (`exposure.tls.secretName`,
 *   `datastoreImagePullSecrets`), in any form;
 * - land in a namespace bound to another tenant.
 *
 * The ResourceSpec and `secret_references` are checked first, so a refusal names the field the
 * user wrote; the rendered pod specs are checked again as a second guard, so a reference that
 * some rendering path adds or passes through unseen is still refused before anything is written.
 * A name here only ever refuses: whether a live object of an allowed name is this deployment's is
 * read from its labels before anything is written (reconcile/identity.ts).
 */

/** Suffixes of the Secret names mooring gives a deployment's objects (names.ts `objectNames`). */
const MANAGED_SECRET_SUFFIXES = ['-env', '-postgres-credentials'] as const;
/** The suffix of the Secret cert-manager fills for a deployment's Ingress (`exposure.tls.clusterIssuer`). */
const TLS_SUFFIX = '-tls';

/** True when `name` is a Secret name mooring would give some deployment. */
export function isManagedSecretName(name: string): boolean {
  return MANAGED_SECRET_SUFFIXES.some((s) => name.length > s.length && name.endsWith(s));
}

/** What a reference check needs to know about the deployment being rendered. */
export interface ReferenceOwner {
  baseName: string;
  namespace: string;
  references: ReferenceSettings;
  /** Secrets the operator's settings name (`operatorSecrets`): no record may refer to them. */
  operatorSecrets?: ReadonlySet<string> | undefined;
  /** Whether Ingresses get `<base>-tls` certificates (`exposure.tls.clusterIssuer`). */
  issuesCertificates?: boolean | undefined;
}

/**
 * The Secrets the operator's settings name for mooring's own use: the Ingress certificate of
 * `exposure.tls.secretName` and the datastores' pull secrets. Records may not refer to them.
 */
export function operatorSecrets(
  settings: Pick<RenderContext['settings'], 'exposure' | 'datastoreImagePullSecrets'>,
): ReadonlySet<string> {
  const out = new Set(settings.datastoreImagePullSecrets ?? []);
  const exposure = settings.exposure;
  if (exposure.kind === 'ingress' && exposure.tls && 'secretName' in exposure.tls)
    out.add(exposure.tls.secretName);
  return out;
}

/** A reference found in a pod spec, or in the part of a ResourceSpec that becomes one. */
type Found =
  | { kind: 'secret'; name: string; at: Segments }
  | { kind: 'token'; at: Segments; volume: string | undefined };

/** Where a reference was found: its path's segments, made into text only when refused. */
type Segments = readonly (string | number)[];

/** Keys whose object value (or list of them) names a Secret in `name`: secretRef, secretKeyRef, imagePullSecrets... */
const SECRET_KEY = /secret/i;

/** A path from its segments: member names joined with dots, list indexes in brackets. */
function pathOf(segments: readonly (string | number)[]): string {
  let s = '';
  for (const seg of segments) s += typeof seg === 'number' ? `[${seg}]` : s === '' ? seg : `.${seg}`;
  return s;
}

/**
 * Collects every Secret name and projected token under `node`, at `at` (segments of the path to
 * it). It walks every member rather than the forms Kubernetes has today (env, envFrom, secret and
 * projected volumes, CSI and other volume plugins' `secretRef`s, pull secrets), so a form it was
 * not told about is still seen. It walks every pod of every render, so the segments of a path are
 * kept only for what it finds, and made into text only for what is refused.
 */
function collect(node: unknown, at: (string | number)[], volume: string | undefined, out: Found[]): void {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      at.push(i);
      collect(node[i], at, volume, out);
      at.pop();
    }
    return;
  }
  if (!isObj(node)) return;
  // for-in with an own-member test: Object.keys' order, without a key array per object walked.
  for (const key in node) {
    if (!Object.hasOwn(node, key)) continue;
    at.push(key);
    collectMember(key, node[key], at, volume, out);
    at.pop();
  }
}

/** The Secret a reference object names (`{name: ...}` under a secret-ish key), at `at` + `index`. */
function collectRef(ref: unknown, at: Segments, index: number | undefined, out: Found[]): void {
  if (!isObj(ref) || typeof ref.name !== 'string') return;
  const where = index === undefined ? [...at, 'name'] : [...at, index, 'name'];
  out.push({ kind: 'secret', name: ref.name, at: where });
}

/** `collect` for one member, `key` (the last of `at`) holding `value`. */
function collectMember(
  key: string,
  value: unknown,
  at: (string | number)[],
  volume: string | undefined,
  out: Found[],
): void {
  if (key === 'serviceAccountToken' && isObj(value)) out.push({ kind: 'token', at: [...at], volume });
  if (key === 'secretName' && typeof value === 'string')
    out.push({ kind: 'secret', name: value, at: [...at] });
  else if (SECRET_KEY.test(key)) {
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) collectRef(value[i], at, i, out);
    else collectRef(value, at, undefined, out);
  }
  collect(value, at, volume, out);
}

/** Collects the references of a pod's volumes (each walked with its name, for messages) and the rest. */
function collectPod(parts: Record<string, unknown>, volumesKey: string, out: Found[]): void {
  const at: (string | number)[] = [];
  for (const key in parts) {
    if (!Object.hasOwn(parts, key)) continue;
    const value = parts[key];
    at.push(key);
    if (key === volumesKey && Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const v: unknown = value[i];
        const name = isObj(v) && typeof v.name === 'string' ? v.name : undefined;
        at.push(i);
        collect(v, at, name, out);
        at.pop();
      }
    } else collectMember(key, value, at, undefined, out);
    at.pop();
  }
}

/** Every Secret a pod spec names (env, envFrom, volumes, projected, CSI and plugin refs, pull secrets), with its path. */
export function secretNamesIn(spec: Record<string, unknown>): { name: string; path: string }[] {
  const found: Found[] = [];
  collectPod(spec, 'volumes', found);
  return found.flatMap((f) => (f.kind === 'secret' ? [{ name: f.name, path: pathOf(f.at) }] : []));
}

/** Whether mooring names a `<base>-tls` Secret for each exposed deployment (cert-manager fills it). */
export function issuesCertificates(settings: Pick<RenderContext['settings'], 'exposure'>): boolean {
  const e = settings.exposure;
  return e.kind === 'ingress' && e.tls !== undefined && 'clusterIssuer' in e.tls;
}

/** Why `found` is refused, the words after its path in the message; undefined when allowed. */
function refusal(found: Found, owner: ReferenceOwner): string | undefined {
  if (found.kind === 'token') {
    if (owner.references.allowServiceAccountTokens) return undefined;
    const volume = found.volume === undefined ? '' : ` (volume "${found.volume}")`;
    return `${volume}: projected ServiceAccount tokens are not allowed`;
  }
  if (owner.operatorSecrets?.has(found.name))
    return ` "${found.name}" is a Secret the operator's settings name for mooring's own use; a deployment may not refer to it`;
  // The Ingress's certificate (cert-manager fills it, without mooring's labels) is the Ingress
  // controller's to read: no record refers to one, not even its own deployment's.
  if (owner.issuesCertificates && found.name.endsWith(TLS_SUFFIX) && found.name.length > TLS_SUFFIX.length)
    return ` "${found.name}" is named like the TLS Secret of an Ingress mooring manages; a deployment may not refer to one`;
  const own = objectNames(owner.baseName);
  const owns: string[] = [own.env, own.postgresCredentials];
  if (!isManagedSecretName(found.name) || owns.includes(found.name)) return undefined;
  return ` "${found.name}" is a Secret mooring manages for another deployment; this deployment may refer only to its own (${owns.join(', ')})`;
}

/** Why running as ServiceAccount `name` is refused, or undefined when it is allowed. */
function accountRefusal(name: string, owner: ReferenceOwner, shown: string): string | undefined {
  const { agentServiceAccount, agentNamespace, serviceAccounts } = owner.references;
  // Unknown, the agent's namespace may be this one: its account's name is refused everywhere.
  if (name === agentServiceAccount && (agentNamespace === undefined || agentNamespace === owner.namespace))
    return `${shown} "${name}" is the agent's own ServiceAccount; a deployment may not run as it`;
  if (serviceAccounts && !serviceAccounts.includes(name)) {
    const allowed = serviceAccounts.length > 0 ? serviceAccounts.join(', ') : 'none';
    return `${shown} "${name}" is not one of the ServiceAccounts deployments may use (${allowed})`;
  }
  return undefined;
}

/** True when `namespace` is not bound to a tenant, or is bound to the deployment's. */
export function tenantMayUse(
  deployment: Pick<DeploymentRecord, 'tenant_id'>,
  namespace: string,
  namespaceTenants: Readonly<Record<string, string>>,
): boolean {
  if (!Object.hasOwn(namespaceTenants, namespace)) return true;
  const bound = namespaceTenants[namespace] ?? '';
  const tenant = typeof deployment.tenant_id === 'string' ? deployment.tenant_id : '';
  return tenant !== '' && tenant.toLowerCase() === bound.toLowerCase();
}

/**
 * Refuses a deployment whose target namespace is bound to another tenant
 * (`references.namespaceTenants`); a namespace not bound takes any tenant. Tenant ids compare
 * case-insensitively (they are UUIDs).
 */
export function checkTenant(
  deployment: Pick<DeploymentRecord, 'tenant_id'>,
  namespace: string,
  references: ReferenceSettings,
): void {
  if (tenantMayUse(deployment, namespace, references.namespaceTenants)) return;
  const tenant = typeof deployment.tenant_id === 'string' ? deployment.tenant_id : '';
  throw new RenderError(
    'MOORING_E_TENANT_MISMATCH',
    'tenant_id',
    `tenant_id "${tenant || '(none)'}" is not the tenant namespace "${namespace}" is bound to; nothing written`,
  );
}

/**
 * Checks what the ResourceSpec and `secret_references` refer to: `service_account_name`, every
 * Secret named in sidecars, init containers, volumes and pull secrets, projected tokens.
 * Throws a RenderError (MOORING_E_RENDER_POLICY) naming the field and the name.
 */
export function checkReferences(
  ctx: Pick<RenderContext, 'deployment' | 'spec' | 'settings' | 'namespace' | 'labels'>,
): void {
  const owner: ReferenceOwner = {
    baseName: ctx.labels.baseName,
    namespace: ctx.namespace,
    references: ctx.settings.references,
    operatorSecrets: operatorSecrets(ctx.settings),
    issuesCertificates: issuesCertificates(ctx.settings),
  };
  const sa = ctx.spec.service_account_name;
  if (sa) {
    const why = accountRefusal(sa, owner, 'service_account_name');
    if (why) throw policyViolation('service_account_name', why);
  }
  const found: Found[] = [];
  const { sidecars, init_containers, volumes, image_pull_secrets } = ctx.spec;
  collectPod({ sidecars, init_containers, volumes, image_pull_secrets }, 'volumes', found);
  for (const f of found) {
    const why = refusal(f, owner); // its path is made into text only when refused
    if (why === undefined) continue;
    const path = pathOf(f.at);
    throw policyViolation(path, `${path}${why}`);
  }
  (ctx.deployment.secret_references ?? []).forEach((r, i) => {
    const field = `secret_references[${i}].secret_name`;
    const why = refusal({ kind: 'secret', name: r.secret_name, at: [] }, owner);
    if (why) throw new RenderError('MOORING_E_RENDER_POLICY', field, `${field}${why}`);
  });
}

/**
 * The second guard: every pod template of the rendered objects (containers, init containers,
 * volumes, pull secrets, its ServiceAccount) is held to the same rules. `details.field` is
 * `<Kind>/<name>:<path in the object>`.
 */
export function checkRenderedReferences(objects: readonly RenderedObject[], owner: ReferenceOwner): void {
  for (const o of objects) {
    for (const t of podTemplates(o)) checkPodReferences(o, t, owner);
  }
}

/** One pod template of `o` held to the reference rules; `details.field` names the object and path. */
function checkPodReferences(
  o: RenderedObject,
  t: { path: string; spec: unknown },
  owner: ReferenceOwner,
): void {
  const spec = t.spec;
  if (!isObj(spec)) return;
  const prefix = `${o.kind}/${o.metadata.name}:${t.path}spec`;
  const fail = (path: string, why: string) => new RenderError('MOORING_E_RENDER_POLICY', path, why);
  for (const key of ['serviceAccountName', 'serviceAccount']) {
    const name = spec[key];
    if (typeof name !== 'string' || name === '') continue;
    const why = accountRefusal(name, owner, `${prefix}.${key}`);
    if (why) throw fail(`${prefix}.${key}`, why);
  }
  const found: Found[] = [];
  collectPod(spec, 'volumes', found);
  for (const f of found) {
    const why = refusal(f, owner);
    if (why === undefined) continue;
    const path = `${prefix}.${pathOf(f.at)}`;
    throw fail(path, `${path}${why}`);
  }
}
