/** The paths of an openapi v3 group-version document: operations with their parameters and GVK. */
import type { ResourceType } from './resources.ts';

type Json = Record<string, unknown>;

const GROUP_PACKAGES: Record<string, string> = {
  '': 'core',
  'networking.k8s.io': 'networking',
  'rbac.authorization.k8s.io': 'rbac',
  'coordination.k8s.io': 'coordination',
};

/** The official definition name of a kind, e.g. `io.k8s.api.apps.v1.Deployment`. */
export function definitionName(type: ResourceType): string {
  return `io.k8s.api.${GROUP_PACKAGES[type.group] ?? type.group}.${type.version}.${type.kind}`;
}

function query(name: string, description: string, type = 'string'): Json {
  return { name, in: 'query', description, schema: { type, uniqueItems: true } };
}

const PARAMS = {
  dryRun: query('dryRun', 'When present, indicates that modifications should not be persisted.'),
  fieldManager: query(
    'fieldManager',
    'fieldManager is a name associated with the actor or entity that is making these changes.',
  ),
  fieldValidation: query(
    'fieldValidation',
    'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values are: Ignore, Warn, Strict.',
  ),
  force: query('force', 'Force is going to "force" Apply requests.', 'boolean'),
  pretty: query('pretty', "If 'true', then the output is pretty printed."),
  labelSelector: query(
    'labelSelector',
    'A selector to restrict the list of returned objects by their labels.',
  ),
  fieldSelector: query(
    'fieldSelector',
    'A selector to restrict the list of returned objects by their fields.',
  ),
  limit: query('limit', 'limit is a maximum number of responses to return for a list call.', 'integer'),
  continue: query(
    'continue',
    'The continue option should be set when retrieving more results from the server.',
  ),
  resourceVersion: query(
    'resourceVersion',
    'resourceVersion sets a constraint on what resource versions a request may be served from.',
  ),
  watch: query('watch', 'Watch for changes to the described resources.', 'boolean'),
  timeoutSeconds: query('timeoutSeconds', 'Timeout for the list/watch call.', 'integer'),
  allowWatchBookmarks: query(
    'allowWatchBookmarks',
    'allowWatchBookmarks requests watch events with type "BOOKMARK".',
    'boolean',
  ),
  propagationPolicy: query(
    'propagationPolicy',
    "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'.",
  ),
};

function pathParam(name: string): Json {
  return {
    name,
    in: 'path',
    required: true,
    description: `${name} of the resource`,
    schema: { type: 'string', uniqueItems: true },
  };
}

export function ref(name: string): Json {
  return { $ref: `#/components/schemas/${name}` };
}

function ok(schemaName: string): Json {
  const content = { schema: ref(schemaName) };
  return { description: 'OK', content: { 'application/json': content, 'application/yaml': content } };
}

function operation(
  type: ResourceType,
  action: string,
  verb: string,
  parameters: Json[],
  schemaName: string,
  body?: string[],
): Json {
  const op: Json = {
    description: `${action} ${type.kind}`,
    operationId: `${verb}${type.kind}`,
    parameters,
    responses: { '200': ok(schemaName) },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: type.group, version: type.version, kind: type.kind },
  };
  if (body)
    op.requestBody = {
      content: Object.fromEntries(
        body.map((ct) => [
          ct,
          { schema: ref(ct.includes('patch') ? 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch' : schemaName) },
        ]),
      ),
      required: true,
    };
  return op;
}

const PATCH_TYPES = [
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

export function paths(type: ResourceType, out: Json): void {
  const prefix = type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  const scope = type.namespaced
    ? `${prefix}/namespaces/{namespace}/${type.resource}`
    : `${prefix}/${type.resource}`;
  const def = definitionName(type);
  const list = `${def}List`;
  const ns = type.namespaced ? [pathParam('namespace')] : [];
  const write = [PARAMS.dryRun, PARAMS.fieldManager, PARAMS.fieldValidation];
  const listParams = [
    PARAMS.labelSelector,
    PARAMS.fieldSelector,
    PARAMS.limit,
    PARAMS.continue,
    PARAMS.resourceVersion,
    PARAMS.watch,
    PARAMS.timeoutSeconds,
    PARAMS.allowWatchBookmarks,
  ];
  out[scope] = {
    get: operation(type, 'list', 'list', listParams, list),
    post: operation(type, 'post', 'create', write, def, ['*/*']),
    delete: operation(
      type,
      'deletecollection',
      'deletecollection',
      [...listParams, PARAMS.dryRun, PARAMS.propagationPolicy],
      'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
    ),
    parameters: [...ns, PARAMS.pretty],
  };
  const item = {
    get: operation(type, 'get', 'read', [], def),
    put: operation(type, 'put', 'replace', write, def, ['*/*']),
    patch: operation(type, 'patch', 'patch', [...write, PARAMS.force], def, PATCH_TYPES),
    delete: operation(
      type,
      'delete',
      'delete',
      [PARAMS.dryRun, PARAMS.propagationPolicy],
      'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
    ),
    parameters: [pathParam('name'), ...ns, PARAMS.pretty],
  };
  out[`${scope}/{name}`] = item;
  for (const sub of type.subresources) {
    if (sub !== 'status') continue;
    out[`${scope}/{name}/status`] = {
      get: operation(type, 'get', 'readStatus', [], def),
      put: operation(type, 'put', 'replaceStatus', write, def, ['*/*']),
      patch: operation(type, 'patch', 'patchStatus', [...write, PARAMS.force], def, PATCH_TYPES),
      parameters: [pathParam('name'), ...ns, PARAMS.pretty],
    };
  }
  if (type.namespaced)
    out[`${prefix}/${type.resource}`] = {
      get: operation(type, 'list', 'listForAllNamespaces', listParams, list),
    };
}
