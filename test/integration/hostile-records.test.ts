/**
 * Hostile deployment records against a real agent (reference control plane with two tenants,
 * sandbox Kubernetes API, agent process, kubectl): the agent's settings reach rendering, so a
 * record of one tenant aimed at the other's namespace, one that would run as the agent's own
 * ServiceAccount and one that reads another deployment's Secret are refused, and nothing of them
 * is written; the namespace's own tenant is unaffected, even by an older record of the same name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import type { ResourceSpecRecord } from '../../src/contract/index.ts';
import { type AgentProcess, spawnAgent } from '../support/agent-process.ts';
import { createSmallDeployment } from '../support/deployment-body.ts';
import { agentEnv, type Servers, startServers } from '../support/stack.ts';
import { deploymentState, kubectlOf } from './harness.ts';
import { waitFor } from '../support/wait.ts';

const TENANT_A = '0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a';
const TENANT_B = 'c4b3a291-8f7e-4d6c-9b5a-4f3e2d1c0b9a';

describe('hostile records (control plane + sandbox Kubernetes API + agent process + kubectl)', {
  timeout: 60_000,
}, () => {
  let servers: Servers;
  let tenantA: ControlPlaneClient;
  let tenantB: ControlPlaneClient;
  let agent: AgentProcess;
  const ids: Record<string, string> = {};

  const kubectl = (args: string[]) => kubectlOf(servers)(args);
  /** Names of what deployment `id` owns in `ns`. */
  const owned = async (ns: string, id: string) =>
    (
      await kubectl([
        'get',
        'deploy,sts,svc,secret,hpa,pdb,networkpolicy',
        '-n',
        ns,
        '-l',
        `mooring.dev/deployment-id=${id}`,
        '-o',
        'name',
      ])
    )
      .trim()
      .split('\n')
      .filter((l) => l !== '');

  const create = (
    client: ControlPlaneClient,
    name: string,
    namespace: string,
    spec: ResourceSpecRecord = {},
    secrets: { name: string; value: string }[] = [],
  ) => createSmallDeployment(client, { name, listenerId: servers.listenerId, namespace }, { spec, secrets });

  beforeAll(async () => {
    servers = await startServers({
      namespaces: ['team-a', 'team-b'],
      tmpPrefix: 'mooring-it-',
      rolloutDelayMs: 300,
    });
    const client = (tenantId: string) =>
      new ControlPlaneClient({ baseUrl: servers.cp.url, apiKey: servers.apiKey, tenantId, retries: 0 });
    tenantA = client(TENANT_A);
    tenantB = client(TENANT_B);
    // Tenant A's record, older than B's deployment of the same name, aimed at B's namespace.
    ids.intruder = await create(tenantA, 'shop', 'team-b');
    ids.shop = await create(tenantB, 'shop', 'team-b', {}, [{ name: 'API_TOKEN', value: 'b-token' }]);
    ids.thief = await create(tenantB, 'thief', 'team-b', {
      sidecars: [{ name: 'leak', image: 'busybox:1', envFrom: [{ secretRef: { name: 'shop-env' } }] }],
    });
    ids.impostor = await create(tenantA, 'impostor', 'team-a', { service_account_name: 'mooring' });
    ids.runner = await create(tenantA, 'runner', 'team-a', { service_account_name: 'runner' });
    agent = spawnAgent(
      agentEnv(servers, {
        MOORING_NAMESPACE_TENANTS: `team-a=${TENANT_A},team-b=${TENANT_B}`,
        // The agent runs as "mooring" in team-a, one of the namespaces it writes.
        MOORING_SERVICE_ACCOUNT: 'mooring',
        MOORING_POD_NAMESPACE: 'team-a',
      }),
      { stopGraceMs: 0 },
    );
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await tenantA?.close();
    await tenantB?.close();
    await servers?.close();
  });

  it('renders the legitimate deployments: B keeps its names in its namespace, A runs as another account', async () => {
    for (const key of ['shop', 'runner']) {
      await waitFor(
        `${key} Ready`,
        async () => (await deploymentState(agent, ids[key]!))?.state === 'Ready',
        30_000,
      );
    }
    expect(await owned('team-b', ids.shop!)).toContain('secret/shop-env');
    const runner = JSON.parse(await kubectl(['get', 'deployment', 'runner', '-n', 'team-a', '-o', 'json']));
    expect(runner.spec.template.spec.serviceAccountName).toBe('runner');
  });

  it.each([
    ['intruder', 'team-b', 'MOORING_E_TENANT_MISMATCH: tenant_id'],
    ['thief', 'team-b', 'MOORING_E_RENDER_POLICY: sidecars[0].envFrom[0].secretRef.name "shop-env"'],
    ['impostor', 'team-a', `MOORING_E_RENDER_POLICY: service_account_name "mooring" is the agent's own`],
  ])('refuses the %s record and writes nothing of it', async (key, namespace, reason) => {
    const id = ids[key]!;
    await waitFor('refused', async () => (await deploymentState(agent, id))?.state === 'Refused', 30_000);
    expect((await deploymentState(agent, id))?.reason).toContain(reason);
    expect(await owned(namespace, id)).toEqual([]);
  });
});
