/**
 * The baseline: an operator applying the same objects by hand. The renderer writes each
 * deployment's objects to a YAML file; the real kubectl binary then runs
 * `kubectl apply --server-side --field-manager mooring -f <dir>` against a fresh sandbox (kubectl
 * sends one request per object, after discovery and the OpenAPI download). Timed from spawn to exit.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { startKubeApi } from '../../src/sandbox/server.ts';
import { type RenderedDeployment, refOf, waitForObjects } from './convergence.ts';
import { errorLog } from './stack.ts';
import { threadRunQueueWaitFromNow } from './run-queue.ts';

export interface KubectlBaselineOptions {
  kubectl: string;
  rendered: readonly RenderedDeployment[];
  namespaces: string[];
  /** Where the manifests, kubeconfig, cache and log go. */
  workDir: string;
  timeoutMs: number;
}

export interface KubectlBaselineResult {
  seconds: number;
  exitCode: number | null;
  reads: number;
  writes: number;
  /** CPU seconds of this process (the sandbox API) while kubectl ran. */
  harnessCpuS: number;
  /** Seconds this process's main thread (the sandbox) waited for a core while kubectl ran. */
  sandboxWaitS: number | undefined;
  /** Objects still absent after kubectl exited (0 when it applied everything). */
  missing: number;
  logFile: string;
}

/** Writes one multi-document YAML file per deployment, named so the directory order is the seed order. */
export function writeManifests(rendered: readonly RenderedDeployment[], dir: string): number {
  mkdirSync(dir, { recursive: true });
  let files = 0;
  rendered.forEach((d, i) => {
    const text = d.objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
    writeFileSync(path.join(dir, `${String(i).padStart(6, '0')}-${d.id}.yaml`), text);
    files++;
  });
  return files;
}

/** Runs the baseline against a fresh sandbox and measures it. */
export async function runKubectlBaseline(options: KubectlBaselineOptions): Promise<KubectlBaselineResult> {
  const manifests = path.join(options.workDir, 'manifests');
  writeManifests(options.rendered, manifests);
  const kubeconfig = path.join(options.workDir, 'kubectl.kubeconfig');
  const api = await startKubeApi({
    namespaces: options.namespaces,
    kubeconfigOut: kubeconfig,
    logger: errorLog(path.join(options.workDir, 'kubectl-sandbox-errors.log')),
  });
  const logFile = path.join(options.workDir, 'kubectl.log');
  const log = openSync(logFile, 'w');
  try {
    const cpuBefore = process.cpuUsage();
    const sandboxWaitSince = threadRunQueueWaitFromNow();
    const started = performance.now();
    const child = spawn(
      options.kubectl,
      [
        'apply',
        '--server-side',
        '--field-manager',
        'mooring',
        '-f',
        manifests,
        '--kubeconfig',
        kubeconfig,
        '--cache-dir',
        path.join(options.workDir, 'kubectl-cache'),
      ],
      { stdio: ['ignore', log, log], env: { PATH: process.env.PATH ?? '', HOME: options.workDir } },
    );
    const killer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => resolve(code));
    });
    clearTimeout(killer);
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const sandboxWaitS = sandboxWaitSince();
    const records = api.requests();
    let missing = 0;
    await waitForObjects(
      api,
      options.rendered.map((d) => d.objects.map(refOf)),
      { timeoutMs: 0, onProgress: (m) => (missing = m) },
    );
    return {
      seconds,
      exitCode,
      reads: records.filter((r) => !r.write).length,
      writes: records.filter((r) => r.write).length,
      harnessCpuS: (cpu.user + cpu.system) / 1e6,
      sandboxWaitS,
      missing,
      logFile,
    };
  } finally {
    await api.close();
  }
}
