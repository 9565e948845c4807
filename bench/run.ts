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
import { waitForAllReconciled } from './lib/agent-metrics.ts';
import { refOf, waitForObjects } from './lib/convergence.ts';
import { type BenchResult, emptyResult, formatTable, round, toJson } from './lib/figures.ts';
import { runKubectlBaseline } from './lib/kubectl-baseline.ts';
import { countKube, measureIdle, measurePropagation, waitQuiet } from './lib/phases.ts';
import { summarizeDir } from './lib/profile-summary.ts';
import { updateReadme } from './lib/readme.ts';
import { type Stack, startStack } from './lib/stack.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const USAGE = `usage: npm run bench -- --deployments N [flags]
  --deployments N        deployments to seed (required)
  --namespaces N         namespaces they are spread over (default 4)
  --poll-interval S      the agent's poll interval, seconds (default 5)
  --idle-cycles N        idle poll cycles measured after convergence (default 5)
  --changes N            image changes timed for propagation (default 50)
  --timeout S            limit of each waiting phase, seconds (default 900)
  --seed N               seed of the generated deployments (default 1)
  --json FILE            also write the figures as JSON to FILE
  --readme               replace the "Benchmarks" section at the end of README.md with this run
  --skip-kubectl         skip the kubectl baseline
  --cpu-prof             run the agent with --cpu-prof (profiles in the run directory)
  --agent-node-option X  pass X to the agent's node (repeatable; for experiments, reported in notes)
`;

function parse(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      deployments: { type: 'string' },
      namespaces: { type: 'string', default: '4' },
      'poll-interval': { type: 'string', default: '5' },
      'idle-cycles': { type: 'string', default: '5' },
      changes: { type: 'string', default: '50' },
      timeout: { type: 'string', default: '900' },
      seed: { type: 'string', default: '1' },
      json: { type: 'string' },
      readme: { type: 'boolean', default: false },
      'skip-kubectl': { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      'agent-node-option': { type: 'string', multiple: true, default: [] },
      help: { type: 'boolean', default: false },
    },
  });
  const int = (name: string, v: string | undefined, min: number) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min} (got ${v})`);
    return n;
  };
  const pollIntervalS = Number(values['poll-interval']);
  if (!(pollIntervalS > 0)) throw new Error(`--poll-interval must be a positive number of seconds`);
  return {
    help: values.help,
    deployments: values.help ? 0 : int('deployments', values.deployments, 1),
    namespaces: int('namespaces', values.namespaces, 1),
    pollIntervalS,
    idleCycles: int('idle-cycles', values['idle-cycles'], 1),
    changes: int('changes', values.changes, 0),
    timeoutMs: int('timeout', values.timeout, 1) * 1000,
    seed: int('seed', values.seed, 0),
    json: values.json,
    readme: values.readme,
    skipKubectl: values['skip-kubectl'],
    cpuProf: values['cpu-prof'],
    agentNodeOptions: values['agent-node-option'],
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

async function startAgent(stack: Stack, o: Options, runDir: string, name: string) {
  const opsPort = await freePort();
  const agent = new AgentProcess({
    root: ROOT,
    logFile: path.join(runDir, `${name}.log`),
    nodeFlags: [
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
      '--ops-host',
      '127.0.0.1',
      '--ops-port',
      String(opsPort),
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
  const runDir = path.join(ROOT, 'bench', 'results', `run-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(runDir, { recursive: true });
  const namespaces = Array.from({ length: o.namespaces }, (_, i) => `bench-${i}`);
  const loadStart = os.loadavg()[0] ?? 0;
  const result: BenchResult = emptyResult(o.deployments, o.namespaces, o.pollIntervalS);
  const note = (line: string) => {
    say(`NOTE ${line}`);
    result.notes.push(line);
  };
  for (const flag of o.agentNodeOptions) note(`agent node option: ${flag}`);
  const kubectl = o.skipKubectl ? undefined : ensureTools(say).kubectl;

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
  let first: Awaited<ReturnType<typeof startAgent>> | undefined;
  let second: Awaited<ReturnType<typeof startAgent>> | undefined;
  try {
    // 1. Cold convergence.
    const cpuBefore = process.cpuUsage();
    first = await startAgent(stack, o, runDir, 'agent');
    const { agent, opsUrl } = first;
    let lastReport = 0;
    const done = await waitForObjects(
      stack.kubeApi,
      stack.rendered.map((d) => d.objects.map(refOf)),
      {
        timeoutMs: o.timeoutMs,
        giveUp: () => !agent.running,
        onProgress: (missing) => {
          if (performance.now() - lastReport > 5_000) {
            lastReport = performance.now();
            say(
              `converging: ${stack.objects - missing}/${stack.objects} objects${agent.running ? '' : ' (agent exited!)'}`,
            );
          }
        },
      },
    );
    const cpu = process.cpuUsage(cpuBefore);
    if (done === null) {
      const why = agent.running ? `did not converge within ${o.timeoutMs / 1000} s` : 'exited';
      throw new Error(`the agent ${why} (see ${runDir}/agent.log)`);
    }
    result.convergence_s = round((done - agent.startedAt) / 1000);
    result.convergence_agent_cpu_s = round(agent.cpuSeconds());
    result.convergence_harness_cpu_s = round((cpu.user + cpu.system) / 1e6);
    const coldKube = countKube(stack.kubeApi);
    result.convergence_kube_reads = coldKube.reads;
    result.convergence_kube_writes = coldKube.writes;
    result.convergence_controlplane_requests = stack.controlPlane.stats().requests;
    say(`converged in ${result.convergence_s} s`);

    // 2. Idle cycles.
    const quietMs = Math.min(o.timeoutMs, Math.max(60_000, o.pollIntervalS * 12_000));
    const busy = await waitQuiet(opsUrl, quietMs);
    if (busy) {
      note(
        `the agent's queue did not drain within ${quietMs / 1000} s after convergence (queue ${busy.queueDepth}, ` +
          `in flight ${busy.inFlight}): idle cycles measured while it works through it`,
      );
    }
    const idle = await measureIdle(stack.kubeApi, stack.controlPlane, opsUrl, o.idleCycles, o.pollIntervalS);
    if (idle.boundaries === 'time')
      note('idle cycles bounded by time: the agent exports no mooring_polls_total');
    result.idle_cycles = idle.cycles;
    result.idle_kube_writes = idle.kube.writes;
    if (idle.kube.writes > 0) note(`idle writes: ${JSON.stringify(idle.kube.writesByTarget)}`);
    result.idle_kube_reads_per_cycle = round(idle.kube.reads / idle.cycles);
    result.idle_controlplane_requests_per_cycle = round(idle.controlPlaneRequests / idle.cycles);
    result.idle_controlplane_list_requests_per_cycle = round(
      (idle.byRoute['GET /v2/deployments'] ?? 0) / idle.cycles,
    );
    result.idle_controlplane_by_route_per_cycle = Object.fromEntries(
      Object.entries(idle.byRoute).map(([k, v]) => [k, round(v / idle.cycles)]),
    );
    say(
      `idle: ${JSON.stringify(result.idle_controlplane_by_route_per_cycle)}, kube writes ${idle.kube.writes}`,
    );

    // 3. Propagation.
    if (o.changes > 0) {
      const images = new Map(stack.deployments.map((d) => [d.id, d.source_revision_config.image_uri ?? '']));
      const p = await measurePropagation({
        api: stack.kubeApi,
        cp: stack.controlPlane,
        apiKey: 'bench-key',
        rendered: stack.rendered,
        images,
        changes: o.changes,
        spreadS: o.pollIntervalS * 5,
        timeoutMs: (o.pollIntervalS * 3 + 60) * 1000,
        seed: o.seed,
      });
      result.propagation_changes = p.latenciesMs.length;
      result.propagation_p50_ms = p.p50;
      result.propagation_p99_ms = p.p99;
      result.propagation_max_ms = p.max;
      if (p.timedOut > 0) note(`${p.timedOut} image changes never reached the cluster`);
      say(`propagation p50 ${p.p50} ms, p99 ${p.p99} ms`);
    }
    await waitQuiet(opsUrl, quietMs);
    result.peak_rss_mib = round(agent.peakRssMib, 1);
    result.agent_cpu_s = round(agent.cpuSeconds());
    const code = await agent.stop();
    if (code !== 0) note(`the agent exited with ${code} on SIGTERM`);

    // 4. Restart on the converged cluster.
    stack.kubeApi.clearRequests();
    stack.controlPlane.resetStats();
    second = await startAgent(stack, o, runDir, 'agent-restart');
    const settled = await waitForAllReconciled(second.opsUrl, o.deployments, o.timeoutMs);
    if (!settled) note('the restarted agent did not report every deployment reconciled in time');
    else result.restart_settled_s = round((performance.now() - second.agent.startedAt) / 1000);
    const restart = countKube(stack.kubeApi);
    result.restart_kube_writes = restart.writes;
    result.restart_kube_reads = restart.reads;
    result.restart_controlplane_requests = stack.controlPlane.stats().requests;
    if (restart.writes > 0) note(`restart writes: ${JSON.stringify(restart.writesByTarget)}`);
    result.restart_peak_rss_mib = round(second.agent.peakRssMib, 1);
    await second.agent.stop();
    say(`restart: ${restart.writes} writes, ${restart.reads} reads`);
  } catch (err) {
    note(`run stopped: ${(err as Error).message}`);
  } finally {
    await first?.agent.stop();
    await second?.agent.stop();
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
  if (kubectl) {
    say(`kubectl baseline: ${result.objects} objects`);
    const k = await runKubectlBaseline({
      kubectl,
      rendered,
      namespaces,
      workDir: runDir,
      timeoutMs: o.timeoutMs,
    });
    if (k.exitCode !== 0) note(`kubectl exited with ${k.exitCode} (see ${k.logFile})`);
    if (k.missing > 0) note(`kubectl left ${k.missing} objects unapplied`);
    result.kubectl_convergence_s = round(k.seconds);
    result.kubectl_kube_reads = k.reads;
    result.kubectl_kube_writes = k.writes;
    result.kubectl_harness_cpu_s = round(k.harnessCpuS);
    if (result.convergence_s !== null) result.convergence_ratio = round(result.convergence_s / k.seconds, 3);
  }

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
