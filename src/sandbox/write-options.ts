/** The query parameters every write accepts, parsed once per request. */
import { badRequest, invalid } from './status.ts';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface WriteOptions {
  fieldManager?: string;
  force: boolean;
  dryRun: boolean;
  fieldValidation: FieldValidation;
  /** The manager name to record when the client gives none (the user agent's product). */
  defaultManager: string;
  /** `Warning` headers to send back (unknown fields under Warn). */
  warnings: string[];
}

/** Parses `fieldManager`, `force`, `dryRun`, `fieldValidation`; rejects bad values like the server does. */
export function parseWriteOptions(query: URLSearchParams, userAgent: string | undefined): WriteOptions {
  const dryRun = query.getAll('dryRun');
  for (const value of dryRun) {
    if (value !== 'All') throw badRequest(`Invalid dry run value: ${value}; supported values: "All"`);
  }
  const validation = query.get('fieldValidation') ?? 'Warn';
  if (!['Strict', 'Warn', 'Ignore'].includes(validation)) {
    throw badRequest(
      `fieldValidation parameter unsupported: ${validation}. Must be one of: Ignore, Warn, Strict`,
    );
  }
  const manager = query.get('fieldManager') ?? undefined;
  if (manager !== undefined && manager.length > 128) {
    throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
      {
        reason: 'FieldValueTooLong',
        message: 'Too long: may not be more than 128 bytes',
        field: 'fieldManager',
      },
    ]);
  }
  const force = query.get('force');
  return {
    fieldManager: manager,
    force: force === 'true' || force === '1',
    dryRun: dryRun.length > 0,
    fieldValidation: validation as FieldValidation,
    defaultManager: (userAgent ?? 'unknown').split('/')[0] || 'unknown',
    warnings: [],
  };
}
