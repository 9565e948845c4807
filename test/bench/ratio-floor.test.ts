import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../bench/ratio-floor.ts', import.meta.url));

describe('bench/ratio-floor.ts', () => {
  it('applies every rendered object with the bare client, then with kubectl, and gives their ratio', () => {
    const run = spawnSync(process.execPath, [script, '--deployments', '4', '--rounds', '1'], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      objects: number;
      rounds: { bare_applies: number; bare_s: number; kubectl_s: number; ratio: number }[];
      ratio_median: number;
    };
    expect(result.objects).toBeGreaterThan(4);
    expect(result.rounds).toHaveLength(1);
    const [row] = result.rounds;
    expect(row?.bare_applies).toBe(result.objects);
    expect(row?.kubectl_s).toBeGreaterThan(0);
    // Both times are given to the millisecond; the ratio is of the unrounded ones.
    const fromTimes = (row?.bare_s ?? 0) / (row?.kubectl_s ?? 1);
    expect(Math.abs((row?.ratio ?? 0) - fromTimes) / fromTimes).toBeLessThan(0.05);
    expect(result.ratio_median).toBe(row?.ratio);
    expect(run.stderr).toMatch(/round 1: bare client [\d.]+ s .* kubectl [\d.]+ s: ratio [\d.]+/);
  }, 150_000);

  it('with --skip-kubectl gives the bare client seconds and its peak RSS alone, no ratio', () => {
    const run = spawnSync(
      process.execPath,
      [script, '--deployments', '3', '--rounds', '1', '--skip-kubectl'],
      {
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      objects: number;
      rounds: { bare_applies: number; bare_s: number; bare_peak_rss_mib: number; kubectl_s: number | null }[];
      ratio_median: number | null;
      bare_s_median: number;
    };
    const [row] = result.rounds;
    expect(row?.bare_applies).toBe(result.objects);
    expect(row?.bare_s).toBeGreaterThan(0);
    expect(result.bare_s_median).toBe(row?.bare_s);
    // A Node process holding the agent's HTTP client is tens of MiB resident, never nothing.
    expect(row?.bare_peak_rss_mib).toBeGreaterThan(20);
    expect(row?.kubectl_s).toBeNull();
    expect(result.ratio_median).toBeNull();
    expect(run.stderr).not.toContain('kubectl');
    // The warm-up runs first and is not among the rounds.
    const warm = run.stderr.indexOf('warm-up: a throwaway round of 3 deployments');
    expect(warm).toBeGreaterThanOrEqual(0);
    expect(warm).toBeLessThan(run.stderr.indexOf('round 1: bare client'));
  }, 150_000);

  it('refuses a bad count with its usage', () => {
    const run = spawnSync(process.execPath, [script, '--rounds', 'none'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('usage: node bench/ratio-floor.ts');
  });
});
