import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/ops/metrics.ts';

describe('agent metrics', () => {
  it('export the results the chart’s alerts count at 0 from the start, so increase() sees the first', async () => {
    const text = await createMetrics({ version: '1.2.3' }).registry.metrics();
    for (const line of [
      'mooring_reconciles_total{result="terminal"} 0',
      'mooring_reconciles_total{result="retry"} 0',
      'mooring_polls_total{result="failure"} 0',
      'mooring_heartbeats_total{result="failure"} 0',
      'mooring_prune_refusals_total{code="MOORING_E_PRUNE_CAP_EXCEEDED"} 0',
    ]) {
      expect(text.split('\n')).toContain(line);
    }
  });

  it('export the process’s resident memory and start time for the dashboard and the restart alert', async () => {
    const text = await createMetrics({ version: '1.2.3' }).registry.metrics();
    expect(Number(/^process_resident_memory_bytes (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
    expect(Number(/^process_start_time_seconds (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(1_600_000_000);
  });
});
