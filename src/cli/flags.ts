import { writeCliError } from './cli-error.ts';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { CliContext } from './context.ts';
import { joinNegativeValues } from '../config/negative-values.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses a server command's flags (no positionals). Returns the values, or `'help'` after printing
 * `help`, or `'usage'` after printing the parser's complaint: the caller returns the exit code.
 */
export function parseCommandFlags(
  command: string,
  argv: string[],
  options: Options,
  help: string,
  ctx: CliContext,
): Record<string, string | boolean | undefined> | 'help' | 'usage' {
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    const valueFlags = new Set(
      Object.entries(options).flatMap(([name, o]) =>
        o.type === 'string' ? [name, ...(o.short ? [o.short] : [])] : [],
      ),
    );
    values = parseArgs({
      args: joinNegativeValues(argv, valueFlags),
      options: { ...options, help: { type: 'boolean' } },
      strict: true,
    }).values;
  } catch (error) {
    writeCliError(ctx, command, 'MOORING_E_INPUT_INVALID', (error as Error).message);
    return 'usage';
  }
  if (values.help) {
    ctx.stdout.write(help);
    return 'help';
  }
  return values as Record<string, string | boolean | undefined>;
}

/** A TCP port from a flag's text: an integer 0..65535, or a problem line. */
export function parsePort(text: string, problems: string[]): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) problems.push(`--port must be an integer 0..65535, got "${text}"`);
  return port;
}

/** Resolves when the command is asked to stop (Ctrl-C, SIGTERM). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
