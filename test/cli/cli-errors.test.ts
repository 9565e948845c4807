/**
 * docs/errors.md promises a `MOORING_E_*` code on every CLI error message: every command's
 * refusals (bad flags, bad settings, bad files, an unreachable agent) carry one, and the code is
 * one of `src/errors.ts`.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/index.ts';
import { ERROR_CODES } from '../../src/errors.ts';
import { captureContext } from './helpers.ts';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Each case: a command, its argv and environment, and the code its error lines must carry. */
const CASES: Array<[string, string[], Record<string, string>, string]> = [
  ['run', ['--bogus'], {}, 'MOORING_E_CONFIG_INVALID'],
  ['run', [], { MOORING_POLL_INTERVAL: 'often' }, 'MOORING_E_CONFIG_INVALID'],
  ['diff', ['--concurrency', 'x'], {}, 'MOORING_E_CONFIG_INVALID'],
  ['render', ['--bogus'], {}, 'MOORING_E_INPUT_INVALID'],
  ['render', ['--output', 'xml'], {}, 'MOORING_E_INPUT_INVALID'],
  ['status', ['--url', 'ftp://x'], {}, 'MOORING_E_INPUT_INVALID'],
  ['status', ['--timeout', '0'], {}, 'MOORING_E_INPUT_INVALID'],
  ['status', ['--bogus'], {}, 'MOORING_E_INPUT_INVALID'],
  ['sandbox', ['--port-base', 'x'], {}, 'MOORING_E_INPUT_INVALID'],
  ['sandbox', ['--timeout', '-1'], {}, 'MOORING_E_INPUT_INVALID'],
  ['sandbox', ['--bogus'], {}, 'MOORING_E_INPUT_INVALID'],
  ['control-plane', [], {}, 'MOORING_E_INPUT_INVALID'],
  ['control-plane', ['--bogus'], {}, 'MOORING_E_INPUT_INVALID'],
  ['kube-api', ['--port', '99999', '--namespaces', 'Not_OK'], {}, 'MOORING_E_INPUT_INVALID'],
  ['kube-api', ['--bogus'], {}, 'MOORING_E_INPUT_INVALID'],
];

describe('every CLI error message carries a MOORING_E_* code', () => {
  it.each(CASES)('mooring %s %j', async (name, argv, env, code) => {
    const c = captureContext(env);
    const command = await COMMANDS[name]!.load();
    expect(await command(argv, c.ctx)).toBe(2);
    // `mooring run` ends with a hint to its --help: not an error line.
    const lines = c
      .stderr()
      .trim()
      .split('\n')
      .filter((l) => l !== `mooring ${name}: see mooring ${name} --help`);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.startsWith(`mooring ${name}: ${code}: `), line).toBe(true);
    expect(Object.keys(ERROR_CODES)).toContain(code);
  });

  it('mooring status against an agent that is not there', async () => {
    const c = captureContext();
    const status = await COMMANDS.status!.load();
    const port = await closedPort();
    expect(await status(['--url', `http://127.0.0.1:${port}`], c.ctx)).toBe(1);
    expect(c.stderr()).toBe(
      `mooring status: MOORING_E_STATUS_UNAVAILABLE: cannot reach http://127.0.0.1:${port}/status (ECONNREFUSED)\n`,
    );
  });
});
