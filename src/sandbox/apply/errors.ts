/** Kubernetes Status reasons the apply engine can produce. */
export type ApplyErrorReason = 'BadRequest' | 'Invalid' | 'InternalError';

const REASONS: Record<number, ApplyErrorReason> = { 400: 'BadRequest', 422: 'Invalid', 500: 'InternalError' };

/**
 * A write the engine refuses: an applied configuration that does not fit the kind's schema
 * (a list where a map is expected, an unknown field, an associative list item without its key),
 * or a request the apiserver rejects before merging (managedFields in an apply patch, a kind
 * mismatch). `status` is the HTTP code a real apiserver answers with (400 or 422) and `message`
 * is safe to return to the client: it names fields and types, never values.
 */
export class ApplyError extends Error {
  readonly status: 400 | 422 | 500;
  readonly reason: ApplyErrorReason;

  constructor(message: string, status: 400 | 422 | 500 = 422) {
    super(message);
    this.name = 'ApplyError';
    this.status = status;
    this.reason = REASONS[status] ?? 'Invalid';
  }
}
