/** What the memory budget (memory-budget.ts) says in its logs, `/readyz` and refusals. */
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
