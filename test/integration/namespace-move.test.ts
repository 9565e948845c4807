/**
 * A deployment moved to another of the agent's namespaces, with the three programs for real (the
 * agent as a child process, results read back with kubectl): once it runs in the new namespace,
 * what it left in the old one is pruned, with a Pruned event there; the new namespace is untouched.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import { type AgentProcess, spawnAgent } from '../support/agent-process.ts';
import { agentEnv, type Servers, startServers } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';
import { kubectlOf } from './harness.ts';

const _run = promisify(execFile);

describe('namespace move (control plane + sandbox Kubernetes API + agent process + kubectl)', {
  timeout: 60_000,
}, () => {
  let servers: Servers;
  let client: ControlPlaneClient;
  let agent: AgentProcess;

  const kubectl = (args: string[]) => kubectlOf(servers)(args);
  /** uid and id of the deployment's objects in `ns`, volumes aside. */
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
        'jsonpath={range .items[*]}{.kind}/{.metadata.name} {.metadata.uid}{"\\n"}{end}',
      ])
    )
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .sort();

  beforeAll(async () => {
    servers = await startServers({
      namespaces: ['apps', 'other'],
      tmpPrefix: 'mooring-it-',
      rolloutDelayMs: 300,
    });
    client = new ControlPlaneClient({ baseUrl: servers.cp.url, apiKey: servers.apiKey, retries: 0 });
    agent = spawnAgent(agentEnv(servers), { stopGraceMs: 0 });
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await client?.close();
    await servers?.close();
  });

  it('prunes what it left in the old namespace once it runs in the new one; the new one is untouched', async () => {
    const sourceConfig = (ns: string) => ({
      listener_id: servers.listenerId,
      listener_config: { k8s_namespace: ns },
      resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.25, memory_mb: 128 },
    });
    const { id } = await client.createDeployment({
      name: 'mover',
      source: 'external_docker',
      source_config: sourceConfig('apps'),
      source_revision_config: { image_uri: 'registry.example/mover:1.0.0' },
      secrets: [],
    });
    const before = await waitFor(
      'mover applied in apps',
      async () => {
        const objs = await owned('apps', id);
        return objs.some((o) => o.startsWith('Deployment/mover ')) && objs;
      },
      30_000,
    );

    await client.patchDeployment(id, { source_config: sourceConfig('other') });
    const applied = await waitFor(
      'mover applied in other',
      async () => {
        const objs = await owned('other', id);
        return objs.length === before.length && objs;
      },
      30_000,
    );
    await waitFor('apps emptied', async () => (await owned('apps', id)).length === 0, 30_000);
    // Running in `other` is what let the old objects go: the new ones were never recreated.
    expect(await owned('other', id)).toEqual(applied);
    const available = await kubectl([
      'get',
      'deployment',
      'mover',
      '-n',
      'other',
      '-o',
      'jsonpath={.status.availableReplicas}',
    ]);
    expect(available).toBe('1');
    const events = JSON.parse(await kubectl(['get', 'events', '-n', 'apps', '-o', 'json'])) as {
      items: { reason: string; message: string }[];
    };
    const pruned = events.items.filter((e) => e.reason === 'Pruned');
    expect(pruned).toHaveLength(1);
    expect(pruned[0]?.message).toContain(`deployment ${id} moved to namespace other`);
  });
});
