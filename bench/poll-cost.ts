/**
 * The agent's CPU for one poll of an unchanged listing: the reference control plane (in a worker
 * thread, as in `bench/run.ts`) seeded with N deployments, and the agent's poller listing them
 * again and again. Prints the main thread's CPU and the wall time of each poll; the first is the
 * start-up poll (every revision read), the rest are what an idle cycle pays before any reconcile.
 *
 *   node bench/poll-cost.ts --deployments 10000 [--polls 8]
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
  },
});
const deployments = Number(values.deployments);
const polls = Number(values.polls);
if (!Number.isInteger(deployments) || deployments < 1 || !Number.isInteger(polls) || polls < 2) {
  process.stderr.write('usage: node bench/poll-cost.ts --deployments N (>= 1) [--polls P (>= 2)]\n');
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
const poller = new Poller({
  client,
  listenerId: cp.listenerId,
  intervalMs: 5_000,
  logger: silentLogger(),
});
const threadCpuMs = () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};
try {
  const rows: { cpuMs: number; wallMs: number }[] = [];
  for (let i = 0; i < polls; i++) {
    const cpu0 = threadCpuMs();
    const wall0 = performance.now();
    const snapshot = await poller.pollOnce();
    rows.push({ cpuMs: threadCpuMs() - cpu0, wallMs: performance.now() - wall0 });
    if (snapshot.deployments.length !== deployments) {
      throw new Error(`the poll gave ${snapshot.deployments.length} deployments, not ${deployments}`);
    }
  }
  const [startUp, ...unchanged] = rows;
  const cpu = unchanged.map((r) => r.cpuMs);
  const fmt = (r: { cpuMs: number; wallMs: number }) => `${r.cpuMs.toFixed(0)}/${r.wallMs.toFixed(0)}`;
  process.stdout.write(
    `${deployments} deployments, main-thread CPU / wall (ms) per poll: start-up ${fmt(startUp!)}; ` +
      `unchanged ${unchanged.map(fmt).join(' ')} (CPU ${Math.min(...cpu).toFixed(0)}-${Math.max(...cpu).toFixed(0)} ms)\n`,
  );
} finally {
  await client.close();
  await cp.close();
}
