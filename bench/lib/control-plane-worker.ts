/**
 * The reference control plane of a benchmark stack, on a thread of its own (a worker of the
 * harness process). The sandbox Kubernetes API keeps the harness's main thread: the agent's
 * requests to the two would otherwise queue behind each other on one event loop, which a real
 * cluster and service never do, and which kubectl's baseline (no control plane) never pays.
 *
 * Started by `startControlPlaneWorker` (control-plane-thread.ts) with `workerData`; it seeds the
 * store in bulk (seeding is not what is measured), then answers `stats`, `resetStats`, `cpu` and
 * `close`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Deployment, Revision } from '../../src/contract/index.ts';
import { startListenedControlPlane } from '../../test/support/stack.ts';
import { generateDeployments } from './seed.ts';

export interface WorkerInput {
  apiKey: string;
  namespaces: string[];
  listenerId: string;
  computeId: string;
  listenerVersion: string;
  deployments: number;
  seed: number;
}

/** What the worker posts once it listens and is seeded. */
export interface WorkerReady {
  type: 'ready';
  url: string;
  listenerId: string;
  deployments: Deployment[];
  revisions: [string, Revision][];
}

export type WorkerRequest = { id: number; op: 'stats' | 'resetStats' | 'cpu' | 'close' };

const input = workerData as WorkerInput;
const port = parentPort;
if (!port) throw new Error('control-plane-worker.ts runs as a worker thread');

const { cp, listenerId } = await startListenedControlPlane(input);
const store = cp.store;
const bodies = generateDeployments({
  count: input.deployments,
  namespaces: input.namespaces,
  listenerId,
  seed: input.seed,
});
const created = store.db.transaction(() =>
  bodies.map((body) => store.deployments.create(body, { tenantId: store.defaultTenantId })),
);
// Re-read: creation sets latest_revision_id after the document is first built.
const deployments = created.map((d) => store.deployments.get(d.id, undefined));
const revisions: [string, Revision][] = [];
for (const d of deployments) {
  if (d.latest_revision_id) revisions.push([d.id, store.deployments.getRevision(d.id, d.latest_revision_id)]);
}
port.postMessage({
  type: 'ready',
  url: cp.url,
  listenerId,
  deployments,
  revisions,
} satisfies WorkerReady);

port.on('message', async (req: WorkerRequest) => {
  try {
    if (req.op === 'stats') port.postMessage({ id: req.id, value: cp.stats() });
    else if (req.op === 'cpu') {
      // This thread's own clock: `process.cpuUsage()` would count the whole process.
      const { user, system } = process.threadCpuUsage();
      port.postMessage({ id: req.id, value: (user + system) / 1000 });
    } else if (req.op === 'resetStats') {
      cp.resetStats();
      port.postMessage({ id: req.id });
    } else {
      await cp.close();
      port.postMessage({ id: req.id });
      port.close();
    }
  } catch (err) {
    port.postMessage({ id: req.id, error: err instanceof Error ? err.message : String(err) });
  }
});
