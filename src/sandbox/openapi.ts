/**
 * /openapi/v3 (the index of group-version documents) and the documents themselves, generated once
 * from the resource table and the model schemas. kubectl reads them to learn that PATCH accepts
 * `fieldValidation` (then it leaves strict validation to the server) and for client-side schemas.
 */
import { createHash } from 'node:crypto';
import type protobuf from 'protobufjs';
import { listTable } from './apply/index.ts';
import { KUBE_VERSION } from './discovery.ts';
import { apiVersionOf, groupVersions, type ResourceType } from './resources.ts';
import { descriptionOf, messageOfModel } from './proto-schema.ts';
import { type SchemaNode, schemaOfModel } from './schema.ts';
import { definitionName, paths, ref } from './openapi-paths.ts';

type Json = Record<string, unknown>;

/**
 * A model's schema name: the API server's definition name (`io.k8s.api.apps.v1.DeploymentSpec`,
 * which `kubectl explain` prints as `<DeploymentSpec>`) when the model has a message, else its own.
 */
function schemaName(model: string): string {
  const full = messageOfModel(model)?.fullName;
  return full ? `io.k8s.${full.replace(/^\.k8s\.io\./, '')}` : model;
}

/** The field's doc comment; `apiVersion` and `kind` are TypeMeta's, which the messages leave out. */
function fieldComment(message: protobuf.Type | undefined, key: string): string | null | undefined {
  const field = message?.fields[key];
  if (field) return field.comment;
  return key === 'apiVersion' || key === 'kind'
    ? messageOfModel('V1TypeMeta')?.fields[key]?.comment
    : undefined;
}

function toOpenApi(node: SchemaNode, schemas: Json): Json {
  switch (node.kind) {
    case 'object': {
      const name = schemaName(node.model);
      if (!schemas[name]) {
        const props: Json = {};
        // Descriptions from the API's doc comments (kept in the vendored .proto files), so
        // `kubectl explain` reads as on a cluster.
        const message = messageOfModel(node.model);
        const description = descriptionOf(message?.comment);
        schemas[name] = { ...(description ? { description } : {}), type: 'object', properties: props };
        for (const [key, child] of node.props) {
          const field = descriptionOf(fieldComment(message, key));
          const schema = toOpenApi(child, schemas);
          props[key] = field ? { ...schema, description: field } : schema;
        }
      }
      return { allOf: [ref(name)] };
    }
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
    if (node?.kind !== 'array' || !owner) continue;
    const prop = ((schemas[schemaName(owner.model)] as Json | undefined)?.properties as Json | undefined)?.[
      owner.prop
    ] as Json | undefined;
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
        ...(schemas[schemaName(node.model)] as Json),
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
