/**
 * RBAC proof (chart issue): every request the agent makes through a whole life cycle (start-up
 * checks, leader election, create, update, UNUSED, AWAITING_DELETE, events, heartbeat) is allowed by
 * the Roles the Helm chart grants its ServiceAccount. The requests are the sandbox's request log;
 * the Roles come from real `helm template`. A permission the agent needs and the chart lacks fails
 * here before it fails on a real cluster with a 403.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/sandbox/server.ts';
import { chartRoles } from '../chart/chart-roles.ts';
import { RELEASE } from '../chart/helm.ts';
import { rolesAllow } from '../chart/rbac.ts';
import { deploymentBody, NAMESPACE, spawnAgent, type Stack, startStack, waitForState } from './harness.ts';
import type { AgentProcess } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';

describe('RBAC proof: the chart allows every request the agent makes', { timeout: 90_000 }, () => {
  let stack: Stack;
  let agent: AgentProcess;

  beforeAll(async () => {
    stack = await startStack();
    // The chart's Lease and its own Events live in the release namespace.
    const nsFile = path.join(stack.dir, 'release-namespace.json');
    writeFileSync(
      nsFile,
      JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: RELEASE.namespace } }),
    );
    await stack.kubectl(['create', '-f', nsFile]);
    agent = spawnAgent(
      stack.agentEnv({
        MOORING_LEADER_ELECTION: 'true',
        MOORING_POD_NAME: 'mooring-0',
        MOORING_POD_NAMESPACE: RELEASE.namespace,
        MOORING_LEASE_NAMESPACE: RELEASE.namespace,
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await stack?.close();
  });

  it('through create, update, UNUSED and AWAITING_DELETE, no request falls outside the Roles', async () => {
    const created = await stack.client.createDeployment(
      deploymentBody('rbac', 'registry.example/rbac:1.0.0'),
    );
    await waitForState(agent, created.id, 'Ready', 40_000);
    await stack.client.patchDeployment(created.id, {
      source_revision_config: { image_uri: 'registry.example/rbac:2.0.0' },
    });
    await waitFor(
      'new image applied',
      () =>
        JSON.stringify(stack.kube.getObject('apps/v1', 'Deployment', NAMESPACE, 'rbac') ?? {}).includes(
          'rbac:2.0.0',
        ),
      30_000,
    );
    stack.cp.store.setDeploymentStatus(created.id, 'UNUSED');
    await waitFor(
      'scaled to zero',
      () =>
        (stack.kube.getObject('apps/v1', 'Deployment', NAMESPACE, 'rbac') as { spec?: { replicas?: number } })
          ?.spec?.replicas === 0,
      30_000,
    );
    await stack.client.deleteDeployment(created.id);
    await waitForState(agent, created.id, 'Deleted', 40_000);

    // The agent's requests: everything but the test's own kubectl calls.
    const agentRequests = stack.kube
      .requests()
      .filter((r: RequestRecord) => !(r.userAgent ?? '').startsWith('kubectl'));
    // Not vacuous: the life cycle really exercised leases, applies, deletes and events.
    const verbs = new Set(agentRequests.map((r) => `${r.verb} ${r.resource}`));
    for (const needed of ['apply deployments', 'delete deployments', 'create events', 'get leases']) {
      expect(
        [...verbs].some((v) => v.startsWith(needed)),
        needed,
      ).toBe(true);
    }

    const roles = chartRoles({ namespaces: [NAMESPACE], leaderElection: true });
    const denied = agentRequests
      .filter(
        (r) =>
          !rolesAllow(roles, {
            verb: r.verb,
            group: r.group,
            resource: r.resource,
            ...(r.namespace ? { namespace: r.namespace } : {}),
            ...(r.name ? { name: r.name } : {}),
          }),
      )
      .map((r) => `${r.method} ${r.path} (${r.verb} ${r.group}/${r.resource})`);
    expect([...new Set(denied)]).toEqual([]);
  });
});
