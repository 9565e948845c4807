import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../bench/redactor.ts', import.meta.url));

describe('bench/redactor.ts', () => {
  it('measures scrubbed log lines against the identity hook in one run, and prints the ratio', () => {
    const run = spawnSync(process.execPath, [script, '--values', '300', '--duration-ms', '300', '--json'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout) as Record<string, number>;
    expect(result.values).toBe(300);
    expect(result.forms).toBeGreaterThanOrEqual(600);
    expect(result.identityLinesPerCpuSecond).toBeGreaterThan(0);
    expect(result.scrubbedLinesPerCpuSecond).toBeGreaterThan(0);
    expect(result.ratio).toBeCloseTo(
      result.scrubbedLinesPerCpuSecond! / result.identityLinesPerCpuSecond!,
      2,
    );
    // One line in a hundred quotes a value, and the scrub finds it.
    expect(result.linesQuotingASecret).toBeCloseTo(0.01, 3);
  });

  it('refuses a bad count with its usage', () => {
    const run = spawnSync(process.execPath, [script, '--values', 'many'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('usage: node bench/redactor.ts');
  });
});
