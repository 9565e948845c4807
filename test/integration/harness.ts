/**
 * The three programs for real: the reference control plane and the sandbox Kubernetes API run in
 * this process; the agent runs as a child process (`bin/mooring.js run`); results are read back
 * with the real kubectl.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { toolPath } from '../../scripts/install-tools.ts';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import {
  type AgentProcess,
  spawnAgent as spawnAgentProcess,
  type StatusEntry,
} from '../support/agent-process.ts';
import { smallDeployment } from '../support/deployment-body.ts';
import { agentEnv, type Servers, type ServersOptions, startServers } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

const run = promisify(execFile);

export const LISTENER_ID = '5b0e8f7a-3c2d-4e1f-8a9b-0c1d2e3f4a5b';
export const NAMESPACE = 'apps';

export interface Stack extends Servers {
  client: ControlPlaneClient;
  /** Environment for an agent of this stack. */
  agentEnv(extra?: Record<string, string>): Record<string, string>;
  kubectl(args: string[]): Promise<string>;
}

/** The real kubectl against these servers' sandbox (a cache of its own); resolves to its stdout. */
export function kubectlOf(servers: Servers): (args: string[]) => Promise<string> {
  const cacheDir = path.join(servers.dir, 'kube-cache');
  return async (args) => {
    const { stdout } = await run(
      toolPath('kubectl'),
      ['--kubeconfig', servers.kubeconfigPath, '--cache-dir', cacheDir, ...args],
      { timeout: 20_000 },
    );
    return stdout;
  };
}

/** Starts control plane + Kubernetes API with one k8s listener for namespace `apps`. */
export async function startStack(
  opts: { rolloutDelayMs?: number; crds?: string[]; controlPlane?: ServersOptions['controlPlane'] } = {},
): Promise<Stack> {
  const servers = await startServers({
    ...(opts.controlPlane ? { controlPlane: opts.controlPlane } : {}),
    namespaces: [NAMESPACE],
    listenerId: LISTENER_ID,
    tmpPrefix: 'mooring-it-',
    rolloutDelayMs: opts.rolloutDelayMs ?? 300,
    crds: opts.crds ?? [],
  });
  const client = new ControlPlaneClient({ baseUrl: servers.cp.url, apiKey: servers.apiKey, retries: 0 });
  return {
    ...servers,
    client,
    agentEnv: (extra = {}) => agentEnv(servers, extra),
    kubectl: kubectlOf(servers),
    close: async () => {
      await client.close();
      await servers.close();
    },
  };
}

/**
 * Spawns `mooring run` with `env` (nothing inherited but PATH/HOME from the stack's env); its
 * `stop()` is a SIGKILL (graceful shutdown is tested by sending SIGTERM on purpose).
 */
export function spawnAgent(env: Record<string, string>): AgentProcess {
  return spawnAgentProcess(env, { stopGraceMs: 0 });
}

/** A deployment of `source: external_docker` for the stack's listener in `apps`. */
export function deploymentBody(name: string, image: string, secrets: { name: string; value: string }[] = []) {
  return {
    ...smallDeployment(name, LISTENER_ID, NAMESPACE),
    source_revision_config: { image_uri: image },
    secrets,
  };
}

/** Waits until the agent reports `state` for deployment `id`; on timeout the error carries the last status and log lines. */
export async function waitForState(
  agent: AgentProcess,
  id: string,
  state: string,
  timeoutMs: number,
): Promise<void> {
  let last: StatusEntry | undefined;
  try {
    await waitFor(
      `${id} ${state}`,
      async () => {
        last = await deploymentState(agent, id);
        return last?.state === state;
      },
      timeoutMs,
    );
  } catch (err) {
    const tail = agent.stdout().trim().split('\n').slice(-8).join('\n');
    throw new Error(
      `${(err as Error).message}; last status ${JSON.stringify(last)}; agent log tail:\n${tail}`,
    );
  }
}

export async function deploymentState(agent: AgentProcess, id: string): Promise<StatusEntry | undefined> {
  const doc = await agent.json<{ deployments: StatusEntry[] }>('/status');
  return doc.deployments.find((d) => d.id === id);
}

/**
 * How many resyncs the agent has made (each one's duration is on /metrics, the cold start's
 * first). With watches an idle resync may reconcile nothing (ADR 0014), so tests that wait for
 * idle cycles count these, not reconcile lines or list calls.
 */
export async function resyncCount(agent: AgentProcess): Promise<number> {
  const count = /^mooring_resync_duration_seconds_count (\d+)$/m.exec(await agent.text('/metrics'));
  return Number(count?.[1] ?? 0);
}
