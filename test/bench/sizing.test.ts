import { describe, expect, it } from 'vitest';
import { emptyResult } from '../../bench/lib/figures.ts';
import { SIZING_END, SIZING_START, sizingBlock, updateSizing } from '../../bench/lib/sizing.ts';

function result(deployments: number, limit: number | null, extra: Record<string, unknown> = {}) {
  return {
    ...emptyResult(deployments, 4, 5),
    started_at: '2026-11-26T10:00:00.000Z',
    objects: deployments * 12,
    memory_limit_mib: limit,
    convergence_s: 11.52,
    cgroup_peak_mib: 154.1,
    peak_rss_mib: 202.5,
    commit: 'abc1234',
    ...extra,
  };
}

describe("the operator guide's sizing table", () => {
  const doc = `# Guide\n\n## Footprint\n\n${SIZING_START}\nstale 999 MiB\n${SIZING_END}\n\n- advice\n`;

  it('replaces only what lies between the markers, one row per result, smallest first', () => {
    const out = updateSizing(doc, [result(10_000, 512), result(1000, 256), result(1000, 128)]);
    expect(out).not.toContain('stale');
    expect(out.startsWith('# Guide\n\n## Footprint\n\n')).toBe(true);
    expect(out.endsWith(`${SIZING_END}\n\n- advice\n`)).toBe(true);
    const rows = out.split('\n').filter((l) => /^\| \d/.test(l));
    expect(rows.map((r) => r.split(' | ').slice(0, 2).join(' | '))).toEqual([
      '| 1,000 (12,000) | 128Mi',
      '| 1,000 (12,000) | 256Mi',
      '| 10,000 (120,000) | 512Mi',
    ]);
    expect(rows[0]).toContain('202.5 / 154.1');
    expect(updateSizing(out, [result(1000, 256)])).toBe(updateSizing(doc, [result(1000, 256)]));
  });

  it('names the commit each row measured, else its label, and any experiment', () => {
    expect(sizingBlock([result(1000, 256)])).toContain('`abc1234`, 2026-11-26');
    expect(sizingBlock([result(1000, 256, { commit: undefined, label: 'main@c35ba88' })])).toContain(
      '`main@c35ba88`, 2026-11-26',
    );
    expect(
      sizingBlock([
        result(1000, 256, { notes: ['agent --resync-interval 60: polls in between resync nothing'] }),
      ]),
    ).toContain('agent --resync-interval 60');
  });

  it('gives the limit the agent said the listener needs, and the deployments that waited for memory', () => {
    const memory = {
      heap_live_mib: 120,
      heap_limit_mib: 153.6,
      needed_limit_mib: 416,
      waiting_for_memory: 2300,
    };
    const rows = sizingBlock([result(10_000, 256, { agent_memory: memory }), result(1000, 256)])
      .split('\n')
      .filter((l) => /^\| \d/.test(l));
    expect(rows[1]).toContain('| 416Mi, 2,300 |');
    expect(rows[0]).toContain('| - |');
  });

  it('says why a run has no convergence time, never a bare dash for one that did not converge', () => {
    const row = (extra: Record<string, unknown>) =>
      sizingBlock([result(5000, 128, { convergence_s: null, ...extra })])
        .split('\n')
        .find((l) => l.startsWith('| 5,000'));
    expect(row({ notes: ['the agent did not converge within 420 s (see x/agent.log)'] })).toContain(
      '| not within 420 s |',
    );
    expect(row({ notes: ['the agent exited (SIGABRT; see its log)'] })).toContain('| agent exited first |');
    expect(row({ notes: [] })).toContain('| 128Mi | - | - |');
    expect(row({ agent_oom_kills: 0, agent_heap_exhaustions: 1 })).toContain('| 128Mi | 0, out of heap 1 |');
  });

  it('refuses a document without the markers', () => {
    expect(() => updateSizing('# Guide\n', [result(1000, 256)])).toThrow(/markers/);
  });
});
