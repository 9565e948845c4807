/** One call forgets a deployment everywhere the agent keeps something of it (DeploymentBook.forget). */
import { describe, expect, it } from 'vitest';
import type { HeapReading } from '../../src/agent/heap-reading.ts';
import { MemoryBudget } from '../../src/agent/memory-budget.ts';
import type { DesiredDeployment } from '../../src/agent/poll-cycle.ts';
import { Runner } from '../../src/agent/runner.ts';
import { StatusStore } from '../../src/agent/status.ts';
import { silentLogger } from '../../src/log.ts';
import type { ReconcileResult } from '../../src/reconcile/result.ts';
import { Redactor } from '../../src/redact.ts';
import { deploymentsWith, desired, READY, snapshot } from './deployments-fixtures.ts';

const withSecret = (id: string, value: string): DesiredDeployment => {
  const d = desired(id, '1');
  (d.deployment as { secrets: unknown }).secrets = [{ name: 'S', value }];
  return d;
};

describe('DeploymentBook.forget: a deployment that left the listing', () => {
  it('leaves nothing keyed by its id in the book, runner, status, redactor or memory budget, even with a run in flight that fails', async () => {
    const heap: HeapReading = { liveBytes: 10 * 2 ** 20, limitBytes: 100 * 2 ** 20 };
    const memory = new MemoryBudget({ read: () => heap, logger: silentLogger() });
    const redactor = new Redactor();
    const status = new StatusStore({ scrubber: redactor });
    let fail: (err: Error) => void = () => {};
    const deployments = deploymentsWith({
      status,
      redactor,
      memory,
      reconcile: (input) =>
        input.deployment.id === 'going'
          ? new Promise<ReconcileResult>((_, reject) => {
              fail = reject;
            })
          : Promise.resolve(READY),
    });
    const runner = new Runner({
      reconcile: (key, signal) => deployments.reconcile(key, signal),
      onReport: (r) => deployments.report(r),
      random: () => 0.5,
    });
    runner.start();
    const signal = new AbortController().signal;
    await deployments.applySnapshot(
      snapshot([withSecret('going', 'secret-of-going'), withSecret('staying', 'secret-of-staying')]),
      runner,
      signal,
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(runner.inFlight).toBe(1); // `going` is still at work
    await deployments.applySnapshot(snapshot([withSecret('staying', 'secret-of-staying')]), runner, signal);
    fail(new Error('apply failed: connection reset')); // retryable
    await runner.settled();
    await runner.stop(0);
    expect(deployments.holds('going')).toBe(false);
    expect(runner.holds('going')).toBe(false);
    expect(status.get('going')).toBeUndefined();
    expect(redactor.scrub('secret-of-going')).toBe('secret-of-going');
    expect(memory.verdict().deferred).toBe(0);
    // What stays is untouched.
    expect(deployments.holds('staying')).toBe(true);
    expect(redactor.scrub('secret-of-staying')).not.toBe('secret-of-staying');
  });
});
