import type { z } from 'zod';
import { COMPUTE_TYPES, DEPLOYMENT_STATUSES, DEPLOYMENT_TYPES, REVISION_STATUSES, SOURCES } from './enums.ts';
import {
  RawListEnvelope,
  type DeploymentRecord,
  type ListenerRecord,
  type RevisionRecord,
} from './schemas.ts';

/** A record refused alone: the rest of its page goes on. */
export interface RejectedRecord {
  index: number;
  /** The record's `id` when it had a readable one. */
  id?: string;
  /** A deployment record's `source_config.listener_id`, when readable: whose record it is. */
  listenerId?: string;
  code: 'MOORING_E_RECORD_INVALID';
  /** Which fields are wrong and how; never the values (they may be secrets). */
  reason: string;
}

/** A record kept but flagged: it uses a value this agent does not know. */
export interface UnsupportedRecord {
  index: number;
  id: string;
  code: 'MOORING_E_RECORD_UNSUPPORTED';
  reason: string;
}

export interface ParsedPage<T> {
  items: T[];
  rejected: RejectedRecord[];
  unsupported: UnsupportedRecord[];
  /** Where the next page starts. */
  offset: number;
}

/** Thrown when the envelope itself is not a page: the whole listing is then incomplete. */
export class MalformedPageError extends Error {
  constructor(reason: string) {
    super(`malformed list envelope: ${reason}`);
    this.name = 'MalformedPageError';
  }
}

/** Renders zod issues as `path: message` without the offending values. */
export function describeIssues(error: z.ZodError, limit = 5): string {
  const parts = error.issues
    .slice(0, limit)
    .map((i) => `${i.path.length ? i.path.join('.') : '(record)'}: ${i.message}`);
  const more = error.issues.length > limit ? ` (+${error.issues.length - limit} more)` : '';
  return parts.join('; ') + more;
}

function readListenerId(item: unknown): string | undefined {
  const config = (item as { source_config?: unknown } | null)?.source_config;
  const id = (config as { listener_id?: unknown } | null | undefined)?.listener_id;
  return typeof id === 'string' && id.length > 0 && id.length <= 128 ? id : undefined;
}

function readId(item: unknown): string | undefined {
  if (item && typeof item === 'object' && 'id' in item) {
    const id = (item as { id: unknown }).id;
    if (typeof id === 'string' && id.length > 0 && id.length <= 128) return id;
  }
  return undefined;
}

/**
 * Parses one list page tolerantly: a bad envelope throws `MalformedPageError`; each bad record is
 * rejected alone with a reason; records with unknown enum values are kept and flagged. `known`
 * may answer for a record the caller already holds, equal to the raw one: it is taken as it is,
 * unparsed (the tolerant schemas add, drop and convert nothing, so a held record parsed from an
 * equal one is what parsing would give), and flagged all the same. `keep` says what the page
 * holds of each record it parsed, once flagged (default the record itself).
 */
export function parsePage<S extends z.ZodType>(
  body: unknown,
  item: S,
  flag: (record: z.infer<S>) => string[] = () => [],
  known: (raw: unknown) => z.infer<S> | undefined = () => undefined,
  keep: (record: z.infer<S>) => z.infer<S> = (record) => record,
): ParsedPage<z.infer<S>> {
  const envelope = RawListEnvelope.safeParse(body);
  if (!envelope.success) throw new MalformedPageError(describeIssues(envelope.error));
  const page: ParsedPage<z.infer<S>> = {
    items: [],
    rejected: [],
    unsupported: [],
    offset: envelope.data.offset,
  };
  envelope.data.resources.forEach((raw, index) => {
    const held = known(raw);
    const parsed = held === undefined ? item.safeParse(raw) : { success: true as const, data: held };
    const id = readId(raw);
    if (!parsed.success) {
      const listenerId = readListenerId(raw);
      page.rejected.push({
        index,
        ...(id ? { id } : {}),
        ...(listenerId ? { listenerId } : {}),
        code: 'MOORING_E_RECORD_INVALID',
        reason: describeIssues(parsed.error),
      });
      return;
    }
    const reasons = flag(parsed.data);
    if (reasons.length > 0 && !id) {
      // An unsupported record must be reported by id; without a readable one, refuse it rather
      // than keep it unflagged (a consumer would then treat it as supported).
      page.rejected.push({
        index,
        code: 'MOORING_E_RECORD_INVALID',
        reason: `no readable id, and ${reasons.join('; ')}`,
      });
      return;
    }
    page.items.push(held === undefined ? keep(parsed.data) : parsed.data);
    if (reasons.length > 0 && id) {
      page.unsupported.push({ index, id, code: 'MOORING_E_RECORD_UNSUPPORTED', reason: reasons.join('; ') });
    }
  });
  return page;
}

function unknownValue(field: string, value: unknown, known: readonly string[]): string[] {
  return value == null || known.includes(value as string)
    ? []
    : [`${field} "${String(value)}" is not supported`];
}

/** Fields of a deployment whose values the interface does not list. */
export function deploymentUnsupported(d: DeploymentRecord): string[] {
  return [
    ...unknownValue('source', d.source, SOURCES),
    ...unknownValue('status', d.status, DEPLOYMENT_STATUSES),
    ...unknownValue('source_config.deployment_type', d.source_config.deployment_type, DEPLOYMENT_TYPES),
  ];
}

export function revisionUnsupported(r: RevisionRecord): string[] {
  return [
    ...unknownValue('source', r.source, SOURCES),
    ...unknownValue('status', r.status, REVISION_STATUSES),
  ];
}

export function listenerUnsupported(l: ListenerRecord): string[] {
  return unknownValue('compute_type', l.compute_type, COMPUTE_TYPES);
}
