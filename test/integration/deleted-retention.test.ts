/**
 * Acceptance (issue 41): a deleted deployment leaves the control plane after its retention, and
 * the agent removes its objects on either path: it sees the deployment `AWAITING_DELETE`, or the
 * record was purged before it looked and it finds it absent from two complete listings. The
 * second path runs through a control-plane outage, during which nothing is deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentBody, NAMESPACE, spawnAgent, type Stack, startStack, waitForState } from './harness.ts';
import type { AgentProcess } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';

const RETENTION_S = 30;
const INTERVAL_S = 1;

describe('deleted deployments leave the control plane and the cluster', { timeout: 90_000 }, () => {
  let stack: Stack;
  let agent: AgentProcess;
  /** The control plane's clock runs this far ahead of the real one (moved on to pass the retention). */
  let skewMs = 0;
  const ids = { seen: '', purged: '' };

  const owned = (id: string) =>
    stack.kubectl([
      'get',
      'deploy,sts,svc,secret,hpa,pdb,networkpolicy',
      '-n',
      NAMESPACE,
      '-l',
      `mooring.dev/deployment-id=${id}`,
      '-o',
      'name',
    ]);
  const status = async (id: string) =>
    (await fetch(`${stack.cp.url}/v2/deployments/${id}`, { headers: { 'x-api-key': stack.apiKey } })).status;

  beforeAll(async () => {
    stack = await startStack({
      controlPlane: { now: () => new Date(Date.now() + skewMs), deletedRetentionSeconds: RETENTION_S },
    });
    ids.seen = (await stack.client.createDeployment(deploymentBody('seen', 'registry.example/seen:1'))).id;
    ids.purged = (
      await stack.client.createDeployment(deploymentBody('purged', 'registry.example/purged:1'))
    ).id;
    agent = spawnAgent(stack.agentEnv({ MOORING_POLL_INTERVAL: String(INTERVAL_S) }));
    await waitForState(agent, ids.seen, 'Ready', 40_000);
    await waitForState(agent, ids.purged, 'Ready', 40_000);
    expect((await owned(ids.purged)).trim()).not.toBe('');
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await stack?.close();
  });

  it('seen as AWAITING_DELETE: the objects go, then the record leaves after its retention', async () => {
    await stack.client.deleteDeployment(ids.seen);
    await waitFor('objects of "seen" gone', async () => (await owned(ids.seen)).trim() === '', 20_000);
    expect(await status(ids.seen)).toBe(200);
    skewMs += (RETENTION_S + 1) * 1000;
    expect(await status(ids.seen)).toBe(404);
    const listed = await stack.client.listAllDeployments();
    expect(listed.items.map((d) => d.id)).not.toContain(ids.seen);
    expect(listed.items.map((d) => d.id)).toContain(ids.purged);
    expect((await owned(ids.seen)).trim()).toBe('');
  });

  it('purged while the control plane was down: nothing is deleted during the outage; absent from two listings after it, the objects go', async () => {
    await stack.cp.stop();
    const deletesBefore = stack.kube.requests({ verb: 'delete' }).length;
    // Deleted and past its retention while no agent could see it: the first request after the
    // outage purges it, so the agent never sees AWAITING_DELETE.
    stack.cp.store.deployments.markForDeletion(ids.purged, undefined);
    skewMs += (RETENTION_S + 1) * 1000;
    await new Promise((r) => setTimeout(r, INTERVAL_S * 4000));
    expect(stack.kube.requests({ verb: 'delete' }).length).toBe(deletesBefore);
    expect((await owned(ids.purged)).trim()).not.toBe('');

    await stack.cp.start();
    expect(await status(ids.purged)).toBe(404);
    await waitFor('objects of "purged" gone', async () => (await owned(ids.purged)).trim() === '', 30_000);
    expect(stack.kube.requests({ verb: 'delete' }).length).toBeGreaterThan(deletesBefore);
    expect(
      (await stack.kubectl(['get', 'deploy,sts,svc,secret', '-n', NAMESPACE, '-o', 'name'])).trim(),
    ).toBe('');
  });
});
