/**
 * An agent wired in this process (`wireAgent`) from the environment a test gives, as `mooring run`
 * would parse it: for tests that drive it cycle by cycle (`runOnce`) against a control plane and
 * the sandbox Kubernetes API.
 */
import { agentRedactor } from '../../src/cli/agent-settings.ts';
import { type WiredAgent, wireAgent } from '../../src/cli/wiring.ts';
import { parseAgentConfig } from '../../src/config.ts';
import type { Logger } from 'pino';
import { silentLogger } from '../../src/log.ts';

export interface WiredAgentOptions {
  controlPlaneUrl: string;
  apiKey: string;
  listenerId: string;
  namespaces: readonly string[];
  /** The sandbox's kubeconfig (YAML text). */
  kubeconfig: string;
  /** Where the agent logs (silent by default), at `logLevel` (the agent's default when unset). */
  logger?: Logger;
  logLevel?: string;
}

/** A wired agent with the given settings and every other one at its default. */
export function wireTestAgent(o: WiredAgentOptions): WiredAgent {
  const parsed = parseAgentConfig({
    argv: [],
    env: {
      MOORING_CONTROL_PLANE_URL: o.controlPlaneUrl,
      MOORING_API_KEY: o.apiKey,
      MOORING_LISTENER_ID: o.listenerId,
      MOORING_NAMESPACES: o.namespaces.join(','),
      ...(o.logLevel ? { MOORING_LOG_LEVEL: o.logLevel } : {}),
    },
    hostname: () => 'test',
  });
  if (!parsed.ok || parsed.help) throw new Error(`bad test config: ${JSON.stringify(parsed)}`);
  return wireAgent({
    config: parsed.config,
    env: {},
    version: '0.0.0-test',
    logger: o.logger ?? silentLogger(),
    redactor: agentRedactor(parsed.config),
    kubeconfig: o.kubeconfig,
  });
}
