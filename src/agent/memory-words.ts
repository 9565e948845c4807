/** What the memory budget (memory-budget.ts) says in its logs, `/readyz` and refusals. */
import type { HeapReading } from './heap-reading.ts';
import type { MemoryVerdict } from './memory-budget.ts';
import type { MemoryLevel } from './memory-levels.ts';

const MIB = 1024 * 1024;

export function actionOf(level: MemoryLevel): string {
  return level === 'short'
    ? 'one reconcile at a time; deployments never reconciled wait; no full resync'
    : 'fewer reconciles at a time';
}

export function describe(v: MemoryVerdict): string {
  const heap = `heap ${Math.round(v.liveBytes / MIB)} of ${Math.round(v.limitBytes / MIB)} MiB live (${v.level})`;
  const size =
    v.deployments > 0
      ? `; ${v.deployments} deployments need a memory limit of about ${Math.round(v.neededLimitBytes / MIB)} MiB${v.tooLarge ? ', more than this agent has' : ''}`
      : '';
  const deferred = v.deferred > 0 ? `; ${v.deferred} deployments wait for memory` : '';
  return `${heap}${size}${deferred}`;
}

/** The warning, once, that the listener is larger than this agent's heap holds: its fields and message. */
export function tooLargeLine(v: MemoryVerdict): [Record<string, unknown>, string] {
  const needed = Math.round(v.neededLimitBytes / MIB);
  return [
    {
      code: 'MOORING_E_MEMORY_SHORT',
      deployments: v.deployments,
      heapLimitMib: Math.round(v.limitBytes / MIB),
      neededMemoryLimitMib: needed,
    },
    `the listener's ${v.deployments} deployments need a memory limit of about ${needed} MiB (sizing.expectedDeployments in the chart); with less, the agent reconciles what fits and the rest waits`,
  ];
}

/** The warning, once, that a full resync's listing (`listingBytes`) would not fit. */
export function noResyncLine(reading: HeapReading, listingBytes: number): [Record<string, unknown>, string] {
  return [
    {
      code: 'MOORING_E_MEMORY_SHORT',
      liveMib: Math.round(reading.liveBytes / MIB),
      heapLimitMib: Math.round(reading.limitBytes / MIB),
      listingMib: Math.round(listingBytes / MIB),
    },
    'memory: a full resync would not fit (it lists every object); polls apply changes only until the heap has room',
  ];
}
