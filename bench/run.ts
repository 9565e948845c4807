/**
 * The benchmark: `npm run bench -- --deployments N [--json FILE]`. See bench/README.md for what
 * each figure means. Phases, in order: cold convergence of a fresh agent; idle cycles;
 * propagation of image changes; a restart on the converged cluster; the kubectl baseline (last,
 * so it never shares the CPU with the agent).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureTools } from '../scripts/install-tools.ts';
import { AgentProcess } from './lib/agent-process.ts';
import {
  type BenchResult,
  convergenceRound,
  emptyResult,
  formatTable,
  round,
  roundsNote,
  summarizeRounds,
  toJson,
} from './lib/figures.ts';
import { runKubectlBaseline } from './lib/kubectl-baseline.ts';
import { runAgentPhases, runConvergenceOnly } from './lib/agent-phases.ts';
import { runReplicaPhases } from './lib/replica-phases.ts';
import { summarizeDir } from './lib/profile-summary.ts';
import { updateReadme } from './lib/readme.ts';
import { measuredCommit } from './lib/commit.ts';
import { primeCompileCache } from './lib/compile-cache.ts';
import { updateSizing } from './lib/sizing.ts';
import { imageNodeFlags, imageRuntimeEnv } from './lib/image-runtime.ts';
import { createMemoryCgroup, repoChartMemoryLimitMib } from './lib/memory-limit.ts';
import { type Stack, startStack } from './lib/stack.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const USAGE = `usage: npm run bench -- --deployments N [flags]
  --deployments N        deployments to seed (required)
  --namespaces N         namespaces they are spread over (default 4)
  --poll-interval S      the agent's poll interval, seconds (default 5)
  --resync-interval S    the agent's --resync-interval, seconds (default: unset, every poll resyncs)
  --idle-cycles N        idle poll cycles measured after convergence (default 5)
  --changes N            image changes timed for propagation (default 50)
  --rounds N             rounds of cold convergence, agent then kubectl, each on a fresh stack
                         (default 1); the table gives the medians
  --restart-idle-cycles N  after the first restart settles, skip 3 polls (its watches start from
                         the second listing after it), then measure N idle poll cycles of the
                         restarted agent as after convergence (default 0: none)
  --restarts N           restarts on the converged cluster, each a fresh agent (default 1); the
                         table gives the median settled time
  --timeout S            limit of each waiting phase, seconds (default 900)
  --seed N               seed of the generated deployments (default 1)
  --json FILE            also write the figures as JSON to FILE
  --label TEXT           what is measured (e.g. a commit), kept in the figures
  --readme               replace the "Benchmarks" section at the end of README.md with this run
  --readme-from FILE     only rewrite that README section from a JSON result of an earlier run
  --sizing-from FILE     only rewrite the operator guide's sizing table from JSON results of earlier
                         runs (repeatable: one row per result)
  --skip-kubectl         skip the kubectl baseline
  --skip-warmup          skip the harness's warm-up (a throwaway convergence before anything is measured)
  --kubectl-only         run only the kubectl baseline (skip the agent phases)
  --cpu-prof             run the agent with --cpu-prof (profiles in the run directory)
  --agent-node-option X  pass X to the agent's node (repeatable; for experiments, reported in notes)
  --agent-env K=V        set K=V in the agent's environment (repeatable; for experiments, reported
                         in notes)
  --agent-arg X          pass X to mooring run (repeatable, e.g. --agent-arg=--concurrency=16;
                         for experiments, reported in notes)
  --replicas N           run N agents (N >= 1) at once with --leader-election and measure cold
                         convergence and idle cycles per replica (peak RSS, CPU, shards held,
                         reconciles, resync time); skips propagation, restarts and kubectl;
                         shard with --agent-arg=--shards=K (without the flag: one agent, no
                         election, every phase)
  --memory-limit MIB     run the agent in a memory cgroup with this limit (default: the Helm
                         chart's resources.limits.memory; 0: no limit)
`;

function parse(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      deployments: { type: 'string' },
      namespaces: { type: 'string', default: '4' },
      'poll-interval': { type: 'string', default: '5' },
      'resync-interval': { type: 'string' },
      'idle-cycles': { type: 'string', default: '5' },
      changes: { type: 'string', default: '50' },
      rounds: { type: 'string', default: '1' },
      restarts: { type: 'string', default: '1' },
      'restart-idle-cycles': { type: 'string', default: '0' },
      timeout: { type: 'string', default: '900' },
      seed: { type: 'string', default: '1' },
      json: { type: 'string' },
      label: { type: 'string' },
      readme: { type: 'boolean', default: false },
      'readme-from': { type: 'string' },
      'sizing-from': { type: 'string', multiple: true },
      'skip-kubectl': { type: 'boolean', default: false },
      'skip-warmup': { type: 'boolean', default: false },
      'kubectl-only': { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      'agent-node-option': { type: 'string', multiple: true, default: [] },
      'agent-arg': { type: 'string', multiple: true, default: [] },
      'agent-env': { type: 'string', multiple: true, default: [] },
      'memory-limit': { type: 'string' },
      replicas: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const int = (name: string, v: string | undefined, min: number) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min} (got ${v})`);
    return n;
  };
  if (values['kubectl-only'] && values['skip-kubectl'])
    throw new Error('--kubectl-only and --skip-kubectl exclude each other');
  if (values.replicas !== undefined && (Number(values.rounds) > 1 || values['kubectl-only']))
    throw new Error('--replicas measures one round of the agents: no --rounds, no --kubectl-only');
  const pollIntervalS = Number(values['poll-interval']);
  if (!(pollIntervalS > 0)) throw new Error(`--poll-interval must be a positive number of seconds`);
  const resync = values['resync-interval'];
  const resyncIntervalS = resync === undefined ? undefined : Number(resync);
  if (resyncIntervalS !== undefined && !(resyncIntervalS > 0))
    throw new Error('--resync-interval must be a positive number of seconds');
  return {
    help: values.help,
    resyncIntervalS,
    readmeFrom: values['readme-from'],
    sizingFrom: values['sizing-from'] ?? [],
    deployments:
      values.help || values['readme-from'] || values['sizing-from']
        ? 0
        : int('deployments', values.deployments, 1),
    namespaces: int('namespaces', values.namespaces, 1),
    pollIntervalS,
    idleCycles: int('idle-cycles', values['idle-cycles'], 1),
    changes: int('changes', values.changes, 0),
    rounds: int('rounds', values.rounds, 1),
    restarts: int('restarts', values.restarts, 1),
    restartIdleCycles: int('restart-idle-cycles', values['restart-idle-cycles'], 0),
    timeoutMs: int('timeout', values.timeout, 1) * 1000,
    seed: int('seed', values.seed, 0),
    json: values.json,
    label: values.label ?? null,
    readme: values.readme,
    skipKubectl: values['skip-kubectl'],
    skipWarmup: values['skip-warmup'],
    kubectlOnly: values['kubectl-only'],
    cpuProf: values['cpu-prof'],
    agentNodeOptions: values['agent-node-option'],
    agentArgs: values['agent-arg'],
    agentEnv: Object.fromEntries(
      values['agent-env'].map((kv) => {
        const eq = kv.indexOf('=');
        if (eq < 1) throw new Error(`--agent-env wants NAME=VALUE (got ${kv})`);
        return [kv.slice(0, eq), kv.slice(eq + 1)];
      }),
    ),
    /** Agents run at once with leader election (`--replicas`); undefined: one agent, no election. */
    replicas: values.replicas === undefined ? undefined : int('replicas', values.replicas, 1),
    memoryLimitMib:
      values['memory-limit'] === undefined ? undefined : int('memory-limit', values['memory-limit'], 0),
  };
}

type Options = ReturnType<typeof parse>;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const say = (line: string) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/**
 * How the agent runs as the chart ships it: its memory limit (0: none), the image's environment
 * (`NODE_OPTIONS`, `MALLOC_ARENA_MAX`) and the flags its ENTRYPOINT gives `node`.
 */
interface AgentRuntime {
  limitMib: number;
  imageEnv: Record<string, string>;
  nodeFlags: string[];
}

/** The memory limit from the flag, else the chart's default; the image's environment and node flags from the Dockerfile. */
function agentRuntime(o: Options): AgentRuntime {
  const limitMib = o.memoryLimitMib ?? repoChartMemoryLimitMib(ROOT);
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  return { limitMib, imageEnv: imageRuntimeEnv(dockerfile), nodeFlags: imageNodeFlags(dockerfile) };
}

async function startAgent(
  stack: Stack,
  o: Options,
  runtime: AgentRuntime,
  runDir: string,
  name: string,
  note: (l: string) => void,
) {
  const opsPort = await freePort();
  const { limitMib, imageEnv, nodeFlags } = runtime;
  const cgroup = limitMib > 0 ? createMemoryCgroup(name, limitMib) : undefined;
  if (typeof cgroup === 'string') note(`${name}: no memory limit applied (${cgroup})`);
  const agent = new AgentProcess({
    root: ROOT,
    ...(typeof cgroup === 'object' ? { cgroup } : {}),
    // Node as the image runs it; --agent-env replaces what it names. Replicas need names of their
    // own (the Lease holder identity), as pods have.
    env: { ...imageEnv, ...(o.replicas !== undefined ? { MOORING_POD_NAME: name } : {}), ...o.agentEnv },
    logFile: path.join(runDir, `${name}.log`),
    nodeFlags: [
      ...nodeFlags,
      ...(o.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${path.join(runDir, `${name}-profile`)}`] : []),
      ...o.agentNodeOptions,
    ],
    args: [
      '--control-plane-url',
      stack.controlPlane.url,
      '--api-key-file',
      path.join(runDir, 'api-key'),
      '--listener-id',
      stack.listenerId,
      '--namespaces',
      Array.from({ length: o.namespaces }, (_, i) => `bench-${i}`).join(','),
      '--kubeconfig',
      stack.kubeconfigPath,
      '--poll-interval',
      String(o.pollIntervalS),
      ...(o.resyncIntervalS === undefined ? [] : ['--resync-interval', String(o.resyncIntervalS)]),
      '--ops-host',
      '127.0.0.1',
      '--ops-port',
      String(opsPort),
      // As the chart runs it: the leader keeps its restart memo (ADR 0010).
      '--restart-memo',
      'mooring-restart-memo',
      ...(o.replicas !== undefined ? ['--leader-election', '--lease-namespace', 'bench-0'] : []),
      ...o.agentArgs,
    ],
  });
  return { agent, opsUrl: `http://127.0.0.1:${opsPort}` };
}

async function main(): Promise<number> {
  let o: Options;
  try {
    o = parse(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (o.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (o.readmeFrom) {
    const saved = JSON.parse(readFileSync(o.readmeFrom, 'utf8')) as BenchResult;
    const readme = path.join(ROOT, 'README.md');
    writeFileSync(readme, updateReadme(readFileSync(readme, 'utf8'), saved));
    return 0;
  }
  if (o.sizingFrom.length > 0) {
    const saved = o.sizingFrom.map((file) => JSON.parse(readFileSync(file, 'utf8')) as BenchResult);
    const guide = path.join(ROOT, 'docs', 'operator-guide.md');
    writeFileSync(guide, updateSizing(readFileSync(guide, 'utf8'), saved));
    return 0;
  }
  const runDir = path.join(ROOT, 'bench', 'results', `run-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(runDir, { recursive: true });
  const namespaces = Array.from({ length: o.namespaces }, (_, i) => `bench-${i}`);
  const loadStart = os.loadavg()[0] ?? 0;
  const result: BenchResult = emptyResult(o.deployments, o.namespaces, o.pollIntervalS);
  const note = (line: string) => {
    say(`NOTE ${line}`);
    result.notes.push(line);
  };
  result.label = o.label;
  result.commit = measuredCommit(ROOT);
  for (const flag of o.agentNodeOptions) note(`agent node option: ${flag}`);
  for (const arg of o.agentArgs) note(`agent argument: ${arg}`);
  for (const [k, v] of Object.entries(o.agentEnv)) note(`agent environment: ${k}=${v}`);
  if (o.resyncIntervalS !== undefined)
    note(
      `agent --resync-interval ${o.resyncIntervalS}: polls in between resync nothing (the idle figures are of such polls)`,
    );
  const kubectl = o.skipKubectl || o.replicas !== undefined ? undefined : ensureTools(say).kubectl;
  const runtime = agentRuntime(o);

  /**
   * A fresh stack of `count` deployments, converged by a fresh agent unless `withAgent` is false,
   * then closed: the warm-up and every round after the first.
   */
  const convergeFresh = async (
    dir: string,
    count: number,
    seed: number,
    withAgent: boolean,
    log: { note: (line: string) => void; say: (line: string) => void },
  ) => {
    mkdirSync(dir, { recursive: true });
    const scratch = emptyResult(count, o.namespaces, o.pollIntervalS);
    const fresh = await startStack({
      deployments: count,
      namespaces,
      seed,
      apiKey: 'bench-key',
      workDir: dir,
    });
    try {
      if (withAgent) {
        await runConvergenceOnly({
          stack: fresh,
          settings: { ...o, deployments: count },
          runDir: dir,
          result: scratch,
          ...log,
          startAgent: (name) => startAgent(fresh, o, runtime, dir, name, log.note),
        });
      }
    } finally {
      await fresh.close();
    }
    return { convergenceS: scratch.convergence_s, rendered: fresh.rendered };
  };

  // 0. Warm-up: the sandbox and the control plane run in this process, and what is measured first
  //    would meet their code not yet optimized and their heap not yet grown (the agent's first
  //    convergence took 6.1 s where two more on fresh stacks in the same process took 4.3 and 4.4).
  //    A throwaway convergence of up to 1,000 deployments gives every measured run, the agent's and
  //    kubectl's, the same warm harness.
  if (o.skipWarmup) {
    // Without the warm-up's agent, the measured one would be the first to load changed code, and
    // carry Node's type stripper for its life (bench/lib/compile-cache.ts).
    primeCompileCache(
      path.join(ROOT, 'node_modules', '.bin', 'node'),
      path.join(ROOT, 'src', 'cli', 'run.ts'),
    );
  } else {
    const count = Math.min(o.deployments, 1_000);
    say(`warm-up: a throwaway convergence of ${count} deployments (not measured)`);
    const warmNote = (line: string) => say(`warm-up: ${line}`);
    await convergeFresh(path.join(runDir, 'warmup'), count, o.seed + 1, true, {
      note: warmNote,
      say: () => {},
    });
  }

  say(`seeding ${o.deployments} deployments over ${o.namespaces} namespaces (run directory ${runDir})`);
  const stack = await startStack({
    deployments: o.deployments,
    namespaces,
    seed: o.seed,
    apiKey: 'bench-key',
    workDir: runDir,
  });
  result.objects = stack.objects;
  say(`${stack.objects} objects expected`);
  const phases = {
    stack,
    settings: o,
    runDir,
    result,
    note,
    say,
    startAgent: (name: string) => startAgent(stack, o, runtime, runDir, name, note),
  };
  if (o.replicas !== undefined) {
    result.replicas = o.replicas;
    note(`${o.replicas} replica(s) with leader election: propagation, restarts and kubectl are skipped`);
    await runReplicaPhases(phases, o.replicas);
  } else if (!o.kubectlOnly) {
    await runAgentPhases(phases);
  }
  const rendered = stack.rendered;
  await stack.close();
  if (o.cpuProf) {
    for (const name of ['agent', 'agent-restart']) {
      const text = summarizeDir(path.join(runDir, `${name}-profile`));
      if (text) {
        writeFileSync(path.join(runDir, `${name}-profile`, 'summary.txt'), text);
        say(`CPU profile of ${name}:\n${text.split('\n').slice(0, 16).join('\n')}`);
      }
    }
  }

  // 5. The kubectl baseline, alone on the machine.
  const kubectlRound = async (workDir: string, rendered: Stack['rendered']) => {
    if (!kubectl) return null;
    const k = await runKubectlBaseline({ kubectl, rendered, namespaces, workDir, timeoutMs: o.timeoutMs });
    if (k.exitCode !== 0) note(`kubectl exited with ${k.exitCode} (see ${k.logFile})`);
    if (k.missing > 0) note(`kubectl left ${k.missing} objects unapplied`);
    return k;
  };
  if (kubectl) say(`kubectl baseline: ${result.objects} objects`);
  const k = await kubectlRound(runDir, rendered);
  if (k) {
    result.kubectl_convergence_s = round(k.seconds);
    result.kubectl_kube_reads = k.reads;
    result.kubectl_kube_writes = k.writes;
    result.kubectl_harness_cpu_s = round(k.harnessCpuS);
    if (k.sandboxWaitS !== undefined) result.kubectl_sandbox_wait_s = round(k.sandboxWaitS);
  }
  result.convergence_rounds.push(convergenceRound(result.convergence_s, k ? round(k.seconds) : null));

  // 6. Further rounds of cold convergence, agent then kubectl, each on a fresh stack.
  for (let n = 2; n <= o.rounds; n++) {
    say(`round ${n}/${o.rounds}: cold convergence of the agent, then of kubectl`);
    const dir = path.join(runDir, `round-${n}`);
    const fresh = await convergeFresh(dir, o.deployments, o.seed, !o.kubectlOnly, { note, say });
    const kn = await kubectlRound(dir, fresh.rendered);
    result.convergence_rounds.push(convergenceRound(fresh.convergenceS, kn ? round(kn.seconds) : null));
  }
  Object.assign(result, summarizeRounds(result.convergence_rounds));
  const roundsLine = roundsNote(result.convergence_rounds);
  if (roundsLine) note(roundsLine);

  result.load_average = [round(loadStart, 2), round(os.loadavg()[0] ?? 0, 2)];
  const table = formatTable(result);
  process.stdout.write(`${table}\n`);
  writeFileSync(path.join(runDir, 'result.json'), toJson(result));
  if (o.json) writeFileSync(o.json, toJson(result));
  if (o.readme) {
    const readme = path.join(ROOT, 'README.md');
    writeFileSync(readme, updateReadme(readFileSync(readme, 'utf8'), result));
  }
  return 0;
}

process.exitCode = await main();
