/**
 * The programs the reliability suite runs together: the reference control plane and the sandbox
 * Kubernetes API in this process (test/support/stack.ts), the agent as a child process that can be
 * killed and restarted (test/support/agent-process.ts, with an AgentLogs keeping every
 * incarnation's output for a test to search after the agent is gone).
 */
import { renderSettingsOf } from '../../../src/cli/agent-settings.ts';
import { parseAgentConfig } from '../../../src/config.ts';
import { ControlPlaneClient } from '../../../src/control-plane/client.ts';
import type { RenderSettings } from '../../../src/render/index.ts';
import type { AgentLogs } from '../../support/agent-logs.ts';
import { type AgentProcess, spawnAgent as spawnAgentProcess } from '../../support/agent-process.ts';
import { agentEnv, type Servers, startServers } from '../../support/stack.ts';

export interface StackOptions {
  namespaces: string[];
  /** Simulated rollout time of the sandbox's workload controller; default 0. */
  rolloutDelayMs?: number;
  /** Extra agent settings (environment variables), merged over the defaults below. */
  agentEnv?: Record<string, string>;
}

export interface Stack extends Servers {
  client: ControlPlaneClient;
  /** The environment an agent of this stack runs with (overrides win). */
  agentEnv(overrides?: Record<string, string>): Record<string, string>;
  /** The renderer settings the agent derives from that environment (as `mooring render` would). */
  renderSettings(overrides?: Record<string, string>): RenderSettings;
}

/** Starts control plane + sandbox API with one k8s listener owning `namespaces`. */
export async function startStack(options: StackOptions): Promise<Stack> {
  const servers = await startServers({
    namespaces: options.namespaces,
    tmpPrefix: 'mooring-rel-',
    rolloutDelayMs: options.rolloutDelayMs ?? 0,
  });
  const client = new ControlPlaneClient({ baseUrl: servers.cp.url, apiKey: servers.apiKey, retries: 2 });
  const env = (overrides: Record<string, string> = {}) =>
    agentEnv(servers, { MOORING_SHUTDOWN_GRACE_PERIOD: '2', ...options.agentEnv, ...overrides });
  return {
    ...servers,
    client,
    agentEnv: env,
    renderSettings: (overrides = {}) => {
      const parsed = parseAgentConfig({ argv: [], env: env(overrides) });
      if (!parsed.ok || parsed.help)
        throw new Error(`agent settings do not parse: ${JSON.stringify(parsed)}`);
      return renderSettingsOf(parsed.config);
    },
    close: async () => {
      await client.close();
      await servers.close();
    },
  };
}

/**
 * Spawns `mooring run` with `env` only (nothing else inherited); its output also goes to `logs`;
 * `stop()` sends SIGTERM and SIGKILLs after 5 s.
 */
export function spawnAgent(env: Record<string, string>, logs: AgentLogs): AgentProcess {
  return spawnAgentProcess(env, { logs, stopGraceMs: 5000 });
}
