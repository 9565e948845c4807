/**
 * Errors as they may appear in logs and `/status`. A MooringError's message is secret-free by
 * contract. Anything else may not be: a Kubernetes client exception embeds the whole response
 * body, which can echo an object's content (a Secret's data). Those keep only their name.
 */
import { type ErrorCode, MooringError } from '../errors.ts';

export interface SafeError {
  code: ErrorCode;
  message: string;
  /** The original error class, for foreign errors. */
  name?: string;
}

/** Code and a message safe to show. */
export function describeError(err: unknown): SafeError {
  if (err instanceof MooringError) return { code: err.code, message: err.message };
  const name = err instanceof Error ? err.name : typeof err;
  return {
    code: 'MOORING_E_INTERNAL',
    message: `unexpected ${name} (see the agent log at debug level)`,
    name,
  };
}

/** A log-safe view of an error (pino's `err` serializer would print message, stack and causes). */
export function safeErr(err: unknown): Record<string, unknown> {
  if (err instanceof MooringError) {
    const out: Record<string, unknown> = { type: err.name, code: err.code, message: err.message };
    if (Object.keys(err.details).length > 0) out.details = err.details;
    if (err.cause instanceof MooringError) out.cause = safeErr(err.cause);
    else if (err.cause !== undefined) out.cause = { type: (err.cause as Error)?.name ?? typeof err.cause };
    return out;
  }
  if (err instanceof Error) {
    // Foreign errors: the class and the top stack frames (file:line, no message text).
    const frames = (err.stack ?? '')
      .split('\n')
      .filter((l) => l.trimStart().startsWith('at '))
      .slice(0, 5);
    const body = (err as { body?: unknown }).body;
    return {
      type: err.name,
      code: 'MOORING_E_INTERNAL',
      ...(body === undefined ? { message: err.message } : {}),
      stack: frames.map((f) => f.trim()),
    };
  }
  return { type: typeof err, code: 'MOORING_E_INTERNAL' };
}
