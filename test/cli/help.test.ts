/**
 * Every command's --help in the one style (usage, summary, flags), no line over 100 columns, each
 * listing only the flags the command reads; and a negative flag value gives the flag's own coded
 * problem, not node's "argument is ambiguous".
 */
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/index.ts';
import { captureContext } from './helpers.ts';

async function help(name: string): Promise<string> {
  const c = captureContext();
  const command = await COMMANDS[name]!.load();
  expect(await command(['--help'], c.ctx)).toBe(0);
  return c.stdout();
}

describe('--help', () => {
  for (const name of Object.keys(COMMANDS)) {
    it(`mooring ${name} --help: one style, at most 100 columns`, async () => {
      const text = await help(name);
      expect(text.startsWith(`Usage: mooring ${name}`)).toBe(true);
      expect(text).toContain('\nFlags:\n');
      expect(text).toMatch(/^ {2}-h, --help {2,}print this text$/m);
      expect(text.split('\n').filter((l) => l.length > 100)).toEqual([]);
    });
  }

  it('diff lists the flags it reads and none of the ones it ignores', async () => {
    const text = await help('diff');
    for (const read of ['--control-plane-url', '--namespaces', '--settings', '--concurrency', '--verbose']) {
      expect(text).toContain(read);
    }
    for (const ignored of [
      '--poll-interval',
      '--resync-interval',
      '--heartbeat-interval',
      '--ops-host',
      '--ops-port',
      '--leader-election',
      '--lease-name',
      '--lease-namespace',
      '--lease-duration',
      '--shards',
      '--restart-memo',
      '--identity',
      '--shutdown-grace-period',
      '--dry-run',
    ]) {
      expect(text).not.toContain(ignored);
    }
  });

  it('check lists what it checks with, and -o', async () => {
    const text = await help('check');
    for (const read of ['--pod-security', '--leader-election', '--kubeconfig', '-o, --output <format>']) {
      expect(text).toContain(read);
    }
    expect(text).not.toContain('--concurrency');
    expect(text).not.toContain('--ops-port');
  });
});

describe('a negative flag value', () => {
  it("run --poll-interval -5: the flag's coded problem, exit 2", async () => {
    const c = captureContext();
    const { run } = await import('../../src/cli/run.ts');
    expect(await run(['--poll-interval', '-5'], c.ctx)).toBe(2);
    expect(c.stderr()).toContain(
      'mooring run: MOORING_E_CONFIG_INVALID: --poll-interval (MOORING_POLL_INTERVAL): must be a positive number of seconds (got "-5")',
    );
    expect(c.stderr()).not.toContain('ambiguous');
  });

  it('sandbox --timeout -5 and control-plane --port -1: coded, not ambiguous', async () => {
    const sandbox = captureContext();
    expect(await (await COMMANDS.sandbox!.load())(['--timeout', '-5'], sandbox.ctx)).toBe(2);
    expect(sandbox.stderr()).toContain(
      'mooring sandbox: MOORING_E_INPUT_INVALID: --timeout: must be a positive number',
    );
    const cp = captureContext();
    expect(await (await COMMANDS['control-plane']!.load())(['--port', '-1', '--api-key', 'k'], cp.ctx)).toBe(
      2,
    );
    expect(cp.stderr()).toContain(
      'mooring control-plane: MOORING_E_INPUT_INVALID: --port must be an integer 0..65535',
    );
    expect(`${sandbox.stderr()}${cp.stderr()}`).not.toContain('ambiguous');
  });
});
