/** `mooring completion bash|zsh`, the bash script sourced in bash and asked as the shell would. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { completion } from '../../src/cli/completion.ts';
import { captureContext } from './helpers.ts';

async function script(shell: string): Promise<string> {
  const c = captureContext();
  expect(await completion([shell], c.ctx)).toBe(0);
  return c.stdout();
}

/** What the bash completion offers for the words typed (the last one being completed). */
async function complete(bashScript: string, words: string[]): Promise<string[]> {
  const program = `${bashScript}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})
COMP_CWORD=${words.length - 1}
_mooring
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const { stdout } = await promisify(execFile)('bash', ['-c', program]);
  return stdout.split('\n').filter((l) => l !== '');
}

describe('mooring completion', () => {
  it('bash: completes commands, and each command only with the flags it takes', async () => {
    const bash = await script('bash');
    expect(await complete(bash, ['mooring', 'di'])).toEqual(['diff']);
    expect(await complete(bash, ['mooring', 'c'])).toEqual(['check', 'cp', 'completion', 'control-plane']);
    expect(await complete(bash, ['mooring', 'check', '--pod'])).toEqual(['--pod-security']);
    expect(await complete(bash, ['mooring', 'diff', '--ops'])).toEqual([]);
    expect(await complete(bash, ['mooring', 'run', '--ops'])).toEqual(['--ops-host', '--ops-port']);
    expect(await complete(bash, ['mooring', 'sandbox', '--'])).toEqual([
      '--once',
      '--port-base',
      '--timeout',
      '--help',
    ]);
  });

  it('zsh: a compdef script naming every command with its summary', async () => {
    const zsh = await script('zsh');
    expect(zsh.startsWith('#compdef mooring\n')).toBe(true);
    expect(zsh).toContain(
      "'check:check, writing nothing, that the agent can work with these settings (a preflight)'",
    );
    expect(zsh).toMatch(/^ {4}sandbox\) compadd -- --once --port-base --timeout --help ;;$/m);
  });

  it('another shell: a coded error, exit 2', async () => {
    const c = captureContext();
    expect(await completion(['fish'], c.ctx)).toBe(2);
    expect(c.stderr()).toBe(
      'mooring completion: MOORING_E_INPUT_INVALID: expected bash or zsh, got "fish"\n',
    );
  });
});
