/**
 * The agent's revision choice end to end against simulated builds (`--simulate-builds`): it runs
 * the latest revision while that one builds, and goes back to the active (deployed) revision when
 * the latest ends BUILD_FAILED.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentBody, NAMESPACE, spawnAgent, type Stack, startStack, waitForState } from './harness.ts';
import type { AgentProcess } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';

describe('the agent against simulated builds', { timeout: 90_000 }, () => {
  let stack: Stack;
  let agent: AgentProcess;
  let id = '';
  // The first revision's build succeeds, the second's fails.
  const draws = [0.9, 0.1];

  const image = async () =>
    (
      JSON.parse(await stack.kubectl(['get', 'deployment', 'built', '-n', NAMESPACE, '-o', 'json'])) as {
        spec: { template: { spec: { containers: { image: string }[] } } };
      }
    ).spec.template.spec.containers[0]!.image;

  beforeAll(async () => {
    stack = await startStack({
      controlPlane: { simulateBuildsSeconds: 5, buildFailureRate: 0.5, random: () => draws.shift() ?? 0.9 },
    });
    const body = {
      ...deploymentBody('built', 'registry.example/built:1'),
      source: 'internal_docker' as const,
    };
    const created = await stack.client.createDeployment(body);
    id = created.id;
    expect((await stack.client.getRevision(id, created.latest_revision_id!)).status).toBe('QUEUED');
    agent = spawnAgent(stack.agentEnv({ MOORING_POLL_INTERVAL: '1' }));
    await waitForState(agent, id, 'Ready', 40_000);
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await stack?.close();
  });

  it('runs the latest revision, and the active one again when the latest fails its build', async () => {
    expect(await image()).toBe('registry.example/built:1');
    const first = (await stack.client.listAllDeployments({ deployment_ids: [id] })).items[0]!;
    await waitFor(
      'the first revision DEPLOYED',
      async () => (await stack.client.getRevision(id, first.latest_revision_id!)).status === 'DEPLOYED',
      15_000,
    );

    const patched = await stack.client.patchDeployment(id, {
      source_revision_config: { image_uri: 'registry.example/built:2' },
    });
    // While it builds (3 s until BUILDING ends), the latest revision is the one to run.
    await waitFor('image 2 applied', async () => (await image()) === 'registry.example/built:2', 20_000);
    await waitFor(
      'the second revision BUILD_FAILED',
      async () => (await stack.client.getRevision(id, patched.latest_revision_id!)).status === 'BUILD_FAILED',
      15_000,
    );
    // Failed: back to the active revision, the first one.
    await waitFor(
      'image 1 applied again',
      async () => (await image()) === 'registry.example/built:1',
      20_000,
    );
    const after = (await stack.client.listAllDeployments({ deployment_ids: [id] })).items[0]!;
    expect(after.latest_revision_id).toBe(patched.latest_revision_id);
    expect(after.active_revision_id).toBe(first.latest_revision_id);
  });
});
