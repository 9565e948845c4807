/**
 * Acceptance: create, update (new revision, new image), secret change, UNUSED and AWAITING_DELETE,
 * with the agent as a child process and results read back with kubectl; then the secret canary:
 * the deployment's secret values appear nowhere in the agent's logs, /status, /metrics or Events.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentBody, deploymentState, NAMESPACE, spawnAgent, type Stack, startStack } from './harness.ts';
import { type AgentProcess, REPO } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';

interface KubeDeployment {
  metadata: { annotations?: Record<string, string> };
  spec: { replicas?: number; template: { spec: { containers: { image: string }[] } } };
}

describe('agent flows (control plane + sandbox Kubernetes API + agent process + kubectl)', {
  timeout: 60_000,
}, () => {
  let stack: Stack;
  let agent: AgentProcess;
  let id = '';
  const canary1 = `canary-${randomUUID()}`;
  const canary2 = `canary-${randomUUID()}`;

  const getDeployment = async (name: string) =>
    JSON.parse(
      await stack.kubectl(['get', 'deployment', name, '-n', NAMESPACE, '-o', 'json']),
    ) as KubeDeployment;

  beforeAll(async () => {
    stack = await startStack();
    const created = await stack.client.createDeployment(
      deploymentBody('shop', 'registry.example/shop:1.0.0', [{ name: 'APP_SECRET', value: canary1 }]),
    );
    id = created.id;
    agent = spawnAgent(stack.agentEnv());
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await stack?.close();
  });

  it('create: the deployment becomes Kubernetes objects', async () => {
    const dep = await waitFor('Deployment shop', () => getDeployment('shop'), 30_000);
    expect(dep.spec.template.spec.containers[0]!.image).toBe('registry.example/shop:1.0.0');
    const names = (await stack.kubectl(['get', 'deploy,sts,svc,secret', '-n', NAMESPACE, '-o', 'name']))
      .trim()
      .split('\n')
      .sort();
    expect(names).toEqual(
      expect.arrayContaining([
        'deployment.apps/shop',
        'deployment.apps/shop-redis',
        'secret/shop-env',
        'service/shop',
      ]),
    );
    await waitFor(
      'shop Ready in /status',
      async () => (await deploymentState(agent, id))?.state === 'Ready',
      20_000,
    );
  });

  it("mooring status prints the running agent's /status as a table", async () => {
    const { stdout } = await promisify(execFile)(
      path.join(REPO, 'node_modules', '.bin', 'node'),
      [path.join(REPO, 'bin', 'mooring.js'), 'status', '--url', await agent.opsUrl],
      { cwd: REPO, timeout: 30_000 },
    );
    expect(stdout).toMatch(/^NAME\s+NAMESPACE\s+STATUS\s+STATE\s+REVISION\s+APPLIED\s+REASON$/m);
    expect(stdout).toMatch(/^shop\s+apps\s+READY\s+Ready\s+[0-9a-f]{8}\s+\d+s ago$/m);
  });

  it('update: a new revision rolls out the new image', async () => {
    const patched = await stack.client.patchDeployment(id, {
      source_revision_config: { image_uri: 'registry.example/shop:2.0.0' },
    });
    const dep = await waitFor(
      'image 2.0.0',
      async () => {
        const d = await getDeployment('shop');
        return d.spec.template.spec.containers[0]!.image === 'registry.example/shop:2.0.0' && d;
      },
      20_000,
    );
    expect(dep.metadata.annotations?.['mooring.dev/revision-id']).toBe(patched.latest_revision_id);
  });

  it('secret change: the env Secret carries the new value', async () => {
    await stack.client.patchDeployment(id, { secrets: [{ name: 'APP_SECRET', value: canary2 }] });
    await waitFor(
      'new secret value',
      async () => {
        const b64 = await stack.kubectl([
          'get',
          'secret',
          'shop-env',
          '-n',
          NAMESPACE,
          '-o',
          'jsonpath={.data.APP_SECRET}',
        ]);
        return Buffer.from(b64, 'base64').toString('utf8') === canary2;
      },
      20_000,
    );
  });

  it('UNUSED: workloads scale to zero, data and config are kept', async () => {
    stack.cp.store.setDeploymentStatus(id, 'UNUSED');
    await waitFor('replicas 0', async () => (await getDeployment('shop')).spec.replicas === 0, 20_000);
    const sts = JSON.parse(
      await stack.kubectl(['get', 'statefulset', 'shop-postgres', '-n', NAMESPACE, '-o', 'json']),
    ) as KubeDeployment;
    expect(sts.spec.replicas).toBe(0);
    expect(await stack.kubectl(['get', 'secret', 'shop-env', '-n', NAMESPACE, '-o', 'name'])).toContain(
      'secret/shop-env',
    );
  });

  it('AWAITING_DELETE: everything the deployment owns is removed', async () => {
    await stack.client.deleteDeployment(id);
    await waitFor(
      'objects gone',
      async () =>
        (
          await stack.kubectl([
            'get',
            'deploy,sts,svc,secret,hpa,pdb,networkpolicy',
            '-n',
            NAMESPACE,
            '-l',
            `mooring.dev/deployment-id=${id}`,
            '-o',
            'name',
          ])
        ).trim() === '',
      20_000,
    );
    await waitFor(
      'Deleted in /status',
      async () => (await deploymentState(agent, id))?.state === 'Deleted',
      20_000,
    );
  });

  it('secret canary: values appear in no log, /status, /metrics or Event; the API key in no log', async () => {
    const events = await stack.kubectl(['get', 'events', '-A', '-o', 'json']);
    const places = {
      stdout: agent.stdout(),
      stderr: agent.stderr(),
      status: await agent.text('/status'),
      metrics: await agent.text('/metrics'),
      events,
    };
    // The places are not empty: the test would pass vacuously otherwise.
    expect(places.stdout).toContain('"msg":"reconciled"');
    expect(places.metrics).toContain('mooring_reconciles_total');
    expect(JSON.parse(events).items.length).toBeGreaterThan(0);
    for (const [where, text] of Object.entries(places)) {
      expect(text.includes(canary1), `${canary1} in ${where}`).toBe(false);
      expect(text.includes(canary2), `${canary2} in ${where}`).toBe(false);
      expect(text.includes(stack.apiKey), `API key in ${where}`).toBe(false);
    }
  });
});
