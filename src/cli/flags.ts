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
  /** Whether positionals are taken (returned under `_`). */
  positionals = false,
): Record<string, string | boolean | undefined> | 'help' | 'usage' {
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  let rest: string[] = [];
  try {
    const valueFlags = new Set(
      Object.entries(options).flatMap(([name, o]) =>
        o.type === 'string' ? [name, ...(o.short ? [o.short] : [])] : [],
      ),
    );
    const parsed = parseArgs({
      args: joinNegativeValues(argv, valueFlags),
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: positionals,
    });
    values = parsed.values;
    rest = parsed.positionals;
  } catch (error) {
    writeCliError(ctx, command, 'MOORING_E_INPUT_INVALID', (error as Error).message);
    return 'usage';
  }
  if (values.help) {
    ctx.stdout.write(help);
    return 'help';
  }
  return (positionals ? { ...values, _: rest } : values) as Record<string, string | boolean | undefined>;
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
