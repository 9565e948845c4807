import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../bench/pull-floor.ts', import.meta.url));

describe('bench/pull-floor.ts', () => {
  it('lists, reads every revision, renders and applies every object, and polls while it converges', () => {
    // A poll interval far below a round's length: the rounds must list again while they apply.
    const run = spawnSync(
      process.execPath,
      [script, '--deployments', '6', '--rounds', '2', '--poll-interval', '0.05'],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      deployments: number;
      objects: number;
      rounds: {
        pull_s: number;
        pull_applies: number;
        pull_listings: number;
        pull_revision_reads: number;
        pull_peak_rss_mib: number;
      }[];
      pull_s_median: number;
    };
    expect(result.deployments).toBe(6);
    expect(result.objects).toBeGreaterThan(6);
    expect(result.rounds).toHaveLength(2);
    for (const row of result.rounds) {
      expect(row.pull_applies).toBe(result.objects);
      expect(row.pull_revision_reads).toBe(6);
      expect(row.pull_listings).toBeGreaterThanOrEqual(1);
      expect(row.pull_s).toBeGreaterThan(0);
      expect(row.pull_peak_rss_mib).toBeGreaterThan(0);
    }
    expect(Math.max(...result.rounds.map((r) => r.pull_listings))).toBeGreaterThanOrEqual(2);
    expect(result.pull_s_median).toBeGreaterThan(0);
    expect(run.stderr).toMatch(/warm-up: a throwaway round of 6 deployments/);
    expect(run.stderr).toMatch(/round 2: [\d.]+ s \(its CPU [\d.]+ s; sandbox and control plane/);
  }, 150_000);

  it('refuses a bad count with its usage', () => {
    const run = spawnSync(process.execPath, [script, '--deployments', 'many'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('usage: node bench/pull-floor.ts');
  });
});
