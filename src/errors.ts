/**
 * mooring's coded errors: `MooringError`, `TerminalError` and the rules read from a code. The codes
 * themselves are in `error-codes.ts`. Retries are decided on codes, never on message text.
 */

import { ERROR_CODES, type ErrorCode, type ErrorSpec } from './error-codes.ts';

export { ERROR_CODES, type ErrorCode, type ErrorSpec } from './error-codes.ts';

export interface MooringErrorOptions {
  cause?: unknown;
  /** Structured, secret-free details for logs and status (field names, ids, HTTP status). */
  details?: Record<string, unknown>;
  /** Overrides the code's default retryability (e.g. a Retry-After hint). */
  retryable?: boolean;
  /** Server hint in milliseconds before the next try, when one was given. */
  retryAfterMs?: number;
}

/** An error with a code from the closed set. Messages must never contain secret values. */
export class MooringError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;
  readonly retryAfterMs: number | undefined;

  constructor(code: ErrorCode, message?: string, options: MooringErrorOptions = {}) {
    super(
      message ?? ERROR_CODES[code].summary,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'MooringError';
    this.code = code;
    this.retryable = options.retryable ?? ERROR_CODES[code].retryable;
    this.details = options.details ?? {};
    this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * An error that must not be retried until the desired state changes (controller-runtime's
 * TerminalError): the reconcile loop parks the deployment and reports it.
 */
export class TerminalError extends MooringError {
  constructor(code: ErrorCode, message?: string, options: Omit<MooringErrorOptions, 'retryable'> = {}) {
    super(code, message, { ...options, retryable: false });
    this.name = 'TerminalError';
  }
}

/** True when trying again may help. Unknown errors are retried (with backoff), never parked. */
export function isRetryable(err: unknown): boolean {
  if (err instanceof MooringError) return err.retryable;
  return true;
}

/**
 * True for a refusal parked only until the next resync (`ErrorSpec.untilResync`): not tried again
 * at once nor with backoff, and not held until the deployment changes either.
 */
export function isParkedUntilResync(err: unknown): boolean {
  if (!(err instanceof MooringError) || err.retryable) return false;
  const spec: ErrorSpec = ERROR_CODES[err.code];
  return spec.untilResync === true;
}

/**
 * Why `signal` aborted, as a MooringError: its reason when that is one (leadership lost, a
 * timeout), else MOORING_E_CANCELLED. What a batch throws once its signal aborts.
 */
export function cancelledBy(signal: AbortSignal): MooringError {
  const reason: unknown = signal.reason;
  return reason instanceof MooringError
    ? reason
    : new MooringError('MOORING_E_CANCELLED', 'reconcile cancelled', { cause: reason });
}

/** The code of an error, `MOORING_E_INTERNAL` for errors that are not ours. */
export function errorCode(err: unknown): ErrorCode {
  return err instanceof MooringError ? err.code : 'MOORING_E_INTERNAL';
}
