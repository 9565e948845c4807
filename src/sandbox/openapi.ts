/**
 * /openapi/v3 (the index of group-version documents) and the documents themselves, generated once
 * from the resource table and the model schemas. kubectl reads them to learn that PATCH accepts
 * `fieldValidation` (then it leaves strict validation to the server) and for client-side schemas.
 */
import { createHash } from 'node:crypto';
import { listTable } from './apply/index.ts';
import { KUBE_VERSION } from './discovery.ts';
import { apiVersionOf, groupVersions, type ResourceType } from './resources.ts';
import { type SchemaNode, schemaOfModel } from './schema.ts';

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

function ref(name: string): Json {
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

function paths(type: ResourceType, out: Json): void {
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

function toOpenApi(node: SchemaNode, schemas: Json): Json {
  switch (node.kind) {
    case 'object':
      if (!schemas[node.model]) {
        const props: Json = {};
        schemas[node.model] = { type: 'object', properties: props };
        for (const [key, child] of node.props) props[key] = toOpenApi(child, schemas);
      }
      return { allOf: [ref(node.model)] };
    case 'array':
      return { type: 'array', items: toOpenApi(node.items, schemas) };
    case 'map':
      return { type: 'object', additionalProperties: toOpenApi(node.values, schemas) };
    case 'scalar':
      return node.format ? { type: node.type, format: node.format } : { type: node.type };
    case 'date':
      return { type: 'string', format: 'date-time' };
    case 'int-or-string':
      return { 'x-kubernetes-int-or-string': true };
    default:
      return { 'x-kubernetes-preserve-unknown-fields': true };
  }
}

/**
 * Adds the list semantics of the kind's schema (`x-kubernetes-list-type`, map keys) and the
 * strategic-merge metadata kubectl's client-side apply reads (patch strategy and merge key: the
 * first map key, as the server's strategic merge patch uses) to the shared model schemas.
 */
function annotateLists(type: ResourceType, root: SchemaNode, schemas: Json): void {
  for (const rule of listTable(apiVersionOf(type), type.kind)) {
    let node: SchemaNode | undefined = root;
    let owner: { model: string; prop: string } | undefined;
    for (const part of rule.path.split('.')) {
      const name = part.replace(/\[\]$/, '');
      if (node?.kind !== 'object') {
        node = undefined;
        break;
      }
      owner = { model: node.model, prop: name };
      node = node.props.get(name);
      if (part.endsWith('[]')) node = node?.kind === 'array' ? node.items : undefined;
    }
    if (!node || node.kind !== 'array' || !owner) continue;
    const prop = ((schemas[owner.model] as Json | undefined)?.properties as Json | undefined)?.[owner.prop] as
      | Json
      | undefined;
    if (!prop) continue;
    prop['x-kubernetes-list-type'] = rule.kind;
    if (rule.kind === 'map') {
      prop['x-kubernetes-list-map-keys'] = rule.keys;
      prop['x-kubernetes-patch-merge-key'] = rule.keys[0];
      prop['x-kubernetes-patch-strategy'] = 'merge';
    } else if (rule.kind === 'set') prop['x-kubernetes-patch-strategy'] = 'merge';
  }
}

function document(gv: { group: string; version: string; types: ResourceType[] }): Json {
  const out: Json = {};
  const schemas: Json = {
    'io.k8s.apimachinery.pkg.apis.meta.v1.Patch': {
      type: 'object',
      description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
    },
    'io.k8s.apimachinery.pkg.apis.meta.v1.Status': {
      type: 'object',
      properties: {
        kind: { type: 'string' },
        apiVersion: { type: 'string' },
        status: { type: 'string' },
        message: { type: 'string' },
        reason: { type: 'string' },
        code: { type: 'integer', format: 'int32' },
      },
    },
  };
  for (const type of gv.types) {
    paths(type, out);
    const node = schemaOfModel(type.model);
    const gvk = [{ group: type.group, version: type.version, kind: type.kind }];
    if (node && node.kind === 'object') {
      toOpenApi(node, schemas);
      annotateLists(type, node, schemas);
      schemas[definitionName(type)] = {
        ...(schemas[node.model] as Json),
        'x-kubernetes-group-version-kind': gvk,
      };
    }
    schemas[`${definitionName(type)}List`] = {
      type: 'object',
      required: ['items'],
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        items: { type: 'array', items: ref(definitionName(type)) },
        metadata: { type: 'object' },
      },
      'x-kubernetes-group-version-kind': [
        { group: type.group, version: type.version, kind: `${type.kind}List` },
      ],
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: KUBE_VERSION.gitVersion },
    paths: out,
    components: { schemas },
  };
}

interface Built {
  index: Json;
  documents: Map<string, { body: string; hash: string }>;
}

let built: Built | undefined;

/** Builds (once) the index and the per-group-version documents, serialised. */
function build(): Built {
  if (built) return built;
  const documents = new Map<string, { body: string; hash: string }>();
  const paths: Json = {};
  for (const gv of groupVersions()) {
    const key = gv.group === '' ? `api/${gv.version}` : `apis/${apiVersionOf(gv)}`;
    const body = JSON.stringify(document(gv));
    const hash = createHash('sha512').update(body).digest('hex').slice(0, 128).toUpperCase();
    documents.set(key, { body, hash });
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  built = { index: { paths }, documents };
  return built;
}

export function openApiIndex(): Json {
  return build().index;
}

/** The serialised document for `api/v1` or `apis/<group>/<version>`, if served. */
export function openApiDocument(key: string): { body: string; hash: string } | undefined {
  return build().documents.get(key);
}
