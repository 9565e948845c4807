/**
 * The field errors of apimachinery's `field` package: each becomes one StatusCause whose message is
 * the error body (`Invalid value: 70000: must be between 1 and 65535, inclusive`), and whose field
 * is the path, exactly as the API server fills `details.causes`.
 */
import type { StatusCause } from '../status.ts';

/** Go's encoding/json escapes these three in strings; the server's messages show them so. */
function goEscape(json: string): string {
  return json.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

function sortedJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedJson);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortedJson(v);
  }
  return out;
}

/**
 * A bad value as the server prints it: numbers and booleans bare, strings quoted, anything else as
 * JSON with map keys sorted (Go marshals maps so). Pass a `Raw` to print pre-rendered JSON.
 */
export function goValue(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return goEscape(JSON.stringify(value));
  return goEscape(JSON.stringify(sortedJson(value)));
}

/** JSON already rendered in the server's field order (a Go struct, not a map). */
export class Raw {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

function withDetail(body: string, detail: string): string {
  return detail === '' ? body : `${body}: ${detail}`;
}

/** `field.Invalid`: `Invalid value: <value>: <detail>`. */
export function invalid(field: string, value: unknown, detail: string): StatusCause {
  return {
    reason: 'FieldValueInvalid',
    message: withDetail(`Invalid value: ${goValue(value)}`, detail),
    field,
  };
}

/** `field.Required`: `Required value[: detail]`. */
export function required(field: string, detail = ''): StatusCause {
  return { reason: 'FieldValueRequired', message: withDetail('Required value', detail), field };
}

/** `field.Duplicate`: `Duplicate value: <value>`. */
export function duplicate(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueDuplicate', message: `Duplicate value: ${goValue(value)}`, field };
}

/** `field.NotSupported`: `Unsupported value: <value>: supported values: "a", "b"`. */
export function notSupported(field: string, value: unknown, valid: string[]): StatusCause {
  const detail =
    valid.length > 0 ? `supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}` : '';
  return {
    reason: 'FieldValueNotSupported',
    message: withDetail(`Unsupported value: ${goValue(value)}`, detail),
    field,
  };
}

/** `field.Forbidden`: `Forbidden: <detail>`. */
export function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: withDetail('Forbidden', detail), field };
}

/** `field.NotFound`: `Not found: <value>`. */
export function notFound(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueNotFound', message: `Not found: ${goValue(value)}`, field };
}

/** `field.TooLong` with a byte limit. */
export function tooLong(field: string, max: number): StatusCause {
  return { reason: 'FieldValueTooLong', message: `Too long: may not be more than ${max} bytes`, field };
}

/** One `field.Invalid` per message of a format check (`IsDNS1123Label` and the like). */
export function invalidEach(field: string, value: unknown, messages: string[]): StatusCause[] {
  return messages.map((m) => invalid(field, value, m));
}

/**
 * The causes once, in order: the server's aggregate drops repeated messages, and the schema check
 * and the semantic checks may both name a missing field.
 */
export function dedupe(causes: StatusCause[]): StatusCause[] {
  const seen = new Set<string>();
  return causes.filter((c) => {
    const key = `${c.field ?? ''}\u0000${c.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
