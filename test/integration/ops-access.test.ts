/**
 * The ops port as the chart runs it: `MOORING_POD_IP` set (the downward API's `status.podIP`), no
 * `MOORING_OPS_HOST`. The agent listens on the pod's IP, where the kubelet's probes and Prometheus
 * come, and on 127.0.0.1, where `kubectl port-forward` and `kubectl exec` arrive; `/status` answers
 * only the latter, and `mooring status` works through it.
 */
import { execFile } from 'node:child_process';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentBody, spawnAgent, type Stack, startStack, waitForState } from './harness.ts';
import { type AgentProcess, REPO } from '../support/agent-process.ts';
import { waitFor } from '../support/wait.ts';

/** An IPv4 address of this machine that is not loopback: the pod's IP, to the agent. */
const podIp = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

describe.skipIf(podIp === undefined)(
  'the ops port bound to the pod IP (the chart’s default)',
  {
    timeout: 60_000,
  },
  () => {
    let stack: Stack;
    let agent: AgentProcess;
    let podUrl = '';

    beforeAll(async () => {
      stack = await startStack();
      const { id } = await stack.client.createDeployment(deploymentBody('ops', 'registry.example/ops:1.0.0'));
      const env = stack.agentEnv({ MOORING_POD_IP: podIp! });
      delete (env as Record<string, string | undefined>).MOORING_OPS_HOST;
      agent = spawnAgent(env);
      const loopback = await agent.opsUrl;
      podUrl = loopback.replace('127.0.0.1', podIp!);
      await waitForState(agent, id, 'Ready', 30_000);
    }, 60_000);

    afterAll(async () => {
      await agent?.stop();
      await stack?.close();
    });

    it('logs both addresses: the pod IP, and 127.0.0.1 for /status', async () => {
      const line = agent
        .stdout()
        .split('\n')
        .find((l) => l.includes('ops endpoints listening'));
      expect(JSON.parse(line ?? '{}')).toMatchObject({ url: podUrl, statusUrl: await agent.opsUrl });
    });

    it('answers the probes and /metrics on the pod IP', async () => {
      await waitFor(
        'ready on the pod IP',
        async () => (await fetch(`${podUrl}/readyz`)).status === 200,
        10_000,
      );
      expect((await fetch(`${podUrl}/healthz`)).status).toBe(200);
      const metrics = await fetch(`${podUrl}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('mooring_deployments{state="Ready"} 1');
    });

    it('refuses /status on the pod IP with a 403 saying how to get it', async () => {
      const res = await fetch(`${podUrl}/status`);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { detail: string }).detail).toMatch(
        /loopback clients only.*port-forward/,
      );
    });

    it('mooring status works through 127.0.0.1 (port-forward, exec), and says why not from elsewhere', async () => {
      const node = path.join(REPO, 'node_modules', '.bin', 'node');
      const cli = path.join(REPO, 'bin', 'mooring.js');
      const { stdout } = await promisify(execFile)(node, [cli, 'status', '--url', await agent.opsUrl], {
        cwd: REPO,
        timeout: 30_000,
      });
      expect(stdout).toMatch(/^ops\s+apps\s+READY\s+Ready\s/m);
      const refused = await promisify(execFile)(node, [cli, 'status', '--url', podUrl], {
        cwd: REPO,
        timeout: 30_000,
      }).catch((err: { code: number; stderr: string }) => err);
      expect(refused).toMatchObject({ code: 1 });
      expect((refused as { stderr: string }).stderr).toMatch(
        /answered 403: \/status answers loopback clients only/,
      );
    });
  },
);
