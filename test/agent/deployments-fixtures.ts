/** What the Deployments suites share: a deployment's desired state, a recording runner, defaults. */
import { Deployments, type DeploymentsDeps } from '../../src/agent/deployments.ts';
import type { DesiredDeployment, Snapshot } from '../../src/agent/poll-cycle.ts';
import type { Runner } from '../../src/agent/runner.ts';
import { StatusStore } from '../../src/agent/status.ts';
import type { DeploymentRecord } from '../../src/contract/index.ts';
import { silentLogger } from '../../src/log.ts';
import { createMetrics } from '../../src/ops/metrics.ts';
import type { ReconcileResult } from '../../src/reconcile/result.ts';
import { FakeClock } from './fake-clock.ts';

/** A reconcile that found everything Ready and changed nothing. */
export const READY = {
  changeSet: { entries: [], dryRun: false },
  health: { state: 'Ready', reason: 'ready' },
} as unknown as ReconcileResult;

/** Deployment `id` (namespace `apps`) whose desired state hashes to `hash`. */
export function desired(id: string, hash: string): DesiredDeployment {
  return {
    deployment: {
      id,
      name: id,
      status: 'READY',
      source_config: { listener_config: { k8s_namespace: 'apps' } },
      latest_revision_id: null,
    } as unknown as DeploymentRecord,
    revision: undefined,
    hash,
  };
}

/** A runner that only records what is queued; `depth` is what the test says is still waiting. */
export function fakeRunner() {
  const queued: string[] = [];
  const runner = {
    depth: 0,
    /** Resyncs begun (`Runner.resync`: what was parked until one is let go). */
    resyncs: 0,
    enqueue: (key: string) => queued.push(key),
    forget: () => {},
    resync: () => {
      runner.resyncs += 1;
    },
    whenIdle: () => Promise.resolve(),
  };
  return { runner, queued, asRunner: runner as unknown as Runner };
}

/** Deployments with silent, fresh defaults (every reconcile Ready), and `deps` on top. */
export function deploymentsWith(deps: Partial<DeploymentsDeps> = {}): Deployments {
  return new Deployments({
    status: new StatusStore(),
    logger: silentLogger(),
    metrics: createMetrics({ version: 'test' }),
    clock: new FakeClock(),
    reconcile: async () => READY,
    collectOrphans: async () => ({}),
    ...deps,
  });
}

/** A complete snapshot of `ds`. */
export const snapshot = (ds: DesiredDeployment[]): Snapshot => ({ deployments: ds, rejected: [], atMs: 0 });
