/**
 * The programs the agent talks to, in this process: the reference control plane seeded with the
 * benchmark deployments (through its store, in bulk: seeding is not what is measured) and the
 * sandbox Kubernetes API with the agent's namespaces.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { destination } from 'pino';
import type { Deployment, Revision } from '../../src/contract/index.ts';
import { type ControlPlaneServer, startControlPlane } from '../../src/control-plane/server/index.ts';
import { createLogger, type Logger } from '../../src/log.ts';
import { defaultRenderSettings } from '../../src/render/index.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
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

/** Seeds the control plane, renders the expected objects, starts the sandbox. */
export async function startStack(options: StackOptions): Promise<Stack> {
  const controlPlane = await startControlPlane({ apiKey: options.apiKey, db: ':memory:' });
  const store = controlPlane.store;
  const listener = store.listeners.create({
    compute_type: 'k8s',
    compute_id: 'bench-cluster',
    compute_config: { k8s_namespaces: options.namespaces },
    version: '0.0.0',
  });
  const bodies = generateDeployments({
    count: options.deployments,
    namespaces: options.namespaces,
    listenerId: listener.id,
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
    defaultRenderSettings(listener.id),
  );
  const kubeconfigPath = path.join(options.workDir, 'agent.kubeconfig');
  const kubeApi = await startKubeApi({
    namespaces: options.namespaces,
    kubeconfigOut: kubeconfigPath,
    logger: errorLog(path.join(options.workDir, 'sandbox-errors.log')),
  });
  writeFileSync(path.join(options.workDir, 'api-key'), options.apiKey, { mode: 0o600 });
  return {
    controlPlane,
    apiKey: options.apiKey,
    kubeApi,
    kubeconfigPath,
    listenerId: listener.id,
    deployments: current,
    revisions,
    rendered,
    objects: rendered.reduce((n, d) => n + d.objects.length, 0),
    close: async () => {
      await kubeApi.close();
      await controlPlane.close();
    },
  };
}

/** A logger of errors only (the sandbox's internal errors), to a file of the run directory. */
export function errorLog(file: string): Logger {
  return createLogger({ level: 'error', destination: destination({ dest: file, sync: false }) });
}
