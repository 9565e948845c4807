/**
 * The agent's CPU for one poll of an unchanged listing: the reference control plane (in a worker
 * thread, as in `bench/run.ts`) seeded with N deployments, and the agent's poller listing them
 * again and again. Prints the main thread's CPU and the wall time of each poll, and the control
 * plane thread's own CPU for it (its thread clock, read in the worker); the first is the start-up
 * poll (every revision read), the rest are what an idle cycle pays before any reconcile.
 * With `--changes K`, K more polls follow, each after one deployment's image was changed through
 * the control plane's API (a deployment drawn evenly over the listing): it prints when the poller
 * handed that deployment on, and when the listing was complete, in ms from the poll's start.
 *
 *   node bench/poll-cost.ts --deployments 10000 [--polls 8] [--changes 10]
 */
import { parseArgs } from 'node:util';
import { Poller } from '../src/agent/poller.ts';
import { ControlPlaneClient } from '../src/control-plane/client.ts';
import { silentLogger } from '../src/log.ts';
import { startControlPlaneThread } from './lib/control-plane-thread.ts';

const { values } = parseArgs({
  options: {
    deployments: { type: 'string', default: '1000' },
    polls: { type: 'string', default: '8' },
    changes: { type: 'string', default: '0' },
  },
});
const deployments = Number(values.deployments);
const polls = Number(values.polls);
const changes = Number(values.changes);
if (
  !Number.isInteger(deployments) ||
  deployments < 1 ||
  !Number.isInteger(polls) ||
  polls < 2 ||
  !Number.isInteger(changes) ||
  changes < 0
) {
  process.stderr.write(
    'usage: node bench/poll-cost.ts --deployments N (>= 1) [--polls P (>= 2)] [--changes K (>= 0)]\n',
  );
  process.exit(2);
}

const apiKey = `bench-${'k'.repeat(32)}`;
const cp = await startControlPlaneThread({
  apiKey,
  namespaces: ['bench-0', 'bench-1', 'bench-2', 'bench-3'],
  listenerId: crypto.randomUUID(),
  computeId: 'bench-cluster',
  listenerVersion: '0.0.0',
  deployments,
  seed: 1,
});
const client = new ControlPlaneClient({ baseUrl: cp.url, apiKey });
/** The deployment changed before the poll under way, and when the poller handed it on / listed all. */
const watch: { id?: string; handedAtMs?: number; listedAtMs?: number } = {};
const poller = new Poller({
  client,
  listenerId: cp.listenerId,
  intervalMs: 5_000,
  logger: silentLogger(),
  onListed: () => {
    watch.listedAtMs ??= performance.now();
  },
  onCycle: async (cycle) => {
    for await (const d of cycle.desired) {
      if (d.deployment.id === watch.id) watch.handedAtMs ??= performance.now();
    }
  },
});
const threadCpuMs = () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};
try {
  const rows: { cpuMs: number; wallMs: number; cpCpuMs: number }[] = [];
  for (let i = 0; i < polls; i++) {
    const cp0 = await cp.cpuMs();
    const cpu0 = threadCpuMs();
    const wall0 = performance.now();
    const snapshot = await poller.pollOnce();
    const cpuMs = threadCpuMs() - cpu0;
    const wallMs = performance.now() - wall0;
    rows.push({ cpuMs, wallMs, cpCpuMs: (await cp.cpuMs()) - cp0 });
    if (snapshot.deployments.length !== deployments) {
      throw new Error(`the poll gave ${snapshot.deployments.length} deployments, not ${deployments}`);
    }
  }
  const timings: { handedMs: number; listedMs: number }[] = [];
  const ids = (await client.listAllDeployments({ remote_reconciled: true })).items.map((d) => d.id);
  for (let i = 0; i < changes; i++) {
    // Evenly over the listing, the first change on its first page, the last near its end.
    const id = ids[Math.floor(((i + 0.5) * ids.length) / changes)] as string;
    const res = await fetch(`${cp.url}/v2/deployments/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ source_revision_config: { image_uri: `registry.example/bench:change-${i}` } }),
    });
    if (res.status !== 200) throw new Error(`PATCH deployment ${id}: HTTP ${res.status}`);
    Object.assign(watch, { id, handedAtMs: undefined, listedAtMs: undefined });
    const t0 = performance.now();
    await poller.pollOnce();
    if (watch.handedAtMs === undefined || watch.listedAtMs === undefined) {
      throw new Error(`the changed deployment ${id} was not handed on`);
    }
    timings.push({ handedMs: watch.handedAtMs - t0, listedMs: watch.listedAtMs - t0 });
  }
  const [startUp, ...unchanged] = rows;
  const cpu = unchanged.map((r) => r.cpuMs);
  const fmt = (r: { cpuMs: number; wallMs: number }) => `${r.cpuMs.toFixed(0)}/${r.wallMs.toFixed(0)}`;
  process.stdout.write(
    `${deployments} deployments, main-thread CPU / wall (ms) per poll: start-up ${fmt(startUp!)}; ` +
      `unchanged ${unchanged.map(fmt).join(' ')} (CPU ${Math.min(...cpu).toFixed(0)}-${Math.max(...cpu).toFixed(0)} ms)\n`,
  );
  const cpCpu = unchanged.map((r) => r.cpCpuMs);
  process.stdout.write(
    `control-plane thread CPU (ms) per poll: start-up ${startUp!.cpCpuMs.toFixed(0)}; ` +
      `unchanged ${cpCpu.map((c) => c.toFixed(0)).join(' ')} ` +
      `(${Math.min(...cpCpu).toFixed(0)}-${Math.max(...cpCpu).toFixed(0)} ms)\n`,
  );
  if (timings.length > 0) {
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    const handed = timings.map((t) => t.handedMs);
    const listed = timings.map((t) => t.listedMs);
    process.stdout.write(
      `changed deployment handed on / listing complete (ms from the poll's start): ` +
        `${timings.map((t) => `${t.handedMs.toFixed(0)}/${t.listedMs.toFixed(0)}`).join(' ')}; ` +
        `medians ${median(handed).toFixed(0)} / ${median(listed).toFixed(0)}\n`,
    );
  }
} finally {
  await client.close();
  await cp.close();
}
