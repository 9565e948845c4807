/**
 * The per-replica figures of `--replicas`: a histogram's mean between two scrapes counts only the
 * observations in between (a replica's idle resyncs, not its cold start), and the table gives one
 * line per replica.
 */
import { describe, expect, it } from 'vitest';
import { emptyResult, formatTable } from '../../bench/lib/figures.ts';
import { meanBetween, requestsOf } from '../../bench/lib/replica-phases.ts';

const histogram = (count: number, sum: number) =>
  `# TYPE mooring_resync_duration_seconds histogram\nmooring_resync_duration_seconds_bucket{le="+Inf"} ${count}\nmooring_resync_duration_seconds_sum ${sum}\nmooring_resync_duration_seconds_count ${count}\n`;

describe('replica figures', () => {
  it('the mean of a histogram between two scrapes counts only what fell between them', () => {
    const cold = histogram(1, 40);
    const idle = histogram(4, 40 + 3 * 0.5);
    expect(meanBetween('', cold, 'mooring_resync_duration_seconds')).toBe(40);
    expect(meanBetween(cold, idle, 'mooring_resync_duration_seconds')).toBe(0.5);
    expect(meanBetween(idle, idle, 'mooring_resync_duration_seconds')).toBeNull();
    expect(meanBetween('', '', 'mooring_resync_duration_seconds')).toBeNull();
  });

  it("a replica's writes and reads are summed over the verbs named, from its request counter", () => {
    const text = [
      'mooring_kube_requests_total{verb="apply",result="200"} 30',
      'mooring_kube_requests_total{verb="apply",result="409"} 2',
      'mooring_kube_requests_total{verb="update",result="200"} 5',
      'mooring_kube_requests_total{verb="get",result="200"} 7',
    ].join('\n');
    expect(requestsOf(text, ['create', 'update', 'patch', 'apply', 'delete'])).toBe(37);
    expect(requestsOf(text, ['get', 'list'])).toBe(7);
    expect(requestsOf('', ['get'])).toBeNull();
  });

  it('the table gives one line per replica', () => {
    const r = emptyResult(1000, 4, 5);
    r.replicas = 2;
    r.replica_figures = ['agent-0', 'agent-1'].map((name, i) => ({
      name,
      peak_rss_mib: 100 + i,
      cpu_s: 10,
      shards_held: 3,
      deployments: 500,
      reconciles: 700,
      cold_resync_s: 20,
      idle_resync_s: 1.5,
      idle_poll_s: 0.2,
      idle_cpu_s_per_cycle: 0.3,
    }));
    const lines = formatTable(r)
      .split('\n')
      .filter((l) => l.startsWith('- replica '));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('agent-1');
    expect(lines[1]).toContain('"peak_rss_mib":101');
  });
});
