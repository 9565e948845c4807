/**
 * The harness's side of the control plane's worker thread (control-plane-worker.ts): starts it,
 * waits until it listens with the deployments seeded, and forwards `stats`, `resetStats`, `cpuMs`
 * and `close` to it.
 */
import { Worker } from 'node:worker_threads';
import type { Deployment, Revision } from '../../src/contract/index.ts';
import type { RequestStats } from '../../src/control-plane/server/app.ts';
import type { WorkerInput, WorkerReady, WorkerRequest } from './control-plane-worker.ts';

/** The control plane as the benchmark phases use it. */
export interface ControlPlaneThread {
  url: string;
  listenerId: string;
  /** The seeded deployments as the store returns them, and their latest revisions. */
  deployments: Deployment[];
  revisions: Map<string, Revision>;
  /** The server's request counters (total and by route) since the last reset. */
  stats(): Promise<RequestStats>;
  resetStats(): Promise<void>;
  /** The worker thread's own CPU time (user + system) since it started, in ms. */
  cpuMs(): Promise<number>;
  close(): Promise<void>;
}

type Reply = { id: number; value?: unknown; error?: string };

export async function startControlPlaneThread(input: WorkerInput): Promise<ControlPlaneThread> {
  const worker = new Worker(new URL('./control-plane-worker.ts', import.meta.url), { workerData: input });
  const ready = await new Promise<WorkerReady>((resolve, reject) => {
    const onExit = (code: number) => reject(new Error(`the control plane's worker exited with ${code}`));
    worker.once('error', reject);
    worker.once('exit', onExit);
    worker.once('message', (m: WorkerReady) => {
      worker.off('error', reject);
      worker.off('exit', onExit);
      resolve(m);
    });
  });
  let next = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  worker.on('message', (reply: Reply) => {
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    if (reply.error !== undefined) p.reject(new Error(reply.error));
    else p.resolve(reply.value);
  });
  worker.on('exit', () => {
    for (const p of pending.values()) p.reject(new Error("the control plane's worker exited"));
    pending.clear();
  });
  const call = (op: WorkerRequest['op']) =>
    new Promise<unknown>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, op } satisfies WorkerRequest);
    });
  return {
    url: ready.url,
    listenerId: ready.listenerId,
    deployments: ready.deployments,
    revisions: new Map(ready.revisions),
    stats: async () => (await call('stats')) as RequestStats,
    resetStats: async () => {
      await call('resetStats');
    },
    cpuMs: async () => (await call('cpu')) as number,
    close: async () => {
      await call('close');
      await worker.terminate();
    },
  };
}
