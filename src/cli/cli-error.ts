import type { ErrorCode } from '../errors.ts';
import type { CliContext } from './context.ts';
import { escapeControls } from './terminal-text.ts';

/**
 * Writes one CLI error line, `mooring <command>: <code>: <message>`: every refusal a command
 * prints carries a code of `docs/errors.md`, so scripts and people can act on it without parsing
 * the prose.
 */
export function writeCliError(
  ctx: Pick<CliContext, 'stderr'>,
  command: string,
  code: ErrorCode,
  message: string,
): void {
  // The message may quote a record's text (a name, a key): shown, never interpreted.
  ctx.stderr.write(`mooring ${command}: ${code}: ${escapeControls(message)}\n`);
}
