/**
 * One deployment never writes over another's objects, nor over another listener's or another
 * manager's (ADR 0007): the reference control plane, the sandbox Kubernetes API and the agent as a
 * child process, results read back with kubectl.
 *
 * A deployment named `X-redis` renders objects named like X's Redis (`x-redis`). Regression: the
 * collision check compared base names only, and the agent applied with force under its one field
 * manager, so X's Redis Service came to select the newcomer's pods (X first), or X failed forever
 * with "field spec.selector is immutable" (X-redis first); likewise across tenants on one
 * listener. And an object absent from the agent's listing (another manager's, another listener's)
 * was applied over at once.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import type { AgentProcess } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';
import {
  deploymentBody,
  deploymentState,
  NAMESPACE,
  spawnAgent,
  type Stack,
  startStack,
  waitForState,
} from './harness.ts';

const TENANT_1 = '7d3c1a2b-0000-4000-8000-000000000001';
const TENANT_2 = '7d3c1a2b-0000-4000-8000-000000000002';
const OTHER_LISTENER = '44444444-4444-4444-8444-444444444444';
const KINDS = 'deploy,sts,svc,secret,hpa,pdb,networkpolicy';

interface Item {
  kind: string;
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string> };
  spec?: { selector?: Record<string, string> };
}

describe('ownership: deployments whose object names meet (control plane + sandbox + agent + kubectl)', {
  timeout: 90_000,
}, () => {
  let stack: Stack;
  let agent: AgentProcess;
  const tenants: ControlPlaneClient[] = [];

  beforeAll(async () => {
    stack = await startStack();
    agent = spawnAgent(stack.agentEnv());
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    for (const t of tenants) await t.close();
    await stack?.close();
  });

  const tenant = (tenantId: string) => {
    const c = new ControlPlaneClient({ baseUrl: stack.cp.url, apiKey: stack.apiKey, retries: 0, tenantId });
    tenants.push(c);
    return c;
  };

  /** Every object of a deployment (by its label), `kind/name` → resourceVersion. */
  const objectsOf = async (deploymentId: string): Promise<Record<string, string>> => {
    const items = (
      JSON.parse(
        await stack.kubectl([
          'get',
          KINDS,
          '-n',
          NAMESPACE,
          '-l',
          `mooring.dev/deployment-id=${deploymentId}`,
          '-o',
          'json',
        ]),
      ) as { items: Item[] }
    ).items;
    return Object.fromEntries(items.map((i) => [`${i.kind}/${i.metadata.name}`, i.metadata.resourceVersion]));
  };
  const getService = async (name: string): Promise<Item> =>
    JSON.parse(await stack.kubectl(['get', 'svc', name, '-n', NAMESPACE, '-o', 'json'])) as Item;

  /** Waits until the agent has completed two more polls (each a resync: no resync interval is set). */
  const twoPolls = async () => {
    const at = async () => (await agent.json<{ lastPollAt: string | null }>('/status')).lastPollAt;
    for (let i = 0; i < 2; i++) {
      const before = await at();
      await waitFor('a poll', async () => (await at()) !== before, 10_000);
    }
  };

  /** First deployment Ready, then the second refused with `code`; the first's objects unchanged. */
  async function bothOrders(
    first: { client: ControlPlaneClient; name: string },
    second: { client: ControlPlaneClient; name: string },
    shared: string,
  ) {
    const a = await first.client.createDeployment(
      deploymentBody(first.name, `registry.example/${first.name}:1`),
    );
    await waitForState(agent, a.id, 'Ready', 30_000);
    const before = await objectsOf(a.id);
    expect(Object.keys(before)).toContain(`Service/${shared}`);
    expect((await getService(shared)).spec?.selector?.['mooring.dev/deployment-id']).toBe(a.id);

    const b = await second.client.createDeployment(
      deploymentBody(second.name, `registry.example/${second.name}:1`),
    );
    await waitForState(agent, b.id, 'Refused', 20_000);
    const reason = (await deploymentState(agent, b.id))?.reason ?? '';
    expect(reason).toMatch(/^MOORING_E_RENDER_NAME_COLLISION: /);
    expect(reason).toContain(a.id);
    expect(reason).toContain(b.id);
    expect(reason).toContain(`"${shared}"`);
    expect(reason).not.toMatch(/immutable/);
    await twoPolls();
    // The first owner keeps running, untouched; nothing of the newcomer exists.
    expect((await deploymentState(agent, a.id))?.state).toBe('Ready');
    expect(await objectsOf(a.id)).toEqual(before);
    expect((await getService(shared)).spec?.selector?.['mooring.dev/deployment-id']).toBe(a.id);
    expect(await objectsOf(b.id)).toEqual({});
    expect((await deploymentState(agent, b.id))?.state).toBe('Refused');
  }

  it('(a) X first, then X-redis: X keeps its Redis Service and every object; X-redis is refused', async () => {
    await bothOrders(
      { client: stack.client, name: 'alpha' },
      { client: stack.client, name: 'alpha-redis' },
      'alpha-redis',
    );
  });

  it('(b) X-redis first, then X: X is refused with the collision code, not "immutable"; X-redis keeps running', async () => {
    await bothOrders(
      { client: stack.client, name: 'beta-redis' },
      { client: stack.client, name: 'beta' },
      'beta-redis',
    );
  });

  it('(c) the same across two tenants on one listener, both orders', async () => {
    await bothOrders(
      { client: tenant(TENANT_1), name: 'gamma' },
      { client: tenant(TENANT_2), name: 'gamma-redis' },
      'gamma-redis',
    );
    await bothOrders(
      { client: tenant(TENANT_2), name: 'delta-redis' },
      { client: tenant(TENANT_1), name: 'delta' },
      'delta-redis',
    );
  });

  it("(d) another manager's Service of the same name (kubectl create -f, no labels) is not overwritten; removed, the deployment runs", async () => {
    // `create -f` makes the same POST as `kubectl create service`, with a body the test controls.
    const file = path.join(stack.dir, 'epsilon.yaml');
    await writeFile(
      file,
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: epsilon\n  namespace: ${NAMESPACE}\nspec:\n  selector:\n    app: epsilon\n  ports:\n    - port: 80\n      targetPort: 8080\n`,
    );
    await stack.kubectl(['create', '-f', file]);
    const before = await getService('epsilon');
    const d = await stack.client.createDeployment(deploymentBody('epsilon', 'registry.example/epsilon:1'));
    await waitForState(agent, d.id, 'Refused', 20_000);
    const reason = (await deploymentState(agent, d.id))?.reason ?? '';
    expect(reason).toBe(
      `MOORING_E_KUBE_OWNERSHIP: Service/${NAMESPACE}/epsilon: exists and belongs to another manager (kubectl-create); nothing of deployment ${d.id} written`,
    );
    await twoPolls();
    expect(await getService('epsilon')).toEqual(before);
    expect(await objectsOf(d.id)).toEqual({});
    // The refusal reaches Events, as an ApplyFailed warning with the code.
    const events = JSON.parse(await stack.kubectl(['get', 'events', '-n', NAMESPACE, '-o', 'json'])) as {
      items: { reason: string; type: string; message: string }[];
    };
    expect(events.items).toContainEqual(
      expect.objectContaining({
        reason: 'ApplyFailed',
        type: 'Warning',
        message: expect.stringMatching(
          /^MOORING_E_KUBE_OWNERSHIP: Service\/apps\/epsilon: exists and belongs to another manager/,
        ),
      }),
    );
    // Tried again at each resync, without backoff: once the Service is gone, the deployment runs.
    await stack.kubectl(['delete', 'service', 'epsilon', '-n', NAMESPACE]);
    await waitForState(agent, d.id, 'Ready', 30_000);
    expect((await getService('epsilon')).spec?.selector?.['mooring.dev/deployment-id']).toBe(d.id);
  });

  it("(e) another listener's object of the same name is not overwritten", async () => {
    const theirs = `apiVersion: v1
kind: Service
metadata:
  name: zeta
  namespace: ${NAMESPACE}
  labels:
    app.kubernetes.io/managed-by: mooring
    mooring.dev/listener-id: ${OTHER_LISTENER}
    mooring.dev/deployment-id: 55555555-5555-4555-8555-555555555555
spec:
  selector:
    mooring.dev/deployment-id: 55555555-5555-4555-8555-555555555555
  ports:
    - name: http
      port: 8000
`;
    const file = path.join(stack.dir, 'zeta.yaml');
    await writeFile(file, theirs);
    await stack.kubectl(['apply', '--server-side', '--field-manager', 'mooring', '-f', file]);
    const before = await getService('zeta');
    const d = await stack.client.createDeployment(deploymentBody('zeta', 'registry.example/zeta:1'));
    await waitForState(agent, d.id, 'Refused', 20_000);
    expect((await deploymentState(agent, d.id))?.reason).toBe(
      `MOORING_E_KUBE_OWNERSHIP: Service/${NAMESPACE}/zeta: exists and belongs to deployment 55555555-5555-4555-8555-555555555555 of listener ${OTHER_LISTENER}; nothing of deployment ${d.id} written`,
    );
    await twoPolls();
    expect(await getService('zeta')).toEqual(before);
    expect(await objectsOf(d.id)).toEqual({});
  });
});
