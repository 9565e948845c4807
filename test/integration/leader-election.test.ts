/**
 * Acceptance: two agent processes with leader election. Only the leader writes: the sandbox's
 * request log, which tells the replicas apart by their User-Agent (`mooring/<version> (<identity>)`),
 * shows writes from the leader only; the standby's own metrics agree, and the Lease names the
 * leader. When the leader is killed with
 * SIGKILL the standby takes over within 20 s and carries on reconciling; a SIGTERMed leader
 * releases the Lease.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentBody, NAMESPACE, spawnAgent, type Stack, startStack } from './harness.ts';
import type { AgentProcess } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';

const WRITE_VERBS =
  /mooring_kube_requests_total\{verb="(create|update|patch|apply|delete)",result="[^"]+"\} ([0-9.]+)/g;

function writesIn(metrics: string): number {
  let total = 0;
  for (const m of metrics.matchAll(WRITE_VERBS)) total += Number(m[2]);
  return total;
}

async function isLeader(agent: AgentProcess): Promise<boolean> {
  return (await agent.json<{ leader: boolean }>('/status')).leader;
}

describe('leader election between two agent processes', { timeout: 90_000 }, () => {
  let stack: Stack;
  const agents: Record<string, AgentProcess> = {};
  let id = '';

  const holder = async () =>
    (
      await stack.kubectl([
        'get',
        'lease',
        'mooring-leader',
        '-n',
        NAMESPACE,
        '-o',
        'jsonpath={.spec.holderIdentity}',
      ])
    ).trim();

  beforeAll(async () => {
    stack = await startStack();
    id = (await stack.client.createDeployment(deploymentBody('ha', 'registry.example/ha:1'))).id;
    for (const name of ['agent-a', 'agent-b']) {
      agents[name] = spawnAgent(stack.agentEnv({ MOORING_LEADER_ELECTION: 'true', MOORING_POD_NAME: name }));
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all(Object.values(agents).map((a) => a.stop()));
    await stack?.close();
  });

  let leader = '';
  let standby = '';

  it('elects one leader; only it writes', async () => {
    await waitFor('a leader', async () => (await holder()) !== '' || undefined, 30_000);
    leader = await holder();
    standby = leader === 'agent-a' ? 'agent-b' : 'agent-a';
    await waitFor(
      'objects created',
      async () =>
        (await stack.kubectl(['get', 'deploy', 'ha', '-n', NAMESPACE, '-o', 'name'])).includes('ha'),
      30_000,
    );
    // Give the standby several retry periods in which it could (wrongly) write.
    await new Promise((r) => setTimeout(r, 4000));
    expect(await isLeader(agents[leader]!)).toBe(true);
    expect(await isLeader(agents[standby]!)).toBe(false);
    const leaderMetrics = await agents[leader]!.text('/metrics');
    const standbyMetrics = await agents[standby]!.text('/metrics');
    expect(writesIn(leaderMetrics)).toBeGreaterThan(0);
    expect(standbyMetrics).toMatch(/mooring_kube_requests_total\{verb="get",result="200"\} [1-9]/);
    expect(standbyMetrics).toContain('mooring_leader 0');
    expect(leaderMetrics).toContain('mooring_leader 1');
    // The API server's side: every request, attributed to the replica that sent it.
    const byReplica = (name: string) =>
      stack.kube.requests().filter((r) => r.userAgent?.endsWith(`(${name})`));
    expect(byReplica(standby).length).toBeGreaterThan(0);
    // A standby may try to take a Lease it saw expire (a busy machine can delay the leader's
    // renewal): that is election, not reconciling. Nothing else is written by it.
    const standbyWrites = byReplica(standby).filter((r) => r.write);
    expect(standbyWrites.filter((r) => r.kind !== 'Lease')).toEqual([]);
    expect(writesIn(standbyMetrics)).toBeLessThanOrEqual(standbyWrites.length);
    expect(byReplica(leader).filter((r) => r.write && r.kind === 'Deployment').length).toBeGreaterThan(0);
  });

  it('SIGKILL the leader: the standby takes over within 20 s and reconciles', async () => {
    agents[leader]!.child.kill('SIGKILL');
    const killedAt = Date.now();
    await agents[leader]!.exited;
    await waitFor('standby leads', () => isLeader(agents[standby]!), 20_000, 200);
    const takeoverMs = Date.now() - killedAt;
    process.stdout.write(`leader election: standby took over ${takeoverMs} ms after SIGKILL\n`);
    expect(await holder()).toBe(standby);
    await stack.client.patchDeployment(id, {
      source_revision_config: { image_uri: 'registry.example/ha:2' },
    });
    await waitFor(
      'new image from the new leader',
      async () =>
        (await stack.kubectl([
          'get',
          'deploy',
          'ha',
          '-n',
          NAMESPACE,
          '-o',
          'jsonpath={.spec.template.spec.containers[0].image}',
        ])) === 'registry.example/ha:2',
      20_000,
    );
  });

  it('SIGTERM the leader: exit 0 and the Lease is released', async () => {
    agents[standby]!.child.kill('SIGTERM');
    expect((await agents[standby]!.exited).code).toBe(0);
    expect(await holder()).toBe('');
  });
});
