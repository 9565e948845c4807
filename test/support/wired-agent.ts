/**
 * An agent wired in this process (`wireAgent`) from the environment a test gives, as `mooring run`
 * would parse it: for tests that drive it cycle by cycle (`runOnce`) against a control plane and
 * the sandbox Kubernetes API.
 */
import { randomBytes } from 'node:crypto';
import { agentRedactor } from '../../src/cli/agent-settings.ts';
import { type WireOptions, type WiredAgent, wireAgent } from '../../src/cli/wiring.ts';
import { parseAgentConfig } from '../../src/config.ts';
import type { Logger } from 'pino';
import { silentLogger } from '../../src/log.ts';
import { createKubeClient } from '../../src/kube/clients.ts';
import { type ControlPlaneServer, startControlPlane } from '../../src/control-plane/server/index.ts';

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
  /** More `MOORING_*` settings, as the environment gives them. */
  env?: Record<string, string>;
  onReconciled?: WireOptions['onReconciled'];
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
      ...o.env,
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
    ...(o.onReconciled ? { onReconciled: o.onReconciled } : {}),
  });
}

/** The reference control plane, seeded with one k8s listener of `namespaces` (a fresh compute id). */
export function startListenerControlPlane(o: {
  apiKey: string;
  listenerId: string;
  namespaces: readonly string[];
  /** Names the test in the listener's compute id. */
  name: string;
}): Promise<ControlPlaneServer> {
  return startControlPlane({
    apiKey: o.apiKey,
    seed: {
      listeners: [
        {
          id: o.listenerId,
          compute_type: 'k8s',
          compute_id: `${o.name}-${randomBytes(4).toString('hex')}`,
          compute_config: { k8s_namespaces: [...o.namespaces] },
        },
      ],
    },
  });
}

/** Scales a Deployment as `kubectl edit` would (another field manager): drift for the agent to repair. */
export async function scaleByHand(kubeconfig: string, namespace: string, name: string, replicas: number) {
  const http = createKubeClient(kubeconfig);
  try {
    await http.request({
      method: 'PATCH',
      path: `/apis/apps/v1/namespaces/${namespace}/deployments/${name}?fieldManager=kubectl-edit`,
      body: { spec: { replicas } },
      contentType: 'application/merge-patch+json',
    });
  } finally {
    await http.close();
  }
}

/**
 * Runs the wired agent until `until` settles, then stops it and closes what was wired; rejects if
 * the agent stops by itself first (or `until` rejects).
 */
export async function runWiredUntil(wired: WiredAgent, until: Promise<unknown>): Promise<void> {
  const stop = new AbortController();
  const running = wired.agent.run(stop.signal);
  try {
    await Promise.race([
      until,
      running.then(() => {
        throw new Error('the agent stopped by itself');
      }),
    ]);
  } finally {
    stop.abort();
    await running;
    await wired.close();
  }
}
