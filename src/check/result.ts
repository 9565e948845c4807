/** One line of `mooring check`'s checklist, and how the list is printed. */
import type { ErrorCode } from '../errors.ts';

/** `fail` makes the command exit non-zero; `warn` is said and passes; `skip`: not run, see why. */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  /** What was checked, e.g. `Kubernetes API reachable`. */
  check: string;
  status: CheckStatus;
  /** What was found. */
  detail: string;
  /** The error code behind a failure or warning. */
  code?: ErrorCode;
  /** What to do about it. */
  fix?: string;
}

/** A result, with `code` and `fix` only when given. */
export function result(
  check: string,
  status: CheckStatus,
  detail: string,
  extra: { code?: ErrorCode | undefined; fix?: string | undefined } = {},
): CheckResult {
  return {
    check,
    status,
    detail,
    ...(extra.code ? { code: extra.code } : {}),
    ...(extra.fix ? { fix: extra.fix } : {}),
  };
}

const MARK: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip' };

/** The checklist as text: one line per check, then its fix indented under it. */
export function formatChecklist(results: readonly CheckResult[]): string {
  let out = '';
  for (const r of results) {
    const code = r.code && r.status !== 'ok' ? `${r.code}: ` : '';
    out += `${MARK[r.status]}  ${r.check}: ${code}${r.detail}\n`;
    if (r.fix && r.status !== 'ok') out += `      fix: ${r.fix}\n`;
  }
  const failed = results.filter((r) => r.status === 'fail').length;
  out += failed === 0 ? '\nall checks passed\n' : `\n${failed} check${failed > 1 ? 's' : ''} failed\n`;
  return out;
}

/** Whether every check passed (warnings and skips aside). */
export function passed(results: readonly CheckResult[]): boolean {
  return results.every((r) => r.status !== 'fail');
}
