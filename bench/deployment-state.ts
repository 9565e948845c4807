/**
 * What the agent keeps per deployment between polls, alone: `node --expose-gc
 * bench/deployment-state.ts [--deployments N]`. N deployments (one secret each) are taken from a
 * snapshot, reconciled once (a converged pass each) and reported, as the runner would; the heap
 * after a full collection, less the heap holding the same desired states alone (measured in the
 * same run, before), divided by N is the figure: the records, status entries and redactor values
 * (docs/state.md). The runner's own maps are not in it (a runner that only counts is used).
 */
import { parseArgs } from 'node:util';
import { Deployments } from '../src/agent/deployments.ts';
import type { DesiredDeployment } from '../src/agent/poll-cycle.ts';
import type { Runner } from '../src/agent/runner.ts';
import { StatusStore } from '../src/agent/status.ts';
import type { DeploymentRecord } from '../src/contract/index.ts';
import { silentLogger } from '../src/log.ts';
import { createMetrics } from '../src/ops/metrics.ts';
import type { ReconcileResult } from '../src/reconcile/result.ts';
import { Redactor } from '../src/redact.ts';

const USAGE = 'usage: node --expose-gc bench/deployment-state.ts [--deployments N]\n';
const gc = (globalThis as { gc?: () => void }).gc;
let n: number;
try {
  n = Number(parseArgs({ options: { deployments: { type: 'string', default: '1000' } } }).values.deployments);
} catch (err) {
  process.stderr.write(`bench/deployment-state: ${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (!gc || !Number.isInteger(n) || n < 1) {
  process.stderr.write(`bench/deployment-state: needs --expose-gc and a whole --deployments >= 1\n${USAGE}`);
  process.exit(2);
}

const heapAfterGc = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const desired: DesiredDeployment[] = Array.from({ length: n }, (_, i) => ({
  deployment: {
    id: `dep-${i}`,
    name: `dep-${i}`,
    status: 'READY',
    source_config: { listener_config: { k8s_namespace: 'apps' } },
    latest_revision_id: null,
    secrets: [{ name: 'S', value: `secret-value-${i}` }],
  } as unknown as DeploymentRecord,
  revision: undefined,
  hash: `${i}`.padStart(64, '0'),
}));
const entries = [{ id: 'Secret/apps/a', apiVersion: 'v1', kind: 'Secret', name: 'a', action: 'unchanged' }];
const runner = { depth: 0, enqueue() {}, forget() {}, resync() {}, whenIdle: () => Promise.resolve() };
const signal = new AbortController().signal;

const baseline = heapAfterGc();
const redactor = new Redactor();
const deployments = new Deployments({
  status: new StatusStore({ scrubber: redactor }),
  redactor,
  logger: silentLogger(),
  metrics: createMetrics({ version: 'bench' }),
  clock: { now: () => 0, setTimeout: () => 0 as never, clearTimeout() {} },
  reconcile: async (input) =>
    ({
      changeSet: { entries, dryRun: false },
      health: { state: 'Ready', reason: 'ready' },
      converged: { key: input.hash, objects: 3, claimPrefixes: [] },
    }) as unknown as ReconcileResult,
  collectOrphans: async () => ({}),
});
await deployments.applySnapshot(
  { deployments: desired, rejected: [], atMs: 0 },
  runner as unknown as Runner,
  signal,
);
for (const d of desired) {
  await deployments.reconcile(d.deployment.id, signal);
  deployments.report({
    key: d.deployment.id,
    desiredHash: d.hash,
    durationMs: 1,
    result: { kind: 'success', requeueAfterMs: undefined },
  });
}
const held = heapAfterGc() - baseline;
process.stdout.write(`${JSON.stringify({ deployments: n, bytesPerDeployment: Math.round(held / n) })}\n`);
// Keeps what is measured alive until the figure is taken.
if (deployments.desiredOf('none') !== undefined) process.stdout.write('\n');
