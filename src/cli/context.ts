import type { Writable } from 'node:stream';

/**
 * What a command receives from the composition root. Commands never read `process.env` or call
 * `process.exit`: they get the environment here and return their exit code.
 */
export interface CliContext {
  /** The process environment, read once by main.ts. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: Writable;
  readonly stderr: Writable;
  /** Aborted on the first SIGINT or SIGTERM: long-running commands shut down gracefully. */
  readonly signal: AbortSignal;
  /** The working directory, for resolving relative paths. */
  readonly cwd: string;
  /** mooring's version (package.json). */
  readonly version: string;
}

/** A subcommand: parses its own argv and returns the process exit code. */
export type Command = (argv: string[], ctx: CliContext) => Promise<number>;

/** Exit codes shared by every command. */
export const EXIT = {
  ok: 0,
  failure: 1,
  /** Bad configuration, flags or input files. */
  usage: 2,
} as const;
