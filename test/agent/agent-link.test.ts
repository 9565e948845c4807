import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/agent/agent.ts';
import { AgentLink } from '../../src/agent/agent-link.ts';
import type { MemoryBudget } from '../../src/agent/memory-budget.ts';

const budget = { verdict: () => ({ liveBytes: 1, limitBytes: 2, neededLimitBytes: 3, deferred: 0 }) };

describe('AgentLink (the agent as the parts built before it see it)', () => {
  it('reads zero, records no Event and knows no deployment before the agent is attached; the agent after', () => {
    const link = new AgentLink();
    const sources = link.metricsSources('1.0.0', budget as unknown as MemoryBudget);
    expect([
      sources.deploymentStates?.(),
      sources.pausedObjects?.(),
      sources.queueDepth?.(),
      sources.inFlight?.(),
    ]).toEqual([{}, 0, 0, 0]);
    expect(link.recordsEvents()).toBe(false);
    expect(link.desiredOf('d1')).toBeUndefined();
    link.observeKubeResult('error');
    const seen: string[] = [];
    const agent = {
      status: { counts: () => ({ Ready: 2 }), pausedObjects: () => 1 },
      queueDepth: 3,
      inFlight: 4,
      recordsEvents: true,
      desiredOf: (id: string) => ({ id }),
      observeKubeResult: (r: string) => seen.push(r),
    } as unknown as Agent;
    expect(link.attach(agent)).toBe(agent);
    expect([
      sources.deploymentStates?.(),
      sources.pausedObjects?.(),
      sources.queueDepth?.(),
      sources.inFlight?.(),
    ]).toEqual([{ Ready: 2 }, 1, 3, 4]);
    expect(sources.memory?.()).toEqual(budget.verdict());
    expect(link.recordsEvents()).toBe(true);
    expect(link.desiredOf('d1')).toEqual({ id: 'd1' });
    link.observeKubeResult('success');
    expect(seen).toEqual(['success']);
  });
});
