/**
 * An RBAC evaluator for the chart's Roles, and the documented list of what the agent may do.
 *
 * `rolesAllow` answers as the Kubernetes RBAC authorizer would for namespaced Roles (and
 * ClusterRoles, for completeness): a request is allowed when one rule of one role matches its
 * verb, API group, resource, namespace and (when the rule lists resourceNames) name. The
 * integration suite feeds it the sandbox's request log to prove the agent never needs more than
 * the chart grants; the chart tests prove the chart grants nothing beyond the documented set.
 */

/** One rule of a Role or ClusterRole (rbac.authorization.k8s.io/v1 PolicyRule). */
export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** A Role or ClusterRole, as rendered. A Role grants only in its own namespace. */
export interface RoleLike {
  kind: string;
  metadata: { name?: string; namespace?: string };
  rules?: PolicyRule[] | null;
}

/**
 * One API request, as the sandbox logs it. `verb` is one of get list watch create update patch
 * apply delete (plus deletecollection); `apply` is authorized as `patch`, as in Kubernetes.
 * `group` is '' for the core group; `resource` is the plural (with `/subresource` if any);
 * `namespace` is '' (or absent) for cluster-scoped requests.
 */
export interface AccessRequest {
  verb: string;
  group: string;
  resource: string;
  namespace?: string;
  name?: string;
}

/** Verbs authorized without a name, so a rule limited to resourceNames never matches them. */
const UNNAMED_VERBS = new Set(['create', 'list', 'watch', 'deletecollection']);

function matches(list: readonly string[] | undefined, value: string): boolean {
  return (list ?? []).some((item) => item === '*' || item === value);
}

/** The verb the authorizer sees: server-side apply is a PATCH. */
export function authorizationVerb(verb: string): string {
  return verb === 'apply' ? 'patch' : verb;
}

/**
 * The namespace the authorizer sees. GET /api/v1/namespaces/X is a request *in* namespace X (the
 * API server sets it so), which is why a Role in X can grant `get` on the namespace X itself.
 */
function requestNamespace(request: AccessRequest): string {
  if (request.group === '' && request.resource === 'namespaces' && request.name && !request.namespace) {
    return request.name;
  }
  return request.namespace ?? '';
}

function ruleAllows(rule: PolicyRule, request: AccessRequest, verb: string): boolean {
  if (!matches(rule.verbs, verb)) return false;
  if (!matches(rule.apiGroups, request.group)) return false;
  if (!matches(rule.resources, request.resource)) return false;
  const names = rule.resourceNames ?? [];
  if (names.length === 0) return true;
  if (UNNAMED_VERBS.has(verb) || !request.name) return false;
  return names.includes(request.name);
}

/** True when one of `roles` allows `request` (the roles are assumed bound to the subject). */
export function rolesAllow(roles: readonly RoleLike[], request: AccessRequest): boolean {
  const verb = authorizationVerb(request.verb);
  const namespace = requestNamespace(request);
  return roles.some((role) => {
    if (role.kind === 'Role') {
      // A Role never grants a cluster-scoped request, and only in its own namespace.
      if (namespace === '' || role.metadata.namespace !== namespace) return false;
    } else if (role.kind !== 'ClusterRole') {
      return false;
    }
    return (role.rules ?? []).some((rule) => ruleAllows(rule, request, verb));
  });
}

/** A subject of a RoleBinding. */
export interface ServiceAccountRef {
  name: string;
  namespace: string;
}

interface BindingLike {
  kind: string;
  metadata: { namespace?: string };
  roleRef: { kind: string; name: string };
  subjects?: Array<{ kind: string; name: string; namespace?: string }>;
}

/**
 * The Roles (and ClusterRoles) that bindings among `objects` bind to `serviceAccount`, as
 * {@link rolesAllow} wants them. A RoleBinding to a ClusterRole grants it in the binding's
 * namespace only, so it comes back as a Role of that namespace.
 */
export function boundRoles(
  objects: readonly { kind: string }[],
  serviceAccount: ServiceAccountRef,
): RoleLike[] {
  const roles = objects.filter((o): o is RoleLike => o.kind === 'Role' || o.kind === 'ClusterRole');
  const bindings = objects.filter(
    (o): o is BindingLike => o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding',
  );
  const out: RoleLike[] = [];
  for (const binding of bindings) {
    const bindsSubject = (binding.subjects ?? []).some(
      (s) =>
        s.kind === 'ServiceAccount' &&
        s.name === serviceAccount.name &&
        s.namespace === serviceAccount.namespace,
    );
    if (!bindsSubject) continue;
    const bindingNamespace = binding.metadata.namespace;
    const role = roles.find(
      (r) =>
        r.kind === binding.roleRef.kind &&
        r.metadata.name === binding.roleRef.name &&
        (r.kind === 'ClusterRole' || r.metadata.namespace === bindingNamespace),
    );
    if (!role) continue;
    if (binding.kind === 'RoleBinding' && role.kind === 'ClusterRole') {
      out.push({
        kind: 'Role',
        metadata: { name: role.metadata.name, namespace: bindingNamespace },
        rules: role.rules,
      });
    } else {
      out.push(role);
    }
  }
  return out;
}

/** A documented permission: these verbs on this group/resource. */
export interface Permission {
  group: string;
  resource: string;
  verbs: readonly string[];
  /** Only on objects of these names; `'$namespace'` stands for the watched namespace itself. */
  names?: readonly string[];
  why: string;
}

/** Read, list, server-side apply (a patch; a create when new) and delete: never PUT. */
const OBJECT_VERBS = ['get', 'list', 'create', 'patch', 'delete'] as const;

/** The same, and watched (ADR 0014): the kinds a cycle lists. */
const LISTED_OBJECT_VERBS = ['get', 'list', 'watch', 'create', 'patch', 'delete'] as const;

/**
 * What the agent does in every watched namespace (the documented set; see the chart README);
 * with `watch` off (the chart's `watch: false`), nothing is watched.
 */
export function watchedNamespacePermissions(options: {
  deleteVolumes: boolean;
  watch?: boolean;
}): Permission[] {
  return WATCHED_NAMESPACE_PERMISSIONS.map((p) =>
    p.resource === 'persistentvolumeclaims' && options.deleteVolumes
      ? { ...p, verbs: ['list', 'watch', 'delete'] }
      : p,
  ).map((p) => (options.watch === false ? { ...p, verbs: p.verbs.filter((v) => v !== 'watch') } : p));
}

/** The watched-namespace set with `deleteVolumes` off (the chart's default). */
export const WATCHED_NAMESPACE_PERMISSIONS: readonly Permission[] = [
  {
    group: 'apps',
    resource: 'deployments',
    verbs: LISTED_OBJECT_VERBS,
    why: 'API server and worker Deployments',
  },
  { group: 'apps', resource: 'statefulsets', verbs: LISTED_OBJECT_VERBS, why: 'Postgres StatefulSet' },
  { group: '', resource: 'services', verbs: LISTED_OBJECT_VERBS, why: 'Services of the components' },
  { group: '', resource: 'secrets', verbs: LISTED_OBJECT_VERBS, why: 'env and Postgres credential Secrets' },
  {
    group: '',
    resource: 'persistentvolumeclaims',
    verbs: ['list', 'watch'],
    why: 'find (and, with deleteVolumes, remove) Postgres volumes',
  },
  {
    group: 'autoscaling',
    resource: 'horizontalpodautoscalers',
    verbs: LISTED_OBJECT_VERBS,
    why: 'autoscalers',
  },
  {
    group: 'policy',
    resource: 'poddisruptionbudgets',
    verbs: LISTED_OBJECT_VERBS,
    why: 'PDBs of scaled services',
  },
  {
    group: 'networking.k8s.io',
    resource: 'networkpolicies',
    verbs: LISTED_OBJECT_VERBS,
    why: 'Redis/Postgres isolation',
  },
  { group: '', resource: 'events', verbs: ['create'], why: 'per-deployment outcome Events' },
  {
    group: '',
    resource: 'namespaces',
    verbs: ['get'],
    names: ['$namespace'],
    why: 'check at start that the namespace exists',
  },
];

/** What the agent does in a watched namespace with exposure on, by `rendering.exposure.kind`. */
export const EXPOSURE_PERMISSIONS: Readonly<Record<'ingress' | 'httproute', Permission>> = {
  ingress: {
    group: 'networking.k8s.io',
    resource: 'ingresses',
    verbs: OBJECT_VERBS,
    why: 'exposure at custom_url (only with `rendering.exposure.kind: ingress`)',
  },
  httproute: {
    group: 'gateway.networking.k8s.io',
    resource: 'httproutes',
    verbs: OBJECT_VERBS,
    why: 'exposure at custom_url (only with `rendering.exposure.kind: httproute`)',
  },
};

/**
 * What the agent does in a watched namespace with each exposure kind it does not use: at start it
 * lists them once and deletes what an earlier exposure setting left (exposure-check.ts).
 */
export const EXPOSURE_LEFTOVER_PERMISSIONS: Readonly<Record<'ingress' | 'httproute', Permission>> = {
  ingress: {
    group: 'networking.k8s.io',
    resource: 'ingresses',
    verbs: ['list', 'delete'],
    why: 'remove the Ingresses an earlier exposure setting left (unless `rendering.exposure.kind: ingress`)',
  },
  httproute: {
    group: 'gateway.networking.k8s.io',
    resource: 'httproutes',
    verbs: ['list', 'delete'],
    why: 'remove the HTTPRoutes an earlier exposure setting left (unless `rendering.exposure.kind: httproute`; only where the cluster serves the Gateway API)',
  },
};

/** What the agent does in its own (release) namespace: the leader Lease, the restart memo. */
export function releaseNamespacePermissions(options: {
  leaderElection: boolean;
  leaseName: string;
  /** The restart memo's ConfigMap; none when undefined. */
  restartMemo?: string | undefined;
}): Permission[] {
  // Each is one object the agent reads, creates once and replaces: `create` (not limited by name)
  // and `get`, `update` on its name.
  const ownObject = (group: string, resource: string, name: string, created: string, kept: string) => [
    { group, resource, verbs: ['create'], why: created },
    { group, resource, verbs: ['get', 'update'], names: [name], why: kept },
  ];
  const permissions: Permission[] = [];
  if (options.leaderElection) {
    permissions.push(
      ...ownObject(
        'coordination.k8s.io',
        'leases',
        options.leaseName,
        'create the leader Lease',
        'acquire and renew the leader Lease',
      ),
    );
  }
  if (options.restartMemo !== undefined) {
    permissions.push(
      ...ownObject(
        '',
        'configmaps',
        options.restartMemo,
        'create the restart memo ConfigMap',
        'read the restart memo at a start, replace it when the leader stops',
      ),
    );
  }
  return permissions;
}

/** The documented set for one installation, as Roles: the oracle the chart is compared with. */
export function documentedRoles(options: {
  namespaces: readonly string[];
  releaseNamespace: string;
  leaderElection: boolean;
  leaseName: string;
  restartMemo?: string | undefined;
  deleteVolumes?: boolean;
  /** The chart's `watch` (default true). */
  watch?: boolean;
  /** `rendering.exposure.kind`; default none. */
  exposure?: string;
  /** Whether Helm sees the Gateway API's HTTPRoute served (`--api-versions`); default not. */
  gatewayApi?: boolean;
}): RoleLike[] {
  const base = watchedNamespacePermissions({
    deleteVolumes: options.deleteVolumes ?? false,
    watch: options.watch ?? true,
  });
  const exposureKinds = ['ingress', 'httproute'] as const;
  const watched = [
    ...base,
    ...exposureKinds.flatMap((k) => {
      if (k === options.exposure) return [EXPOSURE_PERMISSIONS[k]];
      return k === 'ingress' || options.gatewayApi ? [EXPOSURE_LEFTOVER_PERMISSIONS[k]] : [];
    }),
  ];
  const release = releaseNamespacePermissions(options);
  const toRules = (permissions: readonly Permission[], namespace: string): PolicyRule[] =>
    permissions.map((p) => ({
      apiGroups: [p.group],
      resources: [p.resource],
      verbs: [...p.verbs],
      ...(p.names ? { resourceNames: p.names.map((n) => (n === '$namespace' ? namespace : n)) } : {}),
    }));
  return [
    ...options.namespaces.map((ns) => ({
      kind: 'Role',
      metadata: { namespace: ns },
      rules: toRules(watched, ns),
    })),
    // No Role at all in the release namespace when there is nothing to grant there.
    ...(release.length === 0
      ? []
      : [
          {
            kind: 'Role',
            metadata: { namespace: options.releaseNamespace },
            rules: toRules(release, options.releaseNamespace),
          },
        ]),
  ];
}
