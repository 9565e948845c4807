/**
 * End to end with the agent process: a deployment bringing its own Postgres and Redis through
 * `secret_references`, rendered with a settings file that turns on probes, commands, args,
 * placement, resource defaults and a LoadBalancer Service. No StatefulSet, claim or Redis is
 * made, and once Ready, idle poll cycles make no Kubernetes write.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import type { AgentProcess } from '../support/agent-process.ts';
import {
  deploymentBody,
  NAMESPACE,
  resyncCount,
  spawnAgent,
  type Stack,
  startStack,
  waitForState,
} from './harness.ts';

const SETTINGS = {
  probes: { path: '/healthz' },
  commands: { queue: ['python', '-m', 'worker'] },
  args: { queue: ['--concurrency', '4'] },
  placement: { app: { nodeSelector: { pool: 'apps' } }, datastores: { nodeSelector: { pool: 'data' } } },
  datastoreImagePullSecrets: ['mirror-creds'],
  resources: { 'api-server': { cpu: 0.5 } },
  service: { type: 'LoadBalancer', annotations: { 'lb.example.com/internal': 'true' } },
};

describe('bring-your-own datastores with the agent', { timeout: 90_000 }, () => {
  let stack: Stack;
  let agent: AgentProcess;
  let id = '';

  beforeAll(async () => {
    stack = await startStack();
    const file = path.join(stack.dir, 'settings.yaml');
    await writeFile(file, YAML.stringify(SETTINGS));
    const body = deploymentBody('own', 'registry.example/own:1.0.0');
    body.source_config.resource_spec = { ...body.source_config.resource_spec, queue_cpu: 0.25 } as never;
    const created = await stack.client.createDeployment({
      ...body,
      secret_references: [
        { name: 'POSTGRES_URI_CUSTOM', secret_name: 'shared-db', secret_key: 'uri' },
        { name: 'REDIS_URI_CUSTOM', secret_name: 'shared-cache', secret_key: 'url' },
      ],
    } as never);
    id = created.id;
    agent = spawnAgent(stack.agentEnv({ MOORING_SETTINGS: file }));
    await waitForState(agent, id, 'Ready', 60_000);
  }, 90_000);

  afterAll(async () => {
    await agent?.stop();
    await stack?.close();
  });

  it('makes no StatefulSet, claim or Redis; the URIs come from the referenced Secrets', async () => {
    const names = (await stack.kubectl(['get', 'deploy,sts,pvc,svc', '-n', NAMESPACE, '-o', 'name']))
      .trim()
      .split('\n')
      .sort();
    expect(names).toEqual(['deployment.apps/own', 'deployment.apps/own-queue', 'service/own']);
    const api = JSON.parse(await stack.kubectl(['get', 'deploy', 'own', '-n', NAMESPACE, '-o', 'json']));
    const env = api.spec.template.spec.containers[0].env as { name: string; valueFrom?: unknown }[];
    expect(env.find((e) => e.name === 'DATABASE_URI')?.valueFrom).toEqual({
      secretKeyRef: { key: 'uri', name: 'shared-db' },
    });
    expect(api.spec.template.spec.containers[0].readinessProbe.httpGet.path).toBe('/healthz');
    expect(api.spec.template.spec.nodeSelector).toEqual({ pool: 'apps' });
    const svc = JSON.parse(await stack.kubectl(['get', 'svc', 'own', '-n', NAMESPACE, '-o', 'json']));
    expect(svc.spec.type).toBe('LoadBalancer');
  });

  it('idle cycles with all of this on make no Kubernetes write', async () => {
    stack.kube.clearRequests();
    // Three poll intervals (1 s each) and then some: resyncs run (from the watches), none writes.
    const before = await resyncCount(agent);
    await new Promise((r) => setTimeout(r, 4_000));
    const requests = stack.kube.requests();
    expect(await resyncCount(agent)).toBeGreaterThan(before);
    expect(requests.filter((r) => r.write).map((r) => `${r.verb} ${r.path}`)).toEqual([]);
  });
});
