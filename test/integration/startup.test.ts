/** Start-up refusals with the real programs: a missing listener or namespace stops the agent (exit 1, coded line). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnAgent, type Stack, startStack } from './harness.ts';

describe('start-up refusals', { timeout: 60_000 }, () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
  });

  it('an unknown listener: exit 1 with MOORING_E_LISTENER_NOT_FOUND, nothing written', async () => {
    const agent = spawnAgent(stack.agentEnv({ MOORING_LISTENER_ID: '00000000-0000-4000-8000-000000000000' }));
    const exit = await agent.exited;
    expect(exit.code).toBe(1);
    expect(agent.stderr()).toMatch(
      /^mooring run: MOORING_E_LISTENER_NOT_FOUND: listener 00000000-0000-4000-8000-000000000000 does not exist$/m,
    );
    expect(stack.kube.requests().filter((r) => r.write)).toEqual([]);
  });

  it('a namespace that does not exist: exit 1 with MOORING_E_KUBE_NOT_FOUND naming it', async () => {
    const agent = spawnAgent(stack.agentEnv({ MOORING_NAMESPACES: 'apps,ghost' }));
    const exit = await agent.exited;
    expect(exit.code).toBe(1);
    expect(agent.stderr()).toMatch(/^mooring run: MOORING_E_KUBE_NOT_FOUND: namespace ghost not found/m);
    expect(stack.cp.stats().byRoute['PATCH /v2/listeners/{listener_id}'] ?? 0).toBe(0);
  });
});
