/**
 * A control plane that answers one poll with 64 MiB (through a proxy in front of the reference
 * control plane): the agent reads none of it past its cap, logs MOORING_E_CP_RESPONSE_TOO_LARGE
 * for that poll, keeps every deployment it holds, and the next polls go on.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait.ts';
import type { AgentProcess } from '../support/agent-process.ts';
import { deploymentBody, deploymentState, type Stack, spawnAgent, startStack } from './harness.ts';

const HUGE = 64 * 1024 * 1024;
const CHUNK = Buffer.alloc(256 * 1024, 0x20);

describe('a control plane answering a huge body (proxy + control plane + sandbox + agent)', {
  timeout: 60_000,
}, () => {
  let stack: Stack;
  let proxy: Server;
  let agent: AgentProcess;
  let id = '';
  /** How many listings to answer with the huge body, and what was written of each. */
  let inflate = 0;
  const written: number[] = [];

  beforeAll(async () => {
    stack = await startStack();
    id = (await stack.client.createDeployment(deploymentBody('shop', 'registry.example/shop:1'))).id;
    const upstream = new URL(stack.cp.url);
    proxy = createServer((req, res) => {
      if (inflate > 0 && req.method === 'GET' && req.url?.startsWith('/v2/deployments?')) {
        inflate--;
        req.resume();
        const k = written.push(0) - 1;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"items":[{"name":"');
        const pump = () => {
          while (written[k]! < HUGE) {
            written[k]! += CHUNK.length;
            if (!res.write(CHUNK)) return void res.once('drain', pump);
          }
          res.end('"}],"offset":1}');
        };
        res.on('close', () => res.removeAllListeners('drain'));
        pump();
        return;
      }
      const out = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      req.pipe(out);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    agent = spawnAgent(stack.agentEnv({ MOORING_CONTROL_PLANE_URL: url }));
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    proxy?.closeAllConnections();
    await new Promise((resolve) => proxy?.close(resolve));
    await stack?.close();
  });

  it('fails those polls alone with the coded error, reads little, keeps the deployment, polls on', async () => {
    await waitFor('shop Ready', async () => (await deploymentState(agent, id))?.state === 'Ready', 30_000);
    inflate = 2;
    await waitFor('two huge answers', async () => inflate === 0 && written.length === 2, 20_000);
    await waitFor(
      'the coded error in the log',
      async () => agent.stdout().includes('MOORING_E_CP_RESPONSE_TOO_LARGE'),
      10_000,
    );
    const before = (await agent.json<{ lastPollAt: string }>('/status')).lastPollAt;
    await waitFor(
      'a later poll',
      async () => (await agent.json<{ lastPollAt: string }>('/status')).lastPollAt !== before,
      15_000,
    );
    expect((await deploymentState(agent, id))?.state).toBe('Ready');
    for (const w of written) expect(w).toBeLessThan(HUGE / 2);
    const line = agent
      .stdout()
      .split('\n')
      .find((l) => l.includes('MOORING_E_CP_RESPONSE_TOO_LARGE'));
    expect(JSON.parse(line!)).toMatchObject({ code: 'MOORING_E_CP_RESPONSE_TOO_LARGE' });
  });
});
