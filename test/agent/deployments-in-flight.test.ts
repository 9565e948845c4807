/**
 * A reconcile runs while the next poll changes what the agent knows of its deployment: the run's
 * outcome must not overwrite a newer decision (a refusal), nor bring back a deployment forgotten
 * meanwhile.
 */
import { describe, expect, it } from 'vitest';
import type { HeapReading } from '../../src/agent/heap-reading.ts';
import { MemoryBudget } from '../../src/agent/memory-budget.ts';
import type { DesiredDeployment } from '../../src/agent/poll-cycle.ts';
import type { RunResult } from '../../src/agent/runner.ts';
import { StatusStore } from '../../src/agent/status.ts';
import { MooringError } from '../../src/errors.ts';
import { silentLogger } from '../../src/log.ts';
import type { ReconcileResult } from '../../src/reconcile/result.ts';
import { deploymentsWith, desired, fakeRunner, READY, snapshot } from './deployments-fixtures.ts';

const signal = new AbortController().signal;

function refused(id: string, hash: string): DesiredDeployment {
  return { ...desired(id, hash), refused: { code: 'MOORING_E_NAME_COLLISION', message: 'name taken' } };
}
const REFUSAL = 'MOORING_E_NAME_COLLISION: name taken';

/** Deployments whose reconciles wait until the test lets each go (`finish`). */
function heldRuns() {
  const status = new StatusStore();
  const events: string[] = [];
  const pending: ((r: ReconcileResult) => void)[] = [];
  const deployments = deploymentsWith({
    status,
    reconcile: () => new Promise((resolve) => pending.push(resolve)),
    onRefused: (d) => events.push(d.deployment.id),
  });
  const { asRunner, queued } = fakeRunner();
  /** Starts a run of `id` and returns what finishes it, as the runner would: the run, then its report. */
  const start = (id: string, hash: string) => {
    const run = deployments.reconcile(id, signal);
    return async (result: RunResult = { kind: 'success', requeueAfterMs: undefined }) => {
      await new Promise((resolve) => setImmediate(resolve));
      pending.shift()?.(READY);
      await run;
      deployments.report({ key: id, desiredHash: hash, durationMs: 1, result });
    };
  };
  return { deployments, status, events, asRunner, queued, start };
}

describe('Deployments: a run in flight when its deployment is refused', () => {
  const retry: RunResult = {
    kind: 'retry',
    error: new MooringError('MOORING_E_KUBE_CONFLICT', 'conflict'),
    attempt: 1,
    delayMs: 1000,
  };

  for (const [outcome, result] of [
    ['succeeds', { kind: 'success', requeueAfterMs: undefined }],
    ['fails, to be retried', retry],
  ] as [string, RunResult][]) {
    it(`keeps the newer Refused when the run ${outcome}, and records no second refusal Event`, async () => {
      const { deployments, status, events, asRunner, start } = heldRuns();
      await deployments.applySnapshot(snapshot([desired('a', '1')]), asRunner, signal);
      const finish = start('a', '1');
      await deployments.applySnapshot(snapshot([refused('a', '1')]), asRunner, signal);
      expect(status.get('a')).toMatchObject({ state: 'Refused', reason: REFUSAL });
      await finish(result);
      expect(status.get('a')).toMatchObject({ state: 'Refused', reason: REFUSAL });
      await deployments.applySnapshot(snapshot([refused('a', '1')]), asRunner, signal);
      expect(events).toEqual(['a']);
    });
  }
});

describe('Deployments: a run in flight when its deployment is forgotten', () => {
  it('leaves nothing of it, and the same id listed again starts afresh: Pending, and queued', async () => {
    const { deployments, status, asRunner, queued, start } = heldRuns();
    await deployments.applySnapshot(snapshot([desired('a', '1')]), asRunner, signal);
    const finish = start('a', '1');
    await deployments.applySnapshot(snapshot([]), asRunner, signal);
    // Listed again before the run ended: the new record owes nothing to the run on the old one.
    await deployments.applySnapshot(snapshot([desired('a', '1')]), asRunner, signal);
    await finish();
    expect(status.get('a')?.state).toBe('Pending');
    queued.length = 0;
    const runner = asRunner as unknown as { depth: number };
    runner.depth = 1; // work still queued: this poll queues only what is not reconciled
    await deployments.applySnapshot(snapshot([desired('a', '1')]), asRunner, signal);
    expect(queued).toEqual(['a']);
  });

  it('a deployment waiting for memory that leaves the listing no longer counts as waiting', async () => {
    const heap: HeapReading = { liveBytes: 95, limitBytes: 100 };
    const memory = new MemoryBudget({ read: () => heap, logger: silentLogger() });
    const deployments = deploymentsWith({ memory });
    const { asRunner } = fakeRunner();
    await deployments.applySnapshot(snapshot([desired('new', '1')]), asRunner, signal);
    await deployments.reconcile('new', signal);
    expect(memory.verdict().deferred).toBe(1);
    await deployments.applySnapshot(snapshot([]), asRunner, signal);
    expect(memory.verdict().deferred).toBe(0);
  });
});
