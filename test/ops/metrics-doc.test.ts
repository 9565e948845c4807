import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/ops/metrics.ts';

/** The metric names of the operator guide's "Metrics reference" table. */
function documentedMetrics(): string[] {
  const guide = readFileSync(new URL('../../docs/operator-guide.md', import.meta.url), 'utf8');
  const start = guide.indexOf('## Metrics reference');
  const table = guide.slice(start, guide.indexOf('\n## ', start + 1));
  return [...table.matchAll(/^\| `([a-z_:]+)` \|/gm)].map((m) => m[1]!);
}

describe('the operator guide’s metrics reference', () => {
  it('lists every metric family the agent exports, and nothing it does not', async () => {
    const exposition = await createMetrics({ version: '0.0.0' }).registry.metrics();
    const exported = [...exposition.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!);
    // process_virtual_memory_bytes and process_heap_bytes come with the resident memory on Linux
    // and are named in its row.
    const companions = new Set(['process_virtual_memory_bytes', 'process_heap_bytes']);
    const documented = documentedMetrics();
    expect(documented.length).toBeGreaterThan(10);
    expect(exported.filter((m) => !documented.includes(m) && !companions.has(m))).toEqual([]);
    expect(documented.filter((m) => !exported.includes(m))).toEqual([]);
  });
});
