import type { z } from 'zod';

/** One FastAPI-style validation problem: where (`loc`), what (`msg`) and its kind (`type`). */
export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * An HTTP error the reference server answers with. `detail` is a string for 401/404/405/409/413/415
 * and a list of validation items for 422, exactly as docs/control-plane.md fixes the error shape.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly detail: string | ValidationItem[];
  readonly headers: Record<string, string>;

  constructor(status: number, detail: string | ValidationItem[], headers: Record<string, string> = {}) {
    super(typeof detail === 'string' ? detail : `validation failed (${detail.length} problems)`);
    this.name = 'HttpError';
    this.status = status;
    this.detail = detail;
    this.headers = headers;
  }
}

export const notFound = (what: string) => new HttpError(404, `${what} not found`);

export const conflict = (detail: string) => new HttpError(409, detail);

/** A 422 with one problem. */
export function invalid(loc: (string | number)[], msg: string, type = 'value_error'): HttpError {
  return new HttpError(422, [{ loc, msg, type }]);
}

/**
 * Turns zod issues into FastAPI-style items under `prefix` (`body`, `query`, `path`). An unknown
 * member becomes one `extra_forbidden` item per key, with the key in its `loc`. Messages are
 * zod's, which name expectations, never the received value (it may be a secret).
 */
export function zodToItems(error: z.ZodError, prefix: (string | number)[]): ValidationItem[] {
  const items: ValidationItem[] = [];
  for (const issue of error.issues) {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        items.push({
          loc: [...prefix, ...path, key],
          msg: 'Extra inputs are not permitted',
          type: 'extra_forbidden',
        });
      }
      continue;
    }
    items.push({ loc: [...prefix, ...path], msg: issue.message, type: issue.code });
  }
  return items;
}

/** Parses `value` with `schema` or throws a 422 whose items sit under `prefix`. */
export function parseOr422<S extends z.ZodType>(
  schema: S,
  value: unknown,
  prefix: (string | number)[],
): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new HttpError(422, zodToItems(result.error, prefix));
  return result.data;
}
