import { z } from 'zod';
import { DEPLOYMENT_STATUSES, DEPLOYMENT_TYPES, REVISION_STATUSES } from './enums.ts';

/**
 * Query parameters (the interface leaves their names "not shown"; docs/control-plane.md fixes
 * them). The server parses them with these schemas; the client builds them from the same names.
 */

/**
 * An integer query parameter, `min` or more (and `max` or less when given; never past the largest
 * exact integer), written in plain decimal digits and nothing else: `0x10`, `1e1`, `5.0`, `+5`,
 * `-0`, ` 5` and the empty string are 422s, not numbers (a coercing `Number()` took them all).
 * Leading zeros are accepted (`007` is 7), as in `X-Total-Count` (src/control-plane/listing-total.ts).
 */
function decimalInteger(min: number, max?: number) {
  const value = z.number().int().min(min);
  return z
    .string()
    .regex(/^[0-9]+$/, 'Input should be an integer in plain decimal digits (0-9 only)')
    .transform(Number)
    .pipe(max === undefined ? value : value.max(max));
}

const limit = decimalInteger(1, 100).default(20);
const offset = decimalInteger(0).default(0);

/**
 * The words a boolean query parameter may be, as the public API's framework (pydantic) reads them,
 * in any letter case: Python clients send `True`/`False`. Anything else (`ture`, `2`, empty) is a
 * 422, never silently false. The agent's own client sends `true`/`false`.
 */
export const QUERY_TRUE_WORDS: readonly string[] = ['true', '1', 'yes', 'on', 't', 'y'];
export const QUERY_FALSE_WORDS: readonly string[] = ['false', '0', 'no', 'off', 'f', 'n'];

const bool = z.string().transform((value, ctx) => {
  const word = value.toLowerCase();
  if (QUERY_TRUE_WORDS.includes(word)) return true;
  if (QUERY_FALSE_WORDS.includes(word)) return false;
  ctx.addIssue({
    code: 'custom',
    message: 'Input should be a valid boolean (true/false, 1/0, yes/no, on/off)',
  });
  return z.NEVER;
});

/** A comma list: items trimmed; an empty item is rejected (docs/control-plane.md). */
function commaList<T extends z.ZodType<string, string>>(item: T) {
  return z
    .string()
    .transform((s) => s.split(',').map((p) => p.trim()))
    .pipe(z.array(z.string().min(1, 'empty item in comma list').pipe(item)).min(1));
}

export const PageQuery = z.strictObject({ limit, offset });

export const DeploymentListQuery = z.strictObject({
  limit,
  offset,
  name: z.string().min(1).optional(),
  /** Empty matches every name: the public deploy client's `deploy list` sends `name_contains=` by default. */
  name_contains: z.string().optional(),
  status: z.enum(DEPLOYMENT_STATUSES).optional(),
  remote_reconciled: bool.optional(),
  tag_value_ids: commaList(z.string()).optional(),
  image_version: z.string().min(1).optional(),
  deployment_type: z.enum(DEPLOYMENT_TYPES).optional(),
  deployment_ids: commaList(z.uuid()).optional(),
  /**
   * Not in the interface: newer public deploy clients send it to find the deployments placed on
   * a listener; the reference reads it as `source_config.listener_id` (docs/control-plane.md).
   */
  agent_id: z.uuid().optional(),
});
export type DeploymentListQuery = z.infer<typeof DeploymentListQuery>;
/** What a caller passes: every filter optional, lists as arrays. */
export type DeploymentFilters = Partial<Omit<DeploymentListQuery, 'limit' | 'offset'>> & { limit?: number };

export const RevisionListQuery = z.strictObject({
  limit,
  offset,
  status: commaList(z.enum(REVISION_STATUSES)).optional(),
  remote_reconciled: bool.optional(),
});
export type RevisionListQuery = z.infer<typeof RevisionListQuery>;
export type RevisionFilters = Partial<Omit<RevisionListQuery, 'limit' | 'offset'>> & { limit?: number };

export const ListenerListQuery = PageQuery;

/** DELETE /v2/deployments/{id}: the public API's `delete_tracing_project` (no tracing here). */
export const DeploymentDeleteQuery = z.strictObject({ delete_tracing_project: bool.optional() });

export const TokenListQuery = z.strictObject({ provider_id: z.string().min(1).optional() });
