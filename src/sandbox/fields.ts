/** Unknown-field handling per `fieldValidation` (Strict rejects, Warn warns, Ignore drops silently). */
import type { ResourceType } from './resources.ts';
import { checkFields, schemaOfModel } from './schema.ts';
import { badRequest } from './status.ts';
import type { KubeObject } from './types.ts';
import type { WriteOptions } from './write-options.ts';

/**
 * Drops fields the kind's schema does not declare from `object` (in place), as the server's
 * decoder does. Under Strict they are an error: `decode` words it as the JSON decoder does,
 * `apply` as server-side apply's typed conversion does.
 */
export function handleUnknownFields(
  type: ResourceType,
  object: KubeObject,
  options: WriteOptions,
  mode: 'decode' | 'apply',
  id?: string,
): void {
  const schema = schemaOfModel(type.model);
  if (!schema) return;
  const { unknown, mismatches } = checkFields(object, schema);
  const bad = mismatches[0];
  if (bad) {
    // Wrong JSON types never decode, whatever fieldValidation says.
    if (mode === 'decode') {
      throw badRequest(
        `json: cannot unmarshal ${bad.got} into Go struct field ${type.kind}.${bad.path} of type ${bad.expected}`,
      );
    }
    throw badRequest(
      `failed to create typed patch object (${id ?? ''}; ${type.group ? `${type.group}/` : ''}${type.version}, Kind=${type.kind}): .${bad.path}: expected ${bad.expected}, got ${bad.got}`,
    );
  }
  if (unknown.length === 0) return;
  if (options.fieldValidation === 'Strict') {
    if (mode === 'decode') {
      throw badRequest(`strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(', ')}`);
    }
    throw badRequest(
      `failed to create typed patch object (${id ?? ''}; ${type.group ? `${type.group}/` : ''}${type.version}, Kind=${type.kind}): ${unknown.map((f) => `.${f}: field not declared in schema`).join(', ')}`,
    );
  }
  if (options.fieldValidation === 'Warn')
    for (const f of unknown) options.warnings.push(`unknown field "${f}"`);
}
