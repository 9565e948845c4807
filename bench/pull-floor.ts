/**
 * The floor of a pull agent: what any agent of this interface must do to converge, done by a
 * client that does nothing else, on the bench's own stack (the reference control plane on a worker
 * thread and the sandbox on the main thread of this process, as `bench/run.ts` runs them).
 *
 * `bench/ratio-floor.ts`'s bare client only sends objects prepared beforehand, with no control
 * plane running. A pull agent must also, on the same two cores: list its deployments from the
 * control plane, read each one's revision, render and serialize its objects, and list the control
 * plane again every poll interval while it converges (changes must reach the cluster within a
 * poll interval and a second). This client does exactly that and no more, with the agent's own
 * clients and its memo of listing pages (an unchanged page is not parsed again): no registration,
 * no status reports, no Events, no ownership checks, no apply memo, no logs, V8's default flags. Its
 * seconds run from when its modules are loaded to its last answer, as the bare client's do, and a
 * round counts only if the sandbox then holds every object the agent's run waits for.
 *
 *   node bench/pull-floor.ts --deployments 1000 [--rounds 2] [--poll-interval 5] [--json FILE]
 *     [--client-node-option=--cpu-prof ...]   (Node flags for the measured client, e.g. the image's)
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { describeMachine, median, round, roundOrNull } from './lib/figures.ts';
import { peakRssMib } from './lib/peak-rss.ts';
import { refOf, waitForObjects } from './lib/convergence.ts';
import { startStack } from './lib/stack.ts';

const NAMESPACES = ['bench-0', 'bench-1', 'bench-2', 'bench-3'];
const SELF = fileURLToPath(import.meta.url);
/** Revision reads in flight at once, ahead of the applies. */
const READ_AHEAD = 16;

interface PullResult {
  seconds: number;
  cpuS: number;
  applies: number;
  /** Complete listings of the control plane, the first included. */
  listings: number;
  revisionReads: number;
  peakRssMib: number | null;
}

interface ChildArgs {
  baseUrl: string;
  apiKey: string;
  listenerId: string;
  kubeconfig: string;
  pollMs: number;
}

/** The child: the pull agent's necessary work, 8 deployments at a time (the agent's default). */
async function pullClient(a: ChildArgs): Promise<void> {
  const { default: pMap, pMapIterable } = await import('p-map');
  const { ControlPlaneClient } = await import('../src/control-plane/client.ts');
  const { ListingPages } = await import('../src/agent/listing-pages.ts');
  const { loadClusterAccess } = await import('../src/kube/kubeconfig.ts');
  const { KubeHttp } = await import('../src/kube/http.ts');
  const { ObjectClient } = await import('../src/kube/object-client.ts');
  const { prepareForApply } = await import('../src/kube/desired-hash.ts');
  const { sortForApply } = await import('../src/objects/kinds.ts');
  const { defaultRenderSettings, renderDeployment } = await import('../src/render/index.ts');
  const cp = new ControlPlaneClient({ baseUrl: a.baseUrl, apiKey: a.apiKey });
  const http = new KubeHttp(loadClusterAccess(a.kubeconfig, process.env));
  const objects = new ObjectClient(http);
  const settings = defaultRenderSettings(a.listenerId);
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  const out = { applies: 0, listings: 0, revisionReads: 0 };
  // The agent's memo of listing pages: a page unchanged since the last listing is not parsed.
  const pages = new ListingPages();
  const listAll = async () => {
    const listing = await cp.listAllDeployments({ remote_reconciled: true }, { memo: pages });
    out.listings++;
    const mine = listing.items.filter((d) => d.source_config?.listener_id === a.listenerId);
    pages.settle(new Map(mine.map((d) => [d.id, d])));
    return mine;
  };
  // Polls while converging, one at a time, as an agent that meets the propagation target must.
  let polling: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    polling ??= listAll().finally(() => {
      polling = undefined;
    });
  }, a.pollMs);
  try {
    // Revisions are read ahead of the applies, unordered, so a read's round trip to the control
    // plane never leaves an apply slot waiting.
    const withRevisions = pMapIterable(
      await listAll(),
      async (deployment) => {
        const revisionId = deployment.latest_revision_id ?? deployment.active_revision_id;
        if (!revisionId) return { deployment, revision: undefined };
        out.revisionReads++;
        return { deployment, revision: await cp.getRevision(deployment.id, revisionId) };
      },
      { concurrency: READ_AHEAD, backpressure: 4 * READ_AHEAD, preserveOrder: false },
    );
    await pMap(
      withRevisions,
      async ({ deployment, revision }) => {
        const rendered = renderDeployment({ deployment, revision, settings });
        for (const o of sortForApply(rendered.objects)) {
          const { object, body } = prepareForApply(o);
          await objects.apply(object, { fieldManager: 'mooring', force: true, metadataOnly: true }, body);
          out.applies++;
        }
      },
      { concurrency: 8 },
    );
  } finally {
    clearInterval(timer);
  }
  const cpu = process.cpuUsage(cpu0);
  const result: PullResult = {
    seconds: (performance.now() - started) / 1000,
    cpuS: (cpu.user + cpu.system) / 1e6,
    ...out,
    peakRssMib: peakRssMib(),
  };
  await polling;
  process.stdout.write(JSON.stringify(result));
  await http.close();
  await cp.close();
}

/** One round on a fresh stack; the harness's CPU (sandbox and control plane) is this process's. */
async function pullRound(deployments: number, seed: number, pollMs: number, nodeOptions: string[]) {
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'mooring-pull-floor-'));
  const stack = await startStack({
    deployments,
    namespaces: NAMESPACES,
    seed,
    apiKey: `bench-${'k'.repeat(32)}`,
    workDir,
  });
  try {
    const args: ChildArgs = {
      baseUrl: stack.controlPlane.url,
      apiKey: stack.apiKey,
      listenerId: stack.listenerId,
      kubeconfig: stack.kubeconfigPath,
      pollMs,
    };
    const cpu0 = process.cpuUsage();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [...nodeOptions, SELF, '--child', JSON.stringify(args)],
      {
        maxBuffer: 1 << 20,
      },
    );
    const cpu = process.cpuUsage(cpu0);
    const child = JSON.parse(stdout) as PullResult;
    // The floor counts only if the cluster holds every object the agent's run waits for.
    const done = await waitForObjects(
      stack.kubeApi,
      stack.rendered.map((d) => d.objects.map(refOf)),
      { timeoutMs: 10_000 },
    );
    if (done === null) throw new Error('the pull client ended with objects missing');
    return { objects: stack.objects, child, harnessCpuS: (cpu.user + cpu.system) / 1e6 };
  } finally {
    await stack.close();
    rmSync(workDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      deployments: { type: 'string', default: '1000' },
      rounds: { type: 'string', default: '2' },
      'poll-interval': { type: 'string', default: '5' },
      seed: { type: 'string', default: '1' },
      json: { type: 'string' },
      'client-node-option': { type: 'string', multiple: true, default: [] },
    },
  });
  const deployments = Number(values.deployments);
  const rounds = Number(values.rounds);
  const pollS = Number(values['poll-interval']);
  if (![deployments, rounds].every((n) => Number.isInteger(n) && n >= 1) || !(pollS > 0)) {
    process.stderr.write(
      'usage: node bench/pull-floor.ts --deployments N (>= 1) [--rounds R (>= 1)] [--poll-interval S (> 0)] [--json FILE]\n',
    );
    process.exit(2);
  }
  const say = (line: string) => process.stderr.write(`[pull-floor] ${line}\n`);
  // As in bench/run.ts: the sandbox and the control plane run in this process, and a throwaway
  // round lets every measured one meet their code optimized and their heap grown.
  const warm = Math.min(deployments, 1_000);
  say(`warm-up: a throwaway round of ${warm} deployments (not measured)`);
  await pullRound(warm, Number(values.seed) + 1, pollS * 1000, []);
  const rows = [];
  let objects = 0;
  for (let r = 0; r < rounds; r++) {
    const got = await pullRound(deployments, Number(values.seed), pollS * 1000, values['client-node-option']);
    objects = got.objects;
    const { child } = got;
    const row = {
      pull_s: round(child.seconds, 3),
      pull_cpu_s: round(child.cpuS),
      pull_harness_cpu_s: round(got.harnessCpuS),
      pull_applies: child.applies,
      pull_listings: child.listings,
      pull_revision_reads: child.revisionReads,
      pull_peak_rss_mib: child.peakRssMib === null ? null : round(child.peakRssMib),
    };
    rows.push(row);
    say(
      `round ${r + 1}: ${row.pull_s} s (its CPU ${row.pull_cpu_s} s; sandbox and control plane ${row.pull_harness_cpu_s} s; ${row.pull_listings} listings, ${row.pull_revision_reads} revision reads, ${row.pull_applies} applies)`,
    );
  }
  const result = {
    deployments,
    objects,
    poll_interval_s: pollS,
    client_node_options: values['client-node-option'],
    rounds: rows,
    pull_s_median: roundOrNull(median(rows.map((r) => r.pull_s)), 3),
    machine: describeMachine(),
    load_average: os.loadavg(),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify(result, null, 2)}\n`);
}

if (process.argv[2] === '--child') await pullClient(JSON.parse(process.argv[3] ?? '{}') as ChildArgs);
else {
  await main();
  process.exit(0);
}
