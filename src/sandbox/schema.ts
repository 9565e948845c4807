/**
 * Structural schemas of the served kinds, derived from the model metadata that
 * @kubernetes/client-node generates from the official OpenAPI document (`attributeTypeMap`).
 * Used to find unknown fields (strict field validation) and to write the openapi/v3 documents.
 */
import * as models from '@kubernetes/client-node';

export type SchemaNode =
  | { kind: 'object'; model: string; props: Map<string, SchemaNode> }
  | { kind: 'array'; items: SchemaNode }
  | { kind: 'map'; values: SchemaNode }
  | { kind: 'scalar'; type: 'string' | 'integer' | 'number' | 'boolean'; format?: string }
  | { kind: 'date' }
  | { kind: 'int-or-string' }
  | { kind: 'any' };

interface Attribute {
  baseName: string;
  type: string;
  format: string;
}

type ModelClass = { getAttributeTypeMap(): Attribute[] };

const cache = new Map<string, SchemaNode>();
const ANY: SchemaNode = { kind: 'any' };

function modelClass(name: string): ModelClass | undefined {
  const value = (models as unknown as Record<string, unknown>)[name];
  if (typeof value === 'function' && 'getAttributeTypeMap' in value) return value as unknown as ModelClass;
  return undefined;
}

function fromType(type: string, format: string): SchemaNode {
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return { kind: 'array', items: fromType(array[1] as string, '') };
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) return { kind: 'map', values: fromType(map[1] as string, '') };
  switch (type) {
    case 'string':
      return { kind: 'scalar', type: 'string', ...(format ? { format } : {}) };
    case 'number':
      return format === 'double'
        ? { kind: 'scalar', type: 'number', format }
        : { kind: 'scalar', type: 'integer', ...(format ? { format } : {}) };
    case 'boolean':
      return { kind: 'scalar', type: 'boolean' };
    case 'Date':
      return { kind: 'date' };
    case 'IntOrString':
      return { kind: 'int-or-string' };
    case 'any':
    case 'object':
      return ANY;
    default:
      return schemaOfModel(type) ?? ANY;
  }
}

/** The schema of a client-node model class (e.g. `V1Deployment`), built once and cached. */
export function schemaOfModel(model: string): SchemaNode | undefined {
  const hit = cache.get(model);
  if (hit) return hit;
  const cls = modelClass(model);
  if (!cls) return undefined;
  const node: SchemaNode = { kind: 'object', model, props: new Map() };
  cache.set(model, node); // before recursing: some models are recursive
  for (const attr of cls.getAttributeTypeMap())
    node.props.set(attr.baseName, fromType(attr.type, attr.format));
  return node;
}

/** Formats a path the way the API server's strict decoder names fields: `spec.containers[0].foo`. */
function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/**
 * Finds fields the schema does not declare, removes them from `value` (the server drops what it
 * cannot decode) and returns their paths.
 */
export function pruneUnknownFields(value: unknown, node: SchemaNode, path = ''): string[] {
  const found: string[] = [];
  walk(value, node, path, found);
  return found;
}

function walk(value: unknown, node: SchemaNode, path: string, found: string[]): void {
  if (value === null || typeof value !== 'object') return;
  switch (node.kind) {
    case 'object': {
      if (Array.isArray(value)) return;
      const obj = value as Record<string, unknown>;
      for (const key of Object.keys(obj)) {
        const child = node.props.get(key);
        if (child === undefined) {
          found.push(join(path, key));
          delete obj[key];
        } else walk(obj[key], child, join(path, key), found);
      }
      return;
    }
    case 'array':
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) walk(value[i], node.items, `${path}[${i}]`, found);
      }
      return;
    case 'map':
      if (!Array.isArray(value)) {
        for (const [key, item] of Object.entries(value as Record<string, unknown>))
          walk(item, node.values, join(path, key), found);
      }
      return;
    default:
      return;
  }
}
