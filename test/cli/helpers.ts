import { Writable } from 'node:stream';
import type { CliContext } from '../../src/cli/context.ts';

/** A CliContext whose stdout and stderr are captured as text. */
export function captureContext(
  env: Record<string, string | undefined> = {},
  signal = new AbortController().signal,
  cwd = process.cwd(),
) {
  const out: string[] = [];
  const err: string[] = [];
  const sink = (into: string[]) =>
    new Writable({
      write(chunk, _enc, cb) {
        into.push(String(chunk));
        cb();
      },
    });
  const ctx: CliContext = {
    env,
    stdout: sink(out),
    stderr: sink(err),
    signal,
    cwd,
    version: '0.0.0-test',
  };
  return { ctx, stdout: () => out.join(''), stderr: () => err.join('') };
}
