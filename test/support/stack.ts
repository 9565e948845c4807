/**
 * The two programs the agent talks to, started in this process for a test or the benchmark: the
 * reference control plane with one k8s listener, and the sandbox Kubernetes API serving that
 * listener's namespaces, with an API key file and a kubeconfig for the agent.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type ControlPlaneOptions,
  type ControlPlaneServer,
  startControlPlane,
} from '../../src/control-plane/server/index.ts';
import type { Logger } from '../../src/log.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { recordAgentAccesses } from './access-record.ts';

export interface ServersOptions {
  /** The listener's namespaces (also the sandbox's). */
  namespaces: string[];
  /** Directory for the API key file and kubeconfig, kept on close; default a new temporary one, removed on close. */
  dir?: string;
  /** Name prefix of that temporary directory; default `mooring-`. */
  tmpPrefix?: string;
  /** Default a fresh random key (a unique canary for the tests that search output for it). */
  apiKey?: string;
  /** Default a random UUID. */
  listenerId?: string;
  /** Default a random one. */
  computeId?: string;
  /** The listener's reported agent version; default none. */
  listenerVersion?: string;
  /** Simulated rollout time of the sandbox's workload controller; default 0. */
  rolloutDelayMs?: number;
  /** File name of the agent's kubeconfig in `dir`; default `kubeconfig.yaml`. */
  kubeconfigName?: string;
  /** Where the sandbox API logs (its internal errors); default nowhere. */
  sandboxLogger?: Logger;
  /** CRDs the sandbox serves as installed (e.g. the Gateway API's HTTPRoute); default none. */
  crds?: string[];
  /** The control plane's clock, deleted retention and simulated builds; default the real clock, its default retention, no builds. */
  controlPlane?: Pick<
    ControlPlaneOptions,
    'now' | 'deletedRetentionSeconds' | 'simulateBuildsSeconds' | 'buildFailureRate' | 'random'
  >;
}

/** The running programs and the files an agent needs to reach them. */
export interface Servers {
  cp: ControlPlaneServer;
  kube: KubeApi;
  listenerId: string;
  namespaces: string[];
  dir: string;
  apiKey: string;
  /** Holds the API key (mode 0600). */
  apiKeyFile: string;
  kubeconfigPath: string;
  /** Closes both programs; removes `dir` when it was made here. */
  close(): Promise<void>;
}

/**
 * The reference control plane (in memory) with one k8s listener over `namespaces`, as every
 * stack has it.
 */
export async function startListenedControlPlane(
  options: Pick<
    ServersOptions,
    'namespaces' | 'listenerId' | 'computeId' | 'listenerVersion' | 'controlPlane'
  > & {
    apiKey: string;
  },
): Promise<{ cp: ControlPlaneServer; listenerId: string }> {
  const cp = await startControlPlane({ apiKey: options.apiKey, db: ':memory:', ...options.controlPlane });
  const listener = cp.store.listeners.create(
    {
      compute_type: 'k8s',
      compute_id: options.computeId ?? `cluster-${randomBytes(4).toString('hex')}`,
      compute_config: { k8s_namespaces: options.namespaces },
      ...(options.listenerVersion === undefined ? {} : { version: options.listenerVersion }),
    },
    options.listenerId ?? randomUUID(),
  );
  return { cp, listenerId: listener.id };
}

/** Starts the control plane (with the listener) and the sandbox API. */
export async function startServers(options: ServersOptions): Promise<Servers> {
  const dir = options.dir ?? mkdtempSync(path.join(tmpdir(), options.tmpPrefix ?? 'mooring-'));
  const apiKey = options.apiKey ?? `key-${randomBytes(18).toString('hex')}`;
  const apiKeyFile = path.join(dir, 'api-key');
  writeFileSync(apiKeyFile, `${apiKey}\n`, { mode: 0o600 });
  const { cp, listenerId } = await startListenedControlPlane({ ...options, apiKey });
  const kubeconfigPath = path.join(dir, options.kubeconfigName ?? 'kubeconfig.yaml');
  const kube = await startKubeApi({
    namespaces: options.namespaces,
    kubeconfigOut: kubeconfigPath,
    rolloutDelayMs: options.rolloutDelayMs ?? 0,
    logger: options.sandboxLogger,
    crds: options.crds ?? [],
  });
  return {
    cp,
    kube,
    listenerId,
    namespaces: options.namespaces,
    dir,
    apiKey,
    apiKeyFile,
    kubeconfigPath,
    close: async () => {
      // What the agent asked of the API server, for the run's RBAC check.
      recordAgentAccesses(kube, options.namespaces);
      await cp.close();
      await kube.close();
      if (options.dir === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The environment of an agent of `servers` as the tests run it: polls every second, ops endpoints
 * on a random port, debug logs, HOME in the servers' directory; `extra` wins.
 */
export function agentEnv(servers: Servers, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: servers.dir,
    MOORING_CONTROL_PLANE_URL: servers.cp.url,
    MOORING_API_KEY_FILE: servers.apiKeyFile,
    MOORING_LISTENER_ID: servers.listenerId,
    MOORING_NAMESPACES: servers.namespaces.join(','),
    MOORING_KUBECONFIG: servers.kubeconfigPath,
    MOORING_POLL_INTERVAL: '1',
    MOORING_HEARTBEAT_INTERVAL: '5',
    MOORING_OPS_HOST: '127.0.0.1',
    MOORING_OPS_PORT: '0',
    MOORING_LOG_LEVEL: 'debug',
    ...extra,
  };
}
