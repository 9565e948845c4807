/**
 * The programs the reliability suite runs together: the reference control plane and the sandbox
 * Kubernetes API in this process, the agent as a child process (`bin/mooring.js run`) that can be
 * killed and restarted. Every agent incarnation's stdout and stderr are kept, so a test can search
 * them (for a secret canary, an error code) after the agent is gone.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAgentConfig } from '../../../src/config.ts';
import { ControlPlaneClient } from '../../../src/control-plane/client.ts';
import { type ControlPlaneServer, startControlPlane } from '../../../src/control-plane/server/index.ts';
import { renderSettingsOf } from '../../../src/agent/wiring.ts';
import type { RenderSettings } from '../../../src/render/index.ts';
import { type KubeApi, startKubeApi } from '../../../src/sandbox/server.ts';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const NODE = path.join(REPO, 'node_modules', '.bin', 'node');
const BIN = path.join(REPO, 'bin', 'mooring.js');

export interface StackOptions {
  namespaces: string[];
  /** Simulated rollout time of the sandbox's workload controller; default 0. */
  rolloutDelayMs?: number;
  /** Extra agent settings (environment variables), merged over the defaults below. */
  agentEnv?: Record<string, string>;
}

export interface Stack {
  cp: ControlPlaneServer;
  kube: KubeApi;
  client: ControlPlaneClient;
  listenerId: string;
  namespaces: string[];
  dir: string;
  apiKey: string;
  kubeconfigPath: string;
  /** The environment an agent of this stack runs with (overrides win). */
  agentEnv(overrides?: Record<string, string>): Record<string, string>;
  /** The renderer settings the agent derives from that environment (as `mooring render` would). */
  renderSettings(overrides?: Record<string, string>): RenderSettings;
  close(): Promise<void>;
}

/** Starts control plane + sandbox API with one k8s listener owning `namespaces`. */
export async function startStack(options: StackOptions): Promise<Stack> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mooring-rel-'));
  const apiKey = `key-${randomBytes(18).toString('hex')}`;
  const apiKeyFile = path.join(dir, 'api-key');
  writeFileSync(apiKeyFile, `${apiKey}\n`, { mode: 0o600 });
  const listenerId = randomUUID();
  const cp = await startControlPlane({
    apiKey,
    seed: {
      listeners: [
        {
          id: listenerId,
          compute_type: 'k8s',
          compute_id: `rel-${randomBytes(4).toString('hex')}`,
          compute_config: { k8s_namespaces: options.namespaces },
        },
      ],
    },
  });
  const kubeconfigPath = path.join(dir, 'kubeconfig.yaml');
  const kube = await startKubeApi({
    namespaces: options.namespaces,
    kubeconfigOut: kubeconfigPath,
    rolloutDelayMs: options.rolloutDelayMs ?? 0,
  });
  const client = new ControlPlaneClient({ baseUrl: cp.url, apiKey, retries: 2 });
  const agentEnv = (overrides: Record<string, string> = {}) => ({
    PATH: process.env.PATH ?? '',
    HOME: dir,
    MOORING_CONTROL_PLANE_URL: cp.url,
    MOORING_API_KEY_FILE: apiKeyFile,
    MOORING_LISTENER_ID: listenerId,
    MOORING_NAMESPACES: options.namespaces.join(','),
    MOORING_KUBECONFIG: kubeconfigPath,
    MOORING_POLL_INTERVAL: '1',
    MOORING_HEARTBEAT_INTERVAL: '5',
    MOORING_OPS_HOST: '127.0.0.1',
    MOORING_OPS_PORT: '0',
    MOORING_LOG_LEVEL: 'debug',
    MOORING_SHUTDOWN_GRACE_PERIOD: '2',
    ...options.agentEnv,
    ...overrides,
  });
  return {
    cp,
    kube,
    client,
    listenerId,
    namespaces: options.namespaces,
    dir,
    apiKey,
    kubeconfigPath,
    agentEnv,
    renderSettings: (overrides = {}) => {
      const parsed = parseAgentConfig({ argv: [], env: agentEnv(overrides) });
      if (!parsed.ok || parsed.help)
        throw new Error(`agent settings do not parse: ${JSON.stringify(parsed)}`);
      return renderSettingsOf(parsed.config);
    },
    close: async () => {
      await client.close();
      await cp.close();
      await kube.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One agent process. */
export interface AgentProcess {
  child: ChildProcess;
  /** The ops server's base URL, once the agent logged it. */
  opsUrl: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  running(): boolean;
  /** SIGKILL (no grace: the agent gets no chance to tidy up). */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  json<T = unknown>(endpoint: string): Promise<T>;
  text(endpoint: string): Promise<string>;
}

/** Every line any agent incarnation wrote, by stream. */
export class AgentLogs {
  stdout = '';
  stderr = '';
  /** Both streams, as one text to search. */
  all(): string {
    return `${this.stdout}\n${this.stderr}`;
  }
  /** The JSON lines of stdout (pino), parsed; other lines are skipped. */
  lines(): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    for (const line of this.stdout.split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        out.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // a line cut by SIGKILL: not JSON, still searched as text by all()
      }
    }
    return out;
  }
}

/** Spawns `mooring run` with `env` only (nothing else inherited); output goes to `logs`. */
export function spawnAgent(env: Record<string, string>, logs: AgentLogs): AgentProcess {
  const child = spawn(NODE, [BIN, 'run'], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let own = '';
  let resolveUrl: (url: string) => void = () => {};
  const opsUrl = new Promise<string>((resolve) => {
    resolveUrl = resolve;
  });
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    logs.stdout += chunk;
    own += chunk;
    const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*ops endpoints listening/.exec(own);
    if (m?.[1]) resolveUrl(m[1]);
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    logs.stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  const get = async (endpoint: string) =>
    fetch(`${await opsUrl}${endpoint}`, { signal: AbortSignal.timeout(5000) });
  return {
    child,
    opsUrl,
    exited,
    running,
    kill: async () => {
      if (running()) child.kill('SIGKILL');
      await exited;
    },
    stop: async (graceMs = 5000) => {
      if (!running()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
    json: async <T>(endpoint: string) => (await (await get(endpoint)).json()) as T,
    text: async (endpoint: string) => (await get(endpoint)).text(),
  };
}

/** Polls `check` until it returns something other than undefined/false; throws after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (${String(last)})` : ''}`,
      );
    }
    await sleep(intervalMs);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A seedable PRNG (mulberry32): chaos timings and choices must repeat from a seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The agent's status entry of one deployment. */
export interface StatusEntry {
  id: string;
  name: string;
  state: string;
  reason: string | null;
  revision: string | null;
}
