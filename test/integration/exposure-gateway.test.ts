/**
 * Exposure through the Gateway API with the agent as a child process: with the HTTPRoute CRD
 * installed, a deployment with a custom_url gets its HTTPRoute and idle cycles write nothing;
 * without it, the agent says so in one line and the deployment still becomes Ready.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HTTPROUTE_CRD } from '../../src/sandbox/resources.ts';
import type { AgentProcess } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';
import {
  deploymentBody,
  NAMESPACE,
  resyncCount,
  spawnAgent,
  type Stack,
  startStack,
  waitForState,
} from './harness.ts';

const SETTINGS = 'exposure:\n  kind: httproute\n  gateway: {name: public, namespace: gateways}\n';

describe('exposure through an HTTPRoute (agent process + sandbox + kubectl)', { timeout: 90_000 }, () => {
  let stack: Stack | undefined;
  let agent: AgentProcess | undefined;

  afterEach(async () => {
    await agent?.stop();
    await stack?.close();
  });

  async function start(crds: string[]): Promise<{ stack: Stack; agent: AgentProcess; id: string }> {
    stack = await startStack({ crds });
    const settingsFile = path.join(stack.dir, 'settings.yaml');
    writeFileSync(settingsFile, SETTINGS);
    const body = deploymentBody('web', 'registry.example/web:1');
    const record = {
      ...body,
      source_config: { ...body.source_config, custom_url: 'https://web.example.com' },
    };
    const id = (await stack.client.createDeployment(record)).id;
    agent = spawnAgent(stack.agentEnv({ MOORING_SETTINGS: settingsFile }));
    await waitForState(agent, id, 'Ready', 30_000);
    return { stack, agent, id };
  }

  it('CRD installed: the HTTPRoute is applied, listed by kubectl, and idle cycles write nothing', async () => {
    const { stack, agent } = await start([HTTPROUTE_CRD]);
    const listed = await waitFor(
      'HTTPRoute web',
      async () => {
        const out = await stack.kubectl(['get', 'httproutes', '-A']);
        return out.includes('web') ? out : undefined;
      },
      20_000,
    );
    expect(listed).toMatch(/apps\s+web\s+\["web\.example\.com"\]/);
    const route = JSON.parse(await stack.kubectl(['get', 'httproute', 'web', '-n', NAMESPACE, '-o', 'json']));
    expect(route.spec.rules[0].backendRefs[0]).toMatchObject({ kind: 'Service', name: 'web', port: 8000 });
    await waitFor('a first idle resync', async () => (await resyncCount(agent)) >= 2, 20_000);
    stack.kube.clearRequests();
    const before = await resyncCount(agent);
    await waitFor('three idle resyncs', async () => (await resyncCount(agent)) >= before + 3, 20_000);
    const writes = stack.kube
      .requests({ write: true })
      .filter((r) => !['events', 'leases'].includes(r.resource));
    expect(writes.map((w) => `${w.verb} ${w.path}`)).toEqual([]);
  });

  it('CRD absent: one coded line at start, no HTTPRoute, the deployment Ready all the same', async () => {
    const { stack, agent } = await start([]);
    const lines = agent
      .stdout()
      .split('\n')
      .filter((l) => l.includes('MOORING_E_EXPOSURE_UNAVAILABLE'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('gateway.networking.k8s.io/v1 HTTPRoute');
    // Nothing asked for the kind the cluster does not serve, beyond the discovery check.
    expect(stack.kube.requests().filter((r) => r.resource === 'httproutes')).toEqual([]);
  });
});
