/**
 * The programs the agent talks to: the reference control plane on a worker thread of this process
 * (control-plane-worker.ts), seeded with the benchmark deployments through its store in bulk
 * (seeding is not what is measured), and the sandbox Kubernetes API on this process's main thread
 * with the agent's namespaces. The API key file is `<workDir>/api-key`.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { destination } from 'pino';
import type { Deployment, Revision } from '../../src/contract/index.ts';
import { createLogger, type Logger } from '../../src/log.ts';
import { defaultRenderSettings } from '../../src/render/index.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { type ControlPlaneThread, startControlPlaneThread } from './control-plane-thread.ts';
import { type RenderedDeployment, renderAll } from './convergence.ts';

export interface StackOptions {
  deployments: number;
  namespaces: string[];
  seed: number;
  apiKey: string;
  workDir: string;
}

export interface Stack {
  controlPlane: ControlPlaneThread;
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
  writeFileSync(path.join(options.workDir, 'api-key'), `${options.apiKey}\n`, { mode: 0o600 });
  const controlPlane = await startControlPlaneThread({
    apiKey: options.apiKey,
    namespaces: options.namespaces,
    listenerId: randomUUID(),
    computeId: 'bench-cluster',
    listenerVersion: '0.0.0',
    deployments: options.deployments,
    seed: options.seed,
  });
  const kubeconfigPath = path.join(options.workDir, 'agent.kubeconfig');
  let kubeApi: KubeApi;
  try {
    kubeApi = await startKubeApi({
      namespaces: options.namespaces,
      kubeconfigOut: kubeconfigPath,
      rolloutDelayMs: 0,
      // Every request of a phase is counted: 10,000 deployments make 130,000 in convergence alone.
      requestLogCapacity: 2_000_000,
      logger: errorLog(path.join(options.workDir, 'sandbox-errors.log')),
    });
  } catch (err) {
    await controlPlane.close();
    throw err;
  }
  const { deployments, revisions, listenerId } = controlPlane;
  const rendered = renderAll(
    deployments.map((deployment) => ({ deployment, revision: revisions.get(deployment.id) })),
    defaultRenderSettings(listenerId),
  );
  return {
    controlPlane,
    apiKey: options.apiKey,
    kubeApi,
    kubeconfigPath,
    listenerId,
    deployments,
    revisions,
    rendered,
    objects: rendered.reduce((n, d) => n + d.objects.length, 0),
    close: async () => {
      await controlPlane.close();
      await kubeApi.close();
    },
  };
}

/** A logger of errors only (the sandbox's internal errors), to a file of the run directory. */
export function errorLog(file: string): Logger {
  return createLogger({ level: 'error', destination: destination({ dest: file, sync: false }) });
}
