/**
 * The three programs for real: the reference control plane and the sandbox Kubernetes API run in
 * this process; the agent runs as a child process (`bin/mooring.js run`); results are read back
 * with the real kubectl.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { toolPath } from '../../scripts/install-tools.ts';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import { type ControlPlaneServer, startControlPlane } from '../../src/control-plane/server/index.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const NODE = path.join(REPO, 'node_modules', '.bin', 'node');
const BIN = path.join(REPO, 'bin', 'mooring.js');
const run = promisify(execFile);

export const LISTENER_ID = '5b0e8f7a-3c2d-4e1f-8a9b-0c1d2e3f4a5b';
export const NAMESPACE = 'apps';

export interface Stack {
  cp: ControlPlaneServer;
  kube: KubeApi;
  client: ControlPlaneClient;
  dir: string;
  kubeconfigPath: string;
  apiKey: string;
  apiKeyFile: string;
  /** Environment for an agent of this stack. */
  agentEnv(extra?: Record<string, string>): Record<string, string>;
  kubectl(args: string[]): Promise<string>;
  close(): Promise<void>;
}

/** Starts control plane + Kubernetes API with one k8s listener for namespace `apps`. */
export async function startStack(opts: { rolloutDelayMs?: number } = {}): Promise<Stack> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mooring-it-'));
  const apiKey = randomBytes(16).toString('hex');
  const apiKeyFile = path.join(dir, 'api-key');
  writeFileSync(apiKeyFile, `${apiKey}\n`);
  const cp = await startControlPlane({
    apiKey,
    seed: {
      listeners: [
        {
          id: LISTENER_ID,
          compute_type: 'k8s',
          compute_id: `it-${randomBytes(4).toString('hex')}`,
          compute_config: { k8s_namespaces: [NAMESPACE] },
        },
      ],
    },
  });
  const kubeconfigPath = path.join(dir, 'kubeconfig.yaml');
  const kube = await startKubeApi({
    namespaces: [NAMESPACE],
    kubeconfigOut: kubeconfigPath,
    rolloutDelayMs: opts.rolloutDelayMs ?? 300,
  });
  const client = new ControlPlaneClient({ baseUrl: cp.url, apiKey, retries: 0 });
  const cacheDir = path.join(dir, 'kube-cache');
  return {
    cp,
    kube,
    client,
    dir,
    kubeconfigPath,
    apiKey,
    apiKeyFile,
    agentEnv: (extra = {}) => ({
      PATH: process.env.PATH ?? '',
      HOME: dir,
      MOORING_CONTROL_PLANE_URL: cp.url,
      MOORING_API_KEY_FILE: apiKeyFile,
      MOORING_LISTENER_ID: LISTENER_ID,
      MOORING_NAMESPACES: NAMESPACE,
      MOORING_KUBECONFIG: kubeconfigPath,
      MOORING_POLL_INTERVAL: '1',
      MOORING_HEARTBEAT_INTERVAL: '5',
      MOORING_OPS_HOST: '127.0.0.1',
      MOORING_OPS_PORT: '0',
      MOORING_LOG_LEVEL: 'debug',
      ...extra,
    }),
    kubectl: async (args) => {
      const { stdout } = await run(
        toolPath('kubectl'),
        ['--kubeconfig', kubeconfigPath, '--cache-dir', cacheDir, ...args],
        {
          timeout: 20_000,
        },
      );
      return stdout;
    },
    close: async () => {
      await client.close();
      await cp.close();
      await kube.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface AgentProcess {
  child: ChildProcess;
  /** Everything the agent wrote so far. */
  stdout(): string;
  stderr(): string;
  /** The ops server's base URL, once it is listening. */
  opsUrl: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** GET a JSON ops endpoint. */
  json<T = unknown>(endpoint: string): Promise<T>;
  text(endpoint: string): Promise<string>;
  stop(): Promise<void>;
}

/** Spawns `mooring run` with `env` (nothing inherited but PATH/HOME from the stack's env). */
export function spawnAgent(env: Record<string, string>): AgentProcess {
  const child = spawn(NODE, [BIN, 'run'], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let resolveUrl: (url: string) => void = () => {};
  const opsUrl = new Promise<string>((resolve) => {
    resolveUrl = resolve;
  });
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*ops endpoints listening/.exec(out);
    if (m) resolveUrl(m[1]!);
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const get = async (endpoint: string) => {
    const res = await fetch(`${await opsUrl}${endpoint}`, { signal: AbortSignal.timeout(5000) });
    return res;
  };
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    opsUrl,
    exited,
    json: async <T>(endpoint: string) => (await (await get(endpoint)).json()) as T,
    text: async (endpoint: string) => (await get(endpoint)).text(),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Polls `check` until it returns a value other than undefined/null/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs: number,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== null && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** A deployment of `source: external_docker` for the stack's listener in `apps`. */
export function deploymentBody(name: string, image: string, secrets: { name: string; value: string }[] = []) {
  return {
    name,
    source: 'external_docker' as const,
    source_config: {
      listener_id: LISTENER_ID,
      listener_config: { k8s_namespace: NAMESPACE },
      resource_spec: { min_scale: 1, max_scale: 1, cpu: 0.25, memory_mb: 128 },
    },
    source_revision_config: { image_uri: image },
    secrets,
  };
}

/** The status entry of one deployment in an agent's /status. */
export interface StatusEntry {
  id: string;
  name: string;
  state: string;
  reason: string | null;
  revision: string | null;
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
