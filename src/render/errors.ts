import { type ErrorCode, TerminalError } from '../errors.ts';

/** The render codes a RenderError may carry. */
export type RenderErrorCode = Extract<
  ErrorCode,
  | 'MOORING_E_RENDER_INVALID'
  | 'MOORING_E_RENDER_POLICY'
  | 'MOORING_E_RENDER_NO_IMAGE'
  | 'MOORING_E_RENDER_NAME_COLLISION'
  | 'MOORING_E_TENANT_MISMATCH'
>;

/**
 * A deployment that cannot be rendered. Terminal: rendering is pure, so trying again with the same
 * input gives the same answer. `details.field` is the path of the offending field from the
 * deployment's root (`source_config.resource_spec.cpu_limit`); messages name fields and numeric
 * values, never the value of a secret.
 */
export class RenderError extends TerminalError {
  readonly field: string;

  constructor(code: RenderErrorCode, field: string, message: string) {
    super(code, message, { details: { field } });
    this.name = 'RenderError';
    this.field = field;
  }
}

/** Path prefix of every ResourceSpec field in `details.field`. */
export const SPEC_PATH = 'source_config.resource_spec';

/** Shorthand: an invalid ResourceSpec field (`field` is relative to the ResourceSpec). */
export function invalidSpec(field: string, message: string): RenderError {
  return new RenderError('MOORING_E_RENDER_INVALID', `${SPEC_PATH}.${field}`, message);
}

/** Shorthand: a ResourceSpec field the policy forbids. */
export function policyViolation(field: string, message: string): RenderError {
  return new RenderError('MOORING_E_RENDER_POLICY', `${SPEC_PATH}.${field}`, message);
}
