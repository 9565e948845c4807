import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { absoluteHeapFlags } from '../../bench/lib/image-runtime.ts';

const script = fileURLToPath(new URL('../../bench/floor-pairs.ts', import.meta.url));

describe('bench/floor-pairs.ts', () => {
  it('runs the bare client and the pull floor in turn, and gives each pair its quotient', () => {
    const run = spawnSync(process.execPath, [script, '--deployments', '3', '--pairs', '2'], {
      encoding: 'utf8',
      timeout: 150_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      deployments: number;
      client_node_options: string[];
      pairs: { bare_s: number; pull_s: number; pull_over_bare: number }[];
      pull_over_bare_median: number;
      pull_over_bare_min: number;
      pull_over_bare_max: number;
    };
    expect(result.deployments).toBe(3);
    expect(result.pairs).toHaveLength(2);
    for (const p of result.pairs) {
      expect(p.bare_s).toBeGreaterThan(0);
      expect(p.pull_s).toBeGreaterThan(0);
      expect(Math.abs(p.pull_over_bare - p.pull_s / p.bare_s)).toBeLessThan(0.001);
    }
    const [a, b] = result.pairs.map((p) => p.pull_over_bare) as [number, number];
    expect(result.pull_over_bare_min).toBe(Math.min(a, b));
    expect(result.pull_over_bare_max).toBe(Math.max(a, b));
    expect(Math.abs(result.pull_over_bare_median - (a + b) / 2)).toBeLessThan(0.001);
    // By default the pull client runs with the image's heap flags, the old generation made absolute.
    expect(result.client_node_options.some((f) => /^--max-old-space-size=\d+$/.test(f))).toBe(true);
    // In turn: the bare client's round, then the pull floor's, twice.
    const order = [...run.stderr.matchAll(/\[(ratio-floor|pull-floor)\] round 1/g)].map((m) => m[1]);
    expect(order).toEqual(['ratio-floor', 'pull-floor', 'ratio-floor', 'pull-floor']);
    expect(run.stderr).toMatch(/pair 2: bare [\d.]+ s, pull [\d.]+ s: pull over bare [\d.]+/);
  }, 180_000);

  it('refuses a bad count with its usage', () => {
    const run = spawnSync(process.execPath, [script, '--deployments', '3', '--pairs', '0'], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('usage: node bench/floor-pairs.ts');
  });
});

describe('absoluteHeapFlags', () => {
  it("gives the old generation's share of a limit as a size, and keeps the semi-spaces", () => {
    expect(absoluteHeapFlags('--max-old-space-size-percentage=60 --max-semi-space-size=4', 256)).toEqual([
      '--max-old-space-size=153',
      '--max-semi-space-size=4',
    ]);
    expect(absoluteHeapFlags('--max-old-space-size-percentage=50', 1024)).toEqual([
      '--max-old-space-size=512',
    ]);
  });

  it('leaves out flags that do not size the heap', () => {
    expect(absoluteHeapFlags('--enable-source-maps  --max-semi-space-size=8 --trace-gc', 256)).toEqual([
      '--max-semi-space-size=8',
    ]);
    expect(absoluteHeapFlags('', 256)).toEqual([]);
  });
});
