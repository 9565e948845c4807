/**
 * The control plane being down changes nothing in the cluster: with the agent (a child process)
 * converged and idle, the control plane stops for 6 s. Not one write reaches the Kubernetes API
 * meanwhile, the agent stays alive and keeps serving /healthz and /status (every deployment still
 * listed and Ready), and once the control plane is back it polls again and a change made then
 * reaches the cluster.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeploymentRecord } from '../../src/contract/index.ts';
import { checkCluster, converged, finalDeployments, USER_AGENT } from './lib/cluster-check.ts';
import { changeOf, generateDeployments } from './lib/deployments.ts';
import { type Stack, spawnAgent, startStack } from './lib/stack.ts';
import { AgentLogs } from '../support/agent-logs.ts';
import type { AgentProcess, StatusEntry } from '../support/agent-process.ts';
import { seededRandom } from '../support/prng.ts';
import { sleep, waitFor } from '../support/wait.ts';

const NS = 'outage-apps';

describe('control plane outage: nothing changes in the cluster, the agent keeps serving', () => {
  let stack: Stack;
  let agent: AgentProcess;
  const logs = new AgentLogs();
  const records: DeploymentRecord[] = [];
  const writes = () => stack.kube.requests().filter((r) => r.write && r.userAgent !== USER_AGENT);
  const convergedNow = async () => {
    const items = await finalDeployments(stack.client, stack.listenerId);
    return converged(await checkCluster(stack.kube, [NS], stack.renderSettings(), items));
  };

  beforeAll(async () => {
    stack = await startStack({ namespaces: [NS] });
    for (const b of generateDeployments({
      count: 8,
      namespaces: [NS],
      listenerId: stack.listenerId,
      random: seededRandom(5),
      prefix: 'outage',
    })) {
      records.push(await stack.client.createDeployment(b));
    }
    agent = spawnAgent(stack.agentEnv({ MOORING_LOG_LEVEL: 'info' }), logs);
    await waitFor('convergence', convergedNow, 60_000, 500);
    // Idle: wait until a few polls in a row write nothing, so what follows is the outage's doing.
    await waitFor(
      'an idle agent',
      async () => {
        const before = writes().length;
        await sleep(2500);
        return writes().length === before;
      },
      30_000,
      0,
    );
  }, 120_000);

  afterAll(async () => {
    await agent?.stop();
    await stack?.close();
  });

  it('during 6 s of outage: zero writes, /healthz ok, every deployment still Ready in /status', async () => {
    const before = writes().length;
    await stack.cp.stop();
    const downAt = Date.now();
    try {
      await sleep(3000);
      const health = await agent.text('/healthz');
      const status = await agent.json<{ deployments: StatusEntry[] }>('/status');
      // Down until the agent has seen it (its client retries first) and at least 6 s in all.
      await waitFor('a poll failure logged', () => /MOORING_E_CP_UNREACHABLE/.test(logs.all()), 30_000);
      const rest = downAt + 6000 - Date.now();
      if (rest > 0) await sleep(rest);
      expect(agent.running()).toBe(true);
      expect(JSON.parse(health).status).toBe('ok');
      expect(status.deployments.map((d) => d.id).sort()).toEqual(records.map((r) => r.id).sort());
      expect(status.deployments.every((d) => d.state === 'Ready')).toBe(true);
      expect(writes().slice(before)).toEqual([]);
    } finally {
      await stack.cp.start();
    }
    expect(await convergedNow()).toBe(true);
  }, 50_000);

  it('after the outage it polls again and a new change reaches the cluster', async () => {
    const target = records[0] as DeploymentRecord;
    const updated = await stack.client.patchDeployment(target.id, changeOf(target, 'image', 9));
    const image = updated.source_revision_config.image_uri as string;
    await waitFor(
      'the new image in the cluster',
      () => {
        const d = stack.kube.getObject('apps/v1', 'Deployment', NS, target.name) as
          | { spec: { template: { spec: { containers: { image: string }[] } } } }
          | undefined;
        return d?.spec.template.spec.containers[0]?.image === image;
      },
      20_000,
    );
    await waitFor('convergence', convergedNow, 20_000, 500);
  }, 30_000);
});
