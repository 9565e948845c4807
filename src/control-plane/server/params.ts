import { z } from 'zod';
import { HttpError, parseOr422 } from './errors.ts';

/**
 * Query strings become plain objects before validation. A parameter given twice is refused (which
 * value would win is not obvious); unknown parameters are refused by the strict query schemas, so
 * a typo such as `limt=5` is a 422, not a silently ignored filter.
 */
export function queryObject(query: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of query) {
    if (key in out) {
      throw new HttpError(422, [
        { loc: ['query', key], msg: 'parameter given more than once', type: 'value_error' },
      ]);
    }
    out[key] = value;
  }
  return out;
}

/** Validates the query with a strict schema; problems come back as 422 under `query`. */
export function parseQuery<S extends z.ZodType>(schema: S, query: URLSearchParams): z.infer<S> {
  return parseOr422(schema, queryObject(query), ['query']);
}

/** A route that takes no query parameters still refuses unknown ones, for one consistent rule. */
export const NoQuery = z.strictObject({});

const uuid = z.uuid();

/** A path parameter that must be a UUID: 422 under `path` otherwise. */
export function uuidParam(params: Record<string, string>, name: string): string {
  return parseOr422(uuid, params[name], ['path', name]);
}
