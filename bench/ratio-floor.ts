/**
 * The floor under the convergence ratio: how fast the sandbox can take the bench's objects from a
 * client that does nothing but send them. The objects are rendered and serialized beforehand; a
 * child process then applies them through the agent's own HTTP client (8 deployments at a time,
 * as the agent's default concurrency, answers asked as metadata only), with no control plane, no
 * start-up, no rendering, no hashing, no memo, no Events and no logs. Each round alternates it with
 * kubectl, each on a fresh sandbox in this process, as `bench/run.ts` runs its baseline; the ratio
 * is the bare client's time over kubectl's. The agent's ratio cannot be lower than this one, since
 * it does all the bare client does and more, on the same two cores.
 *
 * A throwaway round of up to 1,000 deployments comes first, so that no measured round runs on a
 * cold harness.
 *
 * With `--skip-kubectl` only the bare client runs: its seconds alone, for an agent's
 * `convergence_s` measured in the same sitting (`npm run bench -- --skip-kubectl`), whose quotient
 * is then the agent's ratio over the floor's without kubectl's minutes at large N.
 *
 *   node bench/ratio-floor.ts --deployments 1000 [--rounds 3] [--skip-kubectl] [--json FILE]
 */
import { execFile } from 'node:child_process';
import {
  closeSync,
  createReadStream,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createInterface } from 'node:readline';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import pMap from 'p-map';
import { ensureTools } from '../scripts/install-tools.ts';
import { prepareForApply } from '../src/kube/desired-hash.ts';
import { sortForApply } from '../src/objects/kinds.ts';
import type { KubeObject } from '../src/objects/kube-object.ts';
import { startKubeApi } from '../src/sandbox/server.ts';
import { describeMachine, median, round, roundOrNull } from './lib/figures.ts';
import { peakRssMib } from './lib/peak-rss.ts';
import { runKubectlBaseline } from './lib/kubectl-baseline.ts';
import { errorLog, startStack } from './lib/stack.ts';

const NAMESPACES = ['bench-0', 'bench-1', 'bench-2', 'bench-3'];
const CONCURRENCY = 8;
const SELF = fileURLToPath(import.meta.url);

interface BareResult {
  seconds: number;
  cpuS: number;
  applies: number;
  /** The child's peak resident memory (VmHWM), MiB: Node, the agent's HTTP client and the objects. */
  peakRssMib: number | null;
}

/**
 * What the child applies per object: the body, and of the object only what names its path (the
 * agent too holds a deployment's rendered objects only while it applies them).
 */
interface ToApply {
  object: Pick<KubeObject, 'apiVersion' | 'kind'> & { metadata: { name?: string; namespace?: string } };
  body: string;
}

/** The prepared objects, one line of JSON per deployment: at 10,000 the whole is too long for one string. */
function writePrepared(file: string, rendered: readonly { objects: readonly unknown[] }[]): void {
  const fd = openSync(file, 'w');
  try {
    for (const d of rendered) {
      // As the agent's reconcile hands rendered objects to its apply (reconcile.ts).
      const objects: ToApply[] = sortForApply(d.objects as unknown as KubeObject[]).map((o) => {
        const { object, body } = prepareForApply(o);
        const { name, namespace } = object.metadata;
        return {
          object: { apiVersion: object.apiVersion, kind: object.kind, metadata: { name, namespace } },
          body,
        };
      });
      writeSync(fd, `${JSON.stringify(objects)}\n`);
    }
  } finally {
    closeSync(fd);
  }
}

async function readPrepared(file: string): Promise<ToApply[][]> {
  const out: ToApply[][] = [];
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (line !== '') out.push(JSON.parse(line) as ToApply[]);
  }
  return out;
}

/** The child: applies every prepared object, `CONCURRENCY` deployments at a time, and reports. */
async function bareClient(preparedFile: string, kubeconfig: string): Promise<void> {
  const { loadClusterAccess } = await import('../src/kube/kubeconfig.ts');
  const { KubeHttp } = await import('../src/kube/http.ts');
  const { ObjectClient } = await import('../src/kube/object-client.ts');
  const deployments = await readPrepared(preparedFile);
  const http = new KubeHttp(loadClusterAccess(kubeconfig, process.env));
  const client = new ObjectClient(http);
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  let applies = 0;
  await pMap(
    deployments,
    async (objects) => {
      for (const { object, body } of objects) {
        await client.apply(
          object as KubeObject,
          { fieldManager: 'mooring', force: true, metadataOnly: true },
          body,
        );
        applies++;
      }
    },
    { concurrency: CONCURRENCY },
  );
  const cpu = process.cpuUsage(cpu0);
  const result: BareResult = {
    seconds: (performance.now() - started) / 1000,
    cpuS: (cpu.user + cpu.system) / 1e6,
    applies,
    peakRssMib: peakRssMib(),
  };
  process.stdout.write(JSON.stringify(result));
  await http.close();
}

/** Runs the bare client in a child process against a fresh sandbox; the sandbox's CPU is this process's. */
async function bareRound(
  preparedFile: string,
  workDir: string,
): Promise<BareResult & { sandboxCpuS: number }> {
  const kubeconfig = path.join(workDir, 'bare.kubeconfig');
  const api = await startKubeApi({
    namespaces: NAMESPACES,
    kubeconfigOut: kubeconfig,
    rolloutDelayMs: 0,
    logger: errorLog(path.join(workDir, 'bare-sandbox-errors.log')),
  });
  try {
    const cpu0 = process.cpuUsage();
    // Rejects with the child's stderr when it fails.
    const { stdout } = await promisify(execFile)(process.execPath, [
      SELF,
      '--child',
      preparedFile,
      kubeconfig,
    ]);
    const cpu = process.cpuUsage(cpu0);
    return { ...(JSON.parse(stdout) as BareResult), sandboxCpuS: (cpu.user + cpu.system) / 1e6 };
  } finally {
    await api.close();
  }
}

/** kubectl's round on a fresh sandbox, as `bench/run.ts` runs its baseline; throws when it fails. */
async function kubectlRound(
  kubectl: string,
  rendered: Parameters<typeof runKubectlBaseline>[0]['rendered'],
  dir: string,
): Promise<Awaited<ReturnType<typeof runKubectlBaseline>>> {
  const k = await runKubectlBaseline({
    kubectl,
    rendered,
    namespaces: NAMESPACES,
    workDir: dir,
    timeoutMs: 900_000,
  });
  if (k.exitCode !== 0 || k.missing > 0)
    throw new Error(`kubectl failed (exit ${k.exitCode}, ${k.missing} objects missing): ${k.logFile}`);
  return k;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      deployments: { type: 'string', default: '1000' },
      rounds: { type: 'string', default: '3' },
      json: { type: 'string' },
      seed: { type: 'string', default: '1' },
      'skip-kubectl': { type: 'boolean', default: false },
    },
  });
  const skipKubectl = values['skip-kubectl'];
  const deployments = Number(values.deployments);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(deployments) || deployments < 1 || !Number.isInteger(rounds) || rounds < 1) {
    process.stderr.write(
      'usage: node bench/ratio-floor.ts --deployments N (>= 1) [--rounds R (>= 1)] [--skip-kubectl] [--json FILE]\n',
    );
    process.exit(2);
  }
  const say = (line: string) => process.stderr.write(`[ratio-floor] ${line}\n`);
  const kubectl = skipKubectl ? undefined : ensureTools(say).kubectl;
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'mooring-ratio-floor-'));
  try {
    const stack = await startStack({
      deployments,
      namespaces: NAMESPACES,
      seed: Number(values.seed),
      apiKey: `bench-${'k'.repeat(32)}`,
      workDir,
    });
    const { rendered, objects } = stack;
    await stack.close();
    const preparedFile = path.join(workDir, 'prepared.jsonl');
    writePrepared(preparedFile, rendered);
    // A first round on a cold harness ran up to a fifth slower than the next ones: it warms the
    // sandbox's code and the compile cache, as pull-floor.ts's and bench/run.ts's warm-ups do.
    const warm = Math.min(deployments, 1_000);
    say(`warm-up: a throwaway round of ${warm} deployments (not measured)`);
    const warmFile = path.join(workDir, 'warm-up.jsonl');
    writePrepared(warmFile, rendered.slice(0, warm));
    const warmDir = path.join(workDir, 'warm-up');
    mkdirSync(warmDir);
    await bareRound(warmFile, warmDir);
    say(
      `${deployments} deployments, ${objects} objects; ${rounds} rounds of the bare client${kubectl ? ', then kubectl' : ''}`,
    );
    const rows = [];
    for (let r = 0; r < rounds; r++) {
      const dir = path.join(workDir, `round-${r}`);
      mkdirSync(dir);
      const bare = await bareRound(preparedFile, dir);
      const k = kubectl && (await kubectlRound(kubectl, rendered, dir));
      const row = {
        bare_s: round(bare.seconds, 3),
        bare_cpu_s: round(bare.cpuS),
        bare_sandbox_cpu_s: round(bare.sandboxCpuS),
        bare_applies: bare.applies,
        bare_client_us_per_apply: Math.round((bare.cpuS * 1e6) / bare.applies),
        bare_peak_rss_mib: bare.peakRssMib === null ? null : round(bare.peakRssMib),
        kubectl_s: k ? round(k.seconds, 3) : null,
        kubectl_sandbox_cpu_s: k ? round(k.harnessCpuS) : null,
        ratio: k ? round(bare.seconds / k.seconds, 3) : null,
      };
      rows.push(row);
      const bareLine = `bare client ${row.bare_s} s (its CPU ${row.bare_cpu_s} s, ${row.bare_client_us_per_apply} µs per apply; sandbox ${row.bare_sandbox_cpu_s} s; peak RSS ${row.bare_peak_rss_mib} MiB)`;
      say(`round ${r + 1}: ${bareLine}${k ? `, kubectl ${row.kubectl_s} s: ratio ${row.ratio}` : ''}`);
    }
    const result = {
      deployments,
      objects,
      concurrency: CONCURRENCY,
      rounds: rows,
      ratio_median: kubectl ? roundOrNull(median(rows.map((r) => r.ratio ?? 0)), 3) : null,
      bare_s_median: roundOrNull(median(rows.map((r) => r.bare_s)), 3),
      kubectl_s_median: kubectl ? roundOrNull(median(rows.map((r) => r.kubectl_s ?? 0)), 3) : null,
      bare_peak_rss_mib_max: Math.max(...rows.map((r) => r.bare_peak_rss_mib ?? 0)) || null,
      machine: describeMachine(),
      load_average: os.loadavg(),
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    if (values.json) writeFileSync(values.json, `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') await bareClient(process.argv[3] ?? '', process.argv[4] ?? '');
else {
  await main();
  process.exit(0);
}
