/**
 * The programs the agent talks to, in this process (test/support/stack.ts): the reference control
 * plane seeded with the benchmark deployments (through its store, in bulk: seeding is not what is
 * measured) and the sandbox Kubernetes API with the agent's namespaces. The API key file is
 * `<workDir>/api-key`.
 */
import path from 'node:path';
import { destination } from 'pino';
import type { Deployment, Revision } from '../../src/contract/index.ts';
import type { ControlPlaneServer } from '../../src/control-plane/server/index.ts';
import { createLogger, type Logger } from '../../src/log.ts';
import { defaultRenderSettings } from '../../src/render/index.ts';
import type { KubeApi } from '../../src/sandbox/server.ts';
import { startServers } from '../../test/support/stack.ts';
import { type RenderedDeployment, renderAll } from './convergence.ts';
import { generateDeployments } from './seed.ts';

export interface StackOptions {
  deployments: number;
  namespaces: string[];
  seed: number;
  apiKey: string;
  workDir: string;
}

export interface Stack {
  controlPlane: ControlPlaneServer;
  apiKey: string;
  kubeApi: KubeApi;
  kubeconfigPath: string;
  listenerId: string;
  deployments: Deployment[];
  revisions: Map<string, Revision>;
  rendered: RenderedDeployment[];
  objects: number;
  close(): Promise<void>;
}

/** Starts the control plane and the sandbox, seeds the deployments, renders the expected objects. */
export async function startStack(options: StackOptions): Promise<Stack> {
  const servers = await startServers({
    namespaces: options.namespaces,
    dir: options.workDir,
    apiKey: options.apiKey,
    computeId: 'bench-cluster',
    listenerVersion: '0.0.0',
    kubeconfigName: 'agent.kubeconfig',
    sandboxLogger: errorLog(path.join(options.workDir, 'sandbox-errors.log')),
  });
  const { cp: controlPlane, listenerId } = servers;
  const store = controlPlane.store;
  const bodies = generateDeployments({
    count: options.deployments,
    namespaces: options.namespaces,
    listenerId,
    seed: options.seed,
  });
  const deployments = store.db.transaction(() =>
    bodies.map((body) => store.deployments.create(body, { tenantId: store.defaultTenantId })),
  );
  // Re-read: creation sets latest_revision_id after the document is first built.
  const current = deployments.map((d) => store.deployments.get(d.id, undefined));
  const revisions = new Map<string, Revision>();
  for (const d of current) {
    if (d.latest_revision_id) revisions.set(d.id, store.deployments.getRevision(d.id, d.latest_revision_id));
  }
  const rendered = renderAll(
    current.map((deployment) => ({ deployment, revision: revisions.get(deployment.id) })),
    defaultRenderSettings(listenerId),
  );
  return {
    controlPlane,
    apiKey: options.apiKey,
    kubeApi: servers.kube,
    kubeconfigPath: servers.kubeconfigPath,
    listenerId,
    deployments: current,
    revisions,
    rendered,
    objects: rendered.reduce((n, d) => n + d.objects.length, 0),
    close: () => servers.close(),
  };
}

/** A logger of errors only (the sandbox's internal errors), to a file of the run directory. */
export function errorLog(file: string): Logger {
  return createLogger({ level: 'error', destination: destination({ dest: file, sync: false }) });
}
