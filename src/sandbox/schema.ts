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
  | { kind: 'scalar'; type: 'string' | 'integer' | 'number' | 'boolean'; format?: string; quantity?: true }
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

/** Quantity fields outside resource maps: strings in the models, but a number decodes too. */
const QUANTITIES = new Set([
  'V1EmptyDirVolumeSource.sizeLimit',
  'V2MetricTarget.averageValue',
  'V2MetricTarget.value',
  'V2MetricValueStatus.averageValue',
  'V2MetricValueStatus.value',
]);
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
  for (const attr of cls.getAttributeTypeMap()) {
    const prop = fromType(attr.type, attr.format);
    if (prop.kind === 'scalar' && QUANTITIES.has(`${model}.${attr.baseName}`)) prop.quantity = true;
    node.props.set(attr.baseName, prop);
  }
  return node;
}

/** Formats a path the way the API server's strict decoder names fields: `spec.containers[0].foo`. */
function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** A value whose JSON type does not fit the schema (the decoder rejects it with a 400). */
export interface TypeMismatch {
  path: string;
  expected: string;
  got: string;
}

export interface FieldCheck {
  unknown: string[];
  mismatches: TypeMismatch[];
}

/**
 * Walks `value` against the schema: removes fields the schema does not declare (the server drops
 * what it cannot decode) and reports their paths, and reports values of the wrong JSON type.
 */
export function checkFields(value: unknown, node: SchemaNode, path = ''): FieldCheck {
  const out: FieldCheck = { unknown: [], mismatches: [] };
  walk(value, node, { base: path, segments: [] }, out, false);
  return out;
}

/**
 * Where the walk is: path segments pushed and popped as it descends, made into a string only for
 * a field it reports (building every node's path would allocate a string per field).
 */
interface Cursor {
  base: string;
  segments: (string | number)[];
}

function pathOf(at: Cursor): string {
  let path = at.base;
  for (const s of at.segments) path = typeof s === 'number' ? `${path}[${s}]` : join(path, s);
  return path;
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

function scalarFits(value: unknown, node: SchemaNode, inMap: boolean): string | undefined {
  switch (node.kind) {
    case 'scalar':
      if (node.type === 'string') {
        // Quantities (resource maps) are strings in the models but accept numbers on the wire.
        const number = typeof value === 'number' && (inMap || node.quantity === true);
        return typeof value === 'string' || number ? undefined : 'string';
      }
      if (node.type === 'integer')
        return typeof value === 'number' && Number.isInteger(value) ? undefined : 'integer';
      if (node.type === 'number') return typeof value === 'number' ? undefined : 'number';
      return typeof value === 'boolean' ? undefined : 'boolean';
    case 'date':
      return typeof value === 'string' ? undefined : 'string';
    case 'int-or-string':
      return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value))
        ? undefined
        : 'int or string';
    default:
      return undefined;
  }
}

function walk(value: unknown, node: SchemaNode, at: Cursor, out: FieldCheck, inMap: boolean): void {
  if (value === null || value === undefined || node.kind === 'any') return;
  if (node.kind === 'object' || node.kind === 'map' || node.kind === 'array') {
    const want = node.kind === 'array' ? 'array' : 'object';
    if (jsonType(value) !== want) {
      out.mismatches.push({ path: pathOf(at), expected: want, got: jsonType(value) });
      return;
    }
  } else {
    const expected = scalarFits(value, node, inMap);
    if (expected) out.mismatches.push({ path: pathOf(at), expected, got: jsonType(value) });
    return;
  }
  const segments = at.segments;
  switch (node.kind) {
    case 'object': {
      const obj = value as Record<string, unknown>;
      for (const key of Object.keys(obj)) {
        const child = node.props.get(key);
        segments.push(key);
        if (child === undefined) {
          out.unknown.push(pathOf(at));
          delete obj[key];
        } else walk(obj[key], child, at, out, false);
        segments.pop();
      }
      return;
    }
    case 'array':
      for (let i = 0; i < (value as unknown[]).length; i++) {
        segments.push(i);
        walk((value as unknown[])[i], node.items, at, out, false);
        segments.pop();
      }
      return;
    case 'map': {
      const obj = value as Record<string, unknown>;
      for (const key in obj) {
        segments.push(key);
        walk(obj[key], node.values, at, out, true);
        segments.pop();
      }
      return;
    }
  }
}
