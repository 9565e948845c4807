import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../bench/poll-cost.ts', import.meta.url));

describe('bench/poll-cost.ts', () => {
  it('polls an unchanged listing and prints each poll’s CPU and wall time, and the control plane thread’s CPU', () => {
    const run = spawnSync(process.execPath, [script, '--deployments', '30', '--polls', '3'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      /^30 deployments, main-thread CPU \/ wall \(ms\) per poll: start-up \d+\/\d+; unchanged \d+\/\d+ \d+\/\d+ \(CPU \d+-\d+ ms\)\n/,
    );
    expect(run.stdout).toMatch(
      /\ncontrol-plane thread CPU \(ms\) per poll: start-up \d+; unchanged \d+ \d+ \(\d+-\d+ ms\)\n$/,
    );
  });

  it('refuses a bad count with its usage', () => {
    const run = spawnSync(process.execPath, [script, '--deployments', 'many'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('usage: node bench/poll-cost.ts');
  });
});
