import { describe, expect, it } from 'vitest';
import type { Deployments, DeploymentsDeps } from '../../src/agent/deployments.ts';
import type { HeapReading } from '../../src/agent/heap-reading.ts';
import { MemoryBudget } from '../../src/agent/memory-budget.ts';
import { openPollCycle } from '../../src/agent/poll-cycle.ts';
import type { DesiredDeployment, Snapshot } from '../../src/agent/poller.ts';
import type { Runner } from '../../src/agent/runner.ts';
import { StatusStore } from '../../src/agent/status.ts';
import { MooringError } from '../../src/errors.ts';
import { createLogger, silentLogger } from '../../src/log.ts';
import { createMetrics } from '../../src/ops/metrics.ts';
import type { ReconcileResult } from '../../src/reconcile/result.ts';
import { REDACTED, Redactor } from '../../src/redact.ts';
import { FakeClock } from './fake-clock.ts';
import { deploymentsWith, desired, fakeRunner, READY, snapshot } from './deployments-fixtures.ts';

function setup(result: ReconcileResult = READY, resyncIntervalMs = 0, clock = new FakeClock()) {
  const cycles: string[] = [];
  const deployments = deploymentsWith({
    clock,
    resyncIntervalMs,
    reconcile: async () => result,
    collectOrphans: async () => {
      cycles.push('orphans');
      return {};
    },
    beginCycle: () => cycles.push('listing'),
  });
  return { deployments, cycles };
}

/** A poll whose listing is complete, handed to `deployments`; the test then feeds it as the poller would. */
function pollOf(deployments: Deployments, runner: Runner, signal = new AbortController().signal) {
  const writer = openPollCycle();
  const taken = deployments.takeCycle(writer.cycle, runner, signal);
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    ready: async (d: DesiredDeployment) => {
      writer.ready(d);
      await settle();
    },
    complete: async (s: Snapshot) => {
      writer.complete(s);
      await taken;
    },
    fail: async (err: unknown) => {
      writer.fail(err);
      await taken;
    },
  };
}

describe('Deployments.applySnapshot', () => {
  it('every poll is a resync while the queue is empty: all queued, one listing, one orphan pass', async () => {
    const { deployments, cycles } = setup();
    const { runner, queued, asRunner } = fakeRunner();
    const signal = new AbortController().signal;
    await deployments.applySnapshot(snapshot([desired('a', '1'), desired('b', '1')]), asRunner, signal);
    for (const id of ['a', 'b']) await deployments.reconcile(id, signal);
    queued.length = 0;
    runner.depth = 0;
    await deployments.applySnapshot(snapshot([desired('a', '1'), desired('b', '1')]), asRunner, signal);
    expect(queued).toEqual(['a', 'b']);
    expect(cycles).toEqual(['listing', 'orphans', 'listing', 'orphans']);
    // Each resync lets go what was parked until one (a refusal the cluster must resolve).
    expect(runner.resyncs).toBe(2);
  });

  it('a resync leaves alone a Ready deployment the watches call quiet, and queues the rest (ADR 0014)', async () => {
    const quiet = new Set(['a', 'c']);
    const deployments = deploymentsWith({ quiet: (id) => quiet.has(id) });
    const { queued, asRunner } = fakeRunner();
    const signal = new AbortController().signal;
    const exposed = desired('c', '1');
    (exposed.deployment.source_config as { custom_url?: string }).custom_url = 'https://c.example.com';
    const all = [desired('a', '1'), desired('b', '1'), exposed];
    // Never reconciled yet: not Ready, so queued whatever the watches say.
    await deployments.applySnapshot(snapshot(all), asRunner, signal);
    expect(queued).toEqual(['a', 'b', 'c']);
    for (const id of ['a', 'b', 'c']) await deployments.reconcile(id, signal);
    queued.length = 0;
    await deployments.applySnapshot(snapshot(all), asRunner, signal);
    // 'a' is quiet and Ready; 'b' is not quiet; 'c' is exposed (its exposure kind is not watched).
    expect(queued).toEqual(['b', 'c']);
    // A changed deployment is queued, quiet or not.
    queued.length = 0;
    await deployments.applySnapshot(
      snapshot([desired('a', '2'), desired('b', '1'), exposed]),
      asRunner,
      signal,
    );
    expect(queued).toContain('a');
  });

  it('while the previous resync is still queued, only changed and new deployments are queued, with no listing', async () => {
    const { deployments, cycles } = setup();
    const { runner, queued, asRunner } = fakeRunner();
    const signal = new AbortController().signal;
    await deployments.applySnapshot(
      snapshot([desired('a', '1'), desired('b', '1'), desired('c', '1')]),
      asRunner,
      signal,
    );
    for (const id of ['a', 'b']) await deployments.reconcile(id, signal);
    queued.length = 0;
    runner.depth = 1; // c is still waiting from the first cycle
    await deployments.applySnapshot(
      snapshot([desired('a', '2'), desired('b', '1'), desired('c', '1'), desired('d', '1')]),
      asRunner,
      signal,
    );
    // a changed, c was never reconciled (still queued: enqueue is idempotent), d is new; b is unchanged.
    expect(queued.sort()).toEqual(['a', 'c', 'd']);
    expect(cycles).toEqual(['listing', 'orphans']);
    // Not a resync: nothing parked until one is let go.
    expect(runner.resyncs).toBe(1);
  });

  it("queues a poll's new and changed deployments as their revisions come in, once; the snapshot queues the rest", async () => {
    const { deployments, cycles } = setup();
    const { runner, queued, asRunner } = fakeRunner();
    const signal = new AbortController().signal;
    // A cold start: the listing is complete, and the resync (its inventory listing first) begins
    // with the first deployment queued.
    const cold = pollOf(deployments, asRunner, signal);
    expect(cycles).toEqual([]);
    await cold.ready(desired('a', '1'));
    expect(cycles).toEqual(['listing']);
    await cold.ready({ ...desired('r', '1'), refused: { code: 'MOORING_E_X', message: 'no' } });
    expect(queued).toEqual(['a']);
    // What was queued early does not make the snapshot a poll "with work still queued".
    runner.depth = 1;
    await cold.complete(snapshot([desired('a', '1'), desired('b', '1')]));
    expect(queued).toEqual(['a', 'b']);
    expect(cycles).toEqual(['listing', 'orphans']);
    for (const id of ['a', 'b']) await deployments.reconcile(id, signal);

    // The next poll: a changed deployment goes at once, an unchanged one waits for the snapshot.
    queued.length = 0;
    runner.depth = 0;
    const next = pollOf(deployments, asRunner, signal);
    await next.ready(desired('a', '1'));
    await next.ready(desired('b', '2'));
    expect(queued).toEqual(['b']);
    runner.depth = 1;
    await next.complete(snapshot([desired('a', '1'), desired('b', '2')]));
    expect(queued).toEqual(['b', 'a']);
    expect(cycles).toEqual(['listing', 'orphans', 'listing', 'orphans']);
  });

  it("takes again the snapshot's copy of a deployment taken early when it differs (a later copy)", async () => {
    const { deployments } = setup();
    const { queued, asRunner } = fakeRunner();
    const signal = new AbortController().signal;
    await deployments.applySnapshot(snapshot([desired('a', '1'), desired('b', '1')]), asRunner, signal);
    for (const id of ['a', 'b']) await deployments.reconcile(id, signal);
    queued.length = 0;
    const next = pollOf(deployments, asRunner, signal);
    await next.ready(desired('a', '2'));
    expect(queued).toEqual(['a']);
    // The complete listing holds a later copy of `a`: it is the one taken, and queued.
    await next.complete(snapshot([desired('a', '3'), desired('b', '1')]));
    expect(queued.filter((id) => id === 'a')).toHaveLength(2);
    expect(deployments.desiredOf('a')).toMatchObject({ hash: '3' });
  });

  it('a change taken early from a poll that then fails forgets nothing: deletions wait for a complete listing', async () => {
    const { deployments, cycles } = setup();
    const { queued, asRunner } = fakeRunner();
    const signal = new AbortController().signal;
    await deployments.applySnapshot(snapshot([desired('a', '1'), desired('b', '1')]), asRunner, signal);
    for (const id of ['a', 'b']) await deployments.reconcile(id, signal);
    queued.length = 0;
    const next = pollOf(deployments, asRunner, signal);
    await next.ready(desired('a', '2'));
    // `b` was not on the pages read before the listing failed.
    await next.fail(new MooringError('MOORING_E_CP_UNREACHABLE'));
    expect(queued).toEqual(['a']);
    expect(deployments.holds('b')).toBe(true);
    expect(cycles.filter((c) => c === 'orphans')).toHaveLength(1);
  });

  it('a poll that fails before it queues anything lists nothing and is no resync', async () => {
    const clock = new FakeClock();
    const { deployments, cycles } = setup(READY, 60_000, clock);
    const { asRunner } = fakeRunner();
    const signal = new AbortController().signal;
    // Its listing was complete, then a revision read failed: no snapshot, nothing handed on.
    await pollOf(deployments, asRunner, signal).fail(new MooringError('MOORING_E_CP_UNREACHABLE'));
    await clock.advance(5_000);
    // The next poll is still the first resync, whatever the interval.
    await pollOf(deployments, asRunner, signal).complete(snapshot([desired('a', '1')]));
    expect(cycles).toEqual(['listing', 'orphans']);
  });

  it('with a resync interval, polls in between queue only changed deployments, with no listing', async () => {
    const clock = new FakeClock();
    const { deployments, cycles } = setup(READY, 60_000, clock);
    const { queued, asRunner } = fakeRunner();
    const signal = new AbortController().signal;
    const poll = async (ds: DesiredDeployment[]) => {
      queued.length = 0;
      await deployments.applySnapshot(snapshot(ds), asRunner, signal);
      for (const id of queued) await deployments.reconcile(id, signal);
      return [...queued].sort();
    };
    expect(await poll([desired('a', '1'), desired('b', '1')])).toEqual(['a', 'b']);
    await clock.advance(15_000);
    expect(await poll([desired('a', '1'), desired('b', '1')])).toEqual([]);
    await clock.advance(15_000);
    expect(await poll([desired('a', '2'), desired('b', '1'), desired('c', '1')])).toEqual(['a', 'c']);
    expect(cycles).toEqual(['listing', 'orphans']);
    // Polls come up to 10% sooner: 54 s after the last resync, the next one is due.
    await clock.advance(24_000);
    expect(await poll([desired('a', '2'), desired('b', '1'), desired('c', '1')])).toEqual(['a', 'b', 'c']);
    expect(cycles).toEqual(['listing', 'orphans', 'listing', 'orphans']);
  });
});

/**
 * Deployment `a` listed once, reconciled with `results` in turn, its lines logged at debug and
 * read back; `run(kind)` reconciles (on success) and reports like the runner does.
 */
async function logged(results: ReconcileResult[]) {
  const lines: Array<{ level: string; msg: string; changes?: string; state?: string }> = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (l: string) => lines.push(JSON.parse(l)) },
  });
  const outcomes: Array<ReconcileResult | Error> = results;
  const deployments = deploymentsWith({
    logger,
    reconcile: async () => {
      const next = outcomes.shift();
      if (next instanceof Error) throw next;
      return next as ReconcileResult;
    },
  });
  const signal = new AbortController().signal;
  await deployments.applySnapshot(snapshot([desired('a', '1')]), fakeRunner().asRunner, signal);
  // As the runner does: the reconcile, then its report (a retry's reconcile threw).
  const run = async (kind: 'success' | 'retry' = 'success') => {
    if (kind === 'retry') outcomes.unshift(new Error('boom'));
    await deployments.reconcile('a', signal).catch(() => undefined);
    deployments.report({
      key: 'a',
      desiredHash: '1',
      result:
        kind === 'success'
          ? { kind, requeueAfterMs: undefined }
          : { kind, error: new Error('boom'), attempt: 1, delayMs: 1000 },
      durationMs: 1,
    });
  };
  const reconciled = () => lines.filter((l) => l.msg === 'reconciled');
  return { run, reconciled };
}

describe('Deployments.report: the log line per reconcile', () => {
  const withAction = (action: 'created' | 'unchanged' | 'skipped') =>
    ({
      changeSet: {
        entries: [{ id: 'Secret/apps/a', apiVersion: 'v1', kind: 'Secret', name: 'a', action }],
        dryRun: false,
      },
      health: { state: 'Ready', reason: 'ready' },
    }) as unknown as ReconcileResult;
  const progressing = {
    changeSet: { entries: [], dryRun: false },
    health: { state: 'Progressing', reason: 'Deployment/apps/a: 0 of 1 replicas ready' },
  } as unknown as ReconcileResult;

  it('is info when a reconcile changed something or the health moved, debug when a resync found all as it was', async () => {
    const { run, reconciled } = await logged([
      withAction('created'),
      progressing,
      progressing,
      withAction('unchanged'),
      withAction('unchanged'),
    ]);
    for (let i = 0; i < 5; i++) await run();
    expect(reconciled().map((l) => `${l.level} ${l.changes} ${l.state}`)).toEqual([
      'info created 1 Ready', // Pending -> Ready, a change
      'info no objects Progressing', // health moved
      'debug no objects Progressing', // as it was
      'info unchanged 1 Ready', // health moved back
      'debug unchanged 1 Ready', // as it was
    ]);
  });

  it('a pass with a skipped (refused) object, and the first success after a retry, are info', async () => {
    const { run, reconciled } = await logged([
      READY,
      withAction('skipped'),
      withAction('skipped'),
      READY,
      READY,
    ]);
    for (let i = 0; i < 3; i++) await run();
    await run('retry');
    for (let i = 0; i < 2; i++) await run();
    expect(reconciled().map((l) => `${l.level} ${l.changes}`)).toEqual([
      'info no objects', // Pending -> Ready
      'info skipped 1',
      'info skipped 1', // a refused object is never quiet
      'info no objects', // Retrying -> Ready
      'debug no objects',
    ]);
  });
});

describe('Deployments: the resync shortcut', () => {
  it("passes each deployment's converged pass to its next reconcile; a failure or a departure drops it", async () => {
    const pass = { key: '1', objects: 3, claimPrefixes: [] };
    const seen: unknown[] = [];
    const outcomes: Array<ReconcileResult | Error> = [
      { ...READY, converged: pass },
      { ...READY, converged: pass },
      new Error('apply failed'),
      { ...READY, converged: pass },
    ];
    const deployments = deploymentsWith({
      reconcile: async (input) => {
        seen.push(input.converged);
        const next = outcomes.shift();
        if (next instanceof Error) throw next;
        return next as ReconcileResult;
      },
    });
    const signal = new AbortController().signal;
    const { asRunner } = fakeRunner();
    await deployments.applySnapshot(snapshot([desired('a', '1')]), asRunner, signal);
    await deployments.reconcile('a', signal);
    await deployments.reconcile('a', signal);
    await expect(deployments.reconcile('a', signal)).rejects.toThrow('apply failed');
    await deployments.reconcile('a', signal);
    // It leaves the listing and comes back: nothing is passed on from before.
    await deployments.applySnapshot(snapshot([]), asRunner, signal);
    await deployments.applySnapshot(snapshot([desired('a', '1')]), asRunner, signal);
    outcomes.push(READY);
    await deployments.reconcile('a', signal);
    expect(seen).toEqual([undefined, pass, pass, undefined, undefined]);
  });
});

describe('Deployments: how long a resync takes', () => {
  it('observes each resync from its start until the queue drained; polls in between are not resyncs', async () => {
    const clock = new FakeClock();
    const metrics = createMetrics({ version: 'test' });
    const drains: Array<() => void> = [];
    const runner = {
      depth: 0,
      enqueue: () => {},
      forget: () => {},
      resync: () => {},
      whenIdle: () => new Promise<void>((resolve) => drains.push(resolve)),
    } as unknown as Runner;
    const deployments = deploymentsWith({ metrics, clock, resyncIntervalMs: 60_000 });
    const signal = new AbortController().signal;
    const observed = async () => {
      const { values } = await metrics.resyncDuration.get();
      const of = (name: string) => values.find((v) => v.metricName === name)?.value;
      return [of('mooring_resync_duration_seconds_count'), of('mooring_resync_duration_seconds_sum')];
    };
    await deployments.applySnapshot(snapshot([desired('a', '1')]), runner, signal);
    await clock.advance(2_500);
    drains.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await observed()).toEqual([1, 2.5]);
    // A poll 10 s later is not a resync (the interval is 60 s): nothing waits for it to drain.
    await clock.advance(10_000);
    await deployments.applySnapshot(snapshot([desired('a', '1')]), runner, signal);
    expect(drains).toEqual([]);
    await clock.advance(50_000);
    await deployments.applySnapshot(snapshot([desired('a', '1')]), runner, signal);
    await clock.advance(500);
    drains.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await observed()).toEqual([2, 3]);
  });
});

describe('Deployments: a resync that outlasts the poll interval', () => {
  /** Deployments with a 5 s poll, a runner whose drains the test releases, and the listings counted. */
  function slowResyncs() {
    const clock = new FakeClock();
    const drains: Array<() => void> = [];
    const cycles: string[] = [];
    const queued: string[] = [];
    const runner = {
      depth: 0,
      enqueue: (key: string) => queued.push(key),
      forget: () => {},
      resync: () => {},
      whenIdle: () => new Promise<void>((resolve) => drains.push(resolve)),
    } as unknown as Runner;
    const deployments = deploymentsWith({
      clock,
      pollIntervalMs: 5_000,
      beginCycle: () => cycles.push('listing'),
    });
    const signal = new AbortController().signal;
    const poll = async (ds: DesiredDeployment[]) => {
      queued.length = 0;
      await deployments.applySnapshot(snapshot(ds), runner, signal);
    };
    /** Lets the latest resync drain after `ms` of work. */
    const drainAfter = async (ms: number) => {
      await clock.advance(ms);
      drains.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    };
    return { clock, cycles, queued, poll, drainAfter, deployments, signal };
  }

  it('rests as long as it took before the next resync; changes still go at once', async () => {
    const { clock, cycles, queued, poll, drainAfter, deployments, signal } = slowResyncs();
    await poll([desired('a', '1'), desired('b', '1')]); // the cold start
    for (const id of ['a', 'b']) await deployments.reconcile(id, signal);
    await drainAfter(30_000); // the cold start's duration imposes no rest
    await poll([desired('a', '1'), desired('b', '1')]);
    expect(cycles).toEqual(['listing', 'listing']);
    await drainAfter(12_000); // a resync of 12 s, over the 5 s interval
    await clock.advance(5_000);
    await poll([desired('a', '2'), desired('b', '1')]);
    expect(cycles).toHaveLength(2); // 5 s after it drained: no resync
    expect(queued).toEqual(['a']); // the change is queued all the same
    await deployments.reconcile('a', signal);
    await clock.advance(5_000);
    await poll([desired('a', '2'), desired('b', '1')]);
    expect(cycles).toHaveLength(2); // 10 s: still resting (polls may come 10% early: 10.8 s is enough)
    expect(queued).toEqual([]);
    await clock.advance(2_000);
    await poll([desired('a', '2'), desired('b', '1')]);
    expect(cycles).toHaveLength(3); // 12 s after it drained: a resync again
    expect(queued).toEqual(['a', 'b']);
  });

  it('never delays a resync that fits in the poll interval', async () => {
    const { clock, cycles, poll, drainAfter } = slowResyncs();
    await poll([desired('a', '1')]);
    await drainAfter(30_000);
    for (let i = 0; i < 3; i++) {
      await poll([desired('a', '1')]);
      await drainAfter(4_000); // 4 s of a 5 s interval
      await clock.advance(1_000);
    }
    expect(cycles).toHaveLength(4);
  });
});

describe('Deployments: the redactor learns each deployment’s secret values', () => {
  const withSecrets = (id: string, hash: string, values: string[]): DesiredDeployment => {
    const d = desired(id, hash);
    (d.deployment as { secrets: unknown }).secrets = values.map((value, i) => ({ name: `S${i}`, value }));
    return d;
  };

  /** Deployments with a real redactor behind its log, status and reasons. */
  function redacted(reconcile: DeploymentsDeps['reconcile'] = async () => READY) {
    const redactor = new Redactor();
    const lines: string[] = [];
    const logger = createLogger({
      level: 'debug',
      destination: { write: (s: string) => lines.push(s) },
      scrubber: redactor,
    });
    const status = new StatusStore({ scrubber: redactor });
    const deployments = deploymentsWith({ redactor, logger, status, reconcile });
    const { asRunner } = fakeRunner();
    return { redactor, lines, status, deployments, asRunner };
  }

  it('knows them from the moment the record is taken, early or with the snapshot, revision secrets included', async () => {
    const { redactor, deployments, asRunner } = redacted();
    const poll = pollOf(deployments, asRunner);
    await poll.ready(withSecrets('a', '1', ['early-secret-a']));
    expect(redactor.scrub('early-secret-a')).toBe(REDACTED);
    const b = withSecrets('b', '1', ['snapshot-secret-b']);
    b.revision = { id: 'r1', secrets: [{ name: 'X', value: 'revision-secret-b' }] } as never;
    await poll.complete(snapshot([withSecrets('a', '1', ['early-secret-a']), b]));
    expect(redactor.scrub('snapshot-secret-b revision-secret-b')).toBe(`${REDACTED} ${REDACTED}`);
  });

  it('forgets a deployment that left the listing, once no reconcile of it runs', async () => {
    // b's reconcile is still at work when b leaves.
    const { redactor, deployments, asRunner, lines } = redacted((input) =>
      input.deployment.id === 'b' ? new Promise(() => {}) : Promise.resolve(READY),
    );
    const signal = new AbortController().signal;
    await deployments.applySnapshot(
      snapshot([withSecrets('a', '1', ['secret-of-a']), withSecrets('b', '1', ['secret-of-b'])]),
      asRunner,
      signal,
    );
    void deployments.reconcile('b', signal);
    await deployments.applySnapshot(snapshot([]), asRunner, signal);
    expect(redactor.scrub('secret-of-a')).toBe('secret-of-a');
    expect(redactor.scrub('secret-of-b')).toBe(REDACTED);
    // Its report is the last line about it: still scrubbed, then the value is forgotten.
    const error = new MooringError(
      'MOORING_E_KUBE_CONFLICT',
      'Secret/apps/b-env: apply conflict (409): value "secret-of-b"',
    );
    deployments.report({
      key: 'b',
      desiredHash: '1',
      durationMs: 5,
      result: { kind: 'retry', error, attempt: 1, delayMs: 1000 },
    });
    expect(lines.join('')).toContain('MOORING_E_KUBE_CONFLICT');
    expect(lines.join('')).not.toContain('secret-of-b');
    expect(redactor.size).toBe(0);
  });

  it('stores a failed reconcile’s reason scrubbed: /status never holds a value the API server quoted', async () => {
    const error = new MooringError(
      'MOORING_E_KUBE_FORBIDDEN',
      'Secret/apps/a-env: apply refused (403): env value "quoted-secret-value" is not allowed',
    );
    const { deployments, status, asRunner, lines } = redacted(() => Promise.reject(error));
    const signal = new AbortController().signal;
    await deployments.applySnapshot(
      snapshot([withSecrets('a', '1', ['quoted-secret-value'])]),
      asRunner,
      signal,
    );
    await expect(deployments.reconcile('a', signal)).rejects.toBe(error);
    deployments.report({
      key: 'a',
      desiredHash: '1',
      durationMs: 5,
      result: { kind: 'terminal', error, until: 'change' },
    });
    expect(status.get('a')?.reason).toBe(
      `MOORING_E_KUBE_FORBIDDEN: Secret/apps/a-env: apply refused (403): env value "${REDACTED}" is not allowed`,
    );
    expect(lines.join('')).not.toContain('quoted-secret-value');
  });
});

const MIB = 1024 * 1024;

describe('Deployments: a heap too short for the listener', () => {
  it('keeps reconciling what it holds, and lets a deployment never reconciled wait (Pending, with the reason) until the heap has room', async () => {
    const heap: HeapReading = { liveBytes: 10 * MIB, limitBytes: 100 * MIB };
    const memory = new MemoryBudget({ read: () => heap, logger: silentLogger() });
    const reconciled: string[] = [];
    const status = new StatusStore();
    const deployments = deploymentsWith({
      status,
      memory,
      reconcile: async (input) => {
        reconciled.push(input.deployment.id);
        return READY;
      },
    });
    const { asRunner } = fakeRunner();
    const signal = new AbortController().signal;
    await deployments.applySnapshot(snapshot([desired('held', '1')]), asRunner, signal);
    await deployments.reconcile('held', signal);
    heap.liveBytes = 95 * MIB;
    const leaving = desired('leaving', '1');
    (leaving.deployment as { status: string }).status = 'AWAITING_DELETE';
    await deployments.applySnapshot(
      snapshot([desired('held', '1'), desired('new', '1'), leaving]),
      asRunner,
      signal,
    );
    await deployments.reconcile('held', signal);
    await deployments.reconcile('new', signal);
    await deployments.reconcile('leaving', signal);
    // A deletion is no new load: it goes on.
    expect(reconciled).toEqual(['held', 'held', 'leaving']);
    expect(status.get('new')?.state).toBe('Pending');
    expect(status.get('new')?.reason).toMatch(/^MOORING_E_MEMORY_SHORT: heap 95 of 100 MiB live \(short\)/);
    expect(memory.verdict().deferred).toBe(1);
    heap.liveBytes = 20 * MIB;
    await deployments.applySnapshot(snapshot([desired('held', '1'), desired('new', '1')]), asRunner, signal);
    await deployments.reconcile('new', signal);
    expect(reconciled).toEqual(['held', 'held', 'leaving', 'new']);
    expect(status.get('new')?.state).toBe('Ready');
    expect(memory.verdict().deferred).toBe(0);
  });

  it('logs a deployment that waits at its reconcile at debug and counts no reconcile (thousands wait a poll)', async () => {
    const heap: HeapReading = { liveBytes: 10 * MIB, limitBytes: 100 * MIB };
    const memory = new MemoryBudget({ read: () => heap, logger: silentLogger() });
    const lines: Array<{ level: string; msg: string; state?: string; deploymentId?: string }> = [];
    const logger = createLogger({
      level: 'debug',
      destination: { write: (l: string) => lines.push(JSON.parse(l)) },
    });
    const metrics = createMetrics({ version: 'test' });
    const deployments = deploymentsWith({ logger, memory, metrics, reconcile: async () => READY });
    const signal = new AbortController().signal;
    const report = (key: string) =>
      deployments.report({
        key,
        desiredHash: '1',
        result: { kind: 'success', requeueAfterMs: undefined },
        durationMs: 0,
      });
    await deployments.applySnapshot(
      snapshot([desired('taken', '1'), desired('waits', '1')]),
      fakeRunner().asRunner,
      signal,
    );
    await deployments.reconcile('taken', signal);
    report('taken');
    heap.liveBytes = 95 * MIB;
    await deployments.reconcile('waits', signal);
    report('waits');
    const reconciled = lines.filter((l) => l.msg === 'reconciled');
    expect(reconciled.map((l) => [l.deploymentId, l.state, l.level])).toEqual([
      ['taken', 'Ready', 'info'],
      ['waits', 'Pending', 'debug'],
    ]);
    // Nor is it counted as a reconcile.
    expect(await metrics.registry.metrics()).toContain('mooring_reconciles_total{result="success"} 1');
  });

  it('drops the record and secret values of a deployment that waits, keeping its id, and takes it from a later listing', async () => {
    const heap: HeapReading = { liveBytes: 95 * MIB, limitBytes: 100 * MIB };
    const memory = new MemoryBudget({ read: () => heap, logger: silentLogger() });
    const redactor = new Redactor();
    const status = new StatusStore();
    const reconciled: string[] = [];
    const deployments = deploymentsWith({
      status,
      memory,
      redactor,
      reconcile: async (input) => {
        reconciled.push(input.deployment.id);
        return READY;
      },
    });
    const { asRunner, queued } = fakeRunner();
    const signal = new AbortController().signal;
    const waiting = desired('waiting', '1');
    (waiting.deployment as { secrets: unknown }).secrets = [{ name: 'TOKEN', value: 'tok-parked-secret-1' }];
    await deployments.applySnapshot(snapshot([waiting]), asRunner, signal);
    // Not queued, not held: only its id and its status remain.
    expect(queued).toEqual([]);
    expect(deployments.desiredOf('waiting')).toBeUndefined();
    expect(deployments.parked('waiting')).toBe(true);
    expect(status.get('waiting')?.state).toBe('Pending');
    expect(redactor.scrub('tok-parked-secret-1')).toBe('tok-parked-secret-1');
    expect(memory.verdict().deferred).toBe(1);
    heap.liveBytes = 20 * MIB;
    await deployments.applySnapshot(snapshot([desired('waiting', '1')]), asRunner, signal);
    expect(deployments.parked('waiting')).toBe(false);
    expect(queued).toEqual(['waiting']);
    await deployments.reconcile('waiting', signal);
    expect(reconciled).toEqual(['waiting']);
    expect(status.get('waiting')?.state).toBe('Ready');
  });

  it('a deployment deferred when its reconcile comes drops its record too', async () => {
    const heap: HeapReading = { liveBytes: 10 * MIB, limitBytes: 100 * MIB };
    const memory = new MemoryBudget({ read: () => heap, logger: silentLogger() });
    const deployments = deploymentsWith({ memory });
    const { asRunner, queued } = fakeRunner();
    const signal = new AbortController().signal;
    await deployments.applySnapshot(snapshot([desired('a', '1')]), asRunner, signal);
    expect(queued).toEqual(['a']);
    heap.liveBytes = 90 * MIB;
    await deployments.reconcile('a', signal);
    expect(deployments.desiredOf('a')).toBeUndefined();
    expect(deployments.parked('a')).toBe(true);
  });

  it('makes no resync while the heap is short (it lists every object); the cold start and changes still go', async () => {
    const heap: HeapReading = { liveBytes: 10 * MIB, limitBytes: 100 * MIB };
    const memory = new MemoryBudget({ read: () => heap, logger: silentLogger() });
    let listings = 0;
    const deployments = deploymentsWith({
      memory,
      beginCycle: () => {
        listings += 1;
      },
    });
    const { asRunner, queued } = fakeRunner();
    const signal = new AbortController().signal;
    await deployments.applySnapshot(snapshot([desired('a', '1'), desired('b', '1')]), asRunner, signal);
    await deployments.reconcile('a', signal);
    await deployments.reconcile('b', signal);
    expect(listings).toBe(1);
    heap.liveBytes = 90 * MIB;
    queued.length = 0;
    await deployments.applySnapshot(snapshot([desired('a', '2'), desired('b', '1')]), asRunner, signal);
    expect(listings).toBe(1);
    expect(queued).toEqual(['a']);
    heap.liveBytes = 20 * MIB;
    await deployments.applySnapshot(snapshot([desired('a', '2'), desired('b', '1')]), asRunner, signal);
    expect(listings).toBe(2);
  });

  it('holds the deployments a restart memo vouched for under a short heap: none parked, none counted as room taken', async () => {
    const heap: HeapReading = { liveBytes: 90 * MIB, limitBytes: 100 * MIB };
    const memory = new MemoryBudget({ read: () => heap, logger: silentLogger() });
    const restored = new Set(['kept-1', 'kept-2']);
    const reconciled: string[] = [];
    const deployments = deploymentsWith({
      memory,
      restored: (id) => restored.has(id),
      reconcile: async (input) => {
        reconciled.push(input.deployment.id);
        return READY;
      },
    });
    const { asRunner, queued } = fakeRunner();
    const signal = new AbortController().signal;
    await deployments.applySnapshot(
      snapshot([desired('kept-1', '1'), desired('kept-2', '1'), desired('new', '1')]),
      asRunner,
      signal,
    );
    // The restart's deployments are taken and run; only the one never held waits.
    expect(queued).toEqual(['kept-1', 'kept-2']);
    await deployments.reconcile('kept-1', signal);
    await deployments.reconcile('kept-2', signal);
    expect(reconciled).toEqual(['kept-1', 'kept-2']);
    expect(deployments.parked('kept-1')).toBe(false);
    expect(deployments.parked('new')).toBe(true);
    expect(memory.verdict().deferred).toBe(1);
  });

  it('forgets a waiting deployment that leaves the listing', async () => {
    const heap: HeapReading = { liveBytes: 95 * MIB, limitBytes: 100 * MIB };
    const memory = new MemoryBudget({ read: () => heap, logger: silentLogger() });
    const status = new StatusStore();
    const deployments = deploymentsWith({ status, memory });
    const { asRunner } = fakeRunner();
    const signal = new AbortController().signal;
    await deployments.applySnapshot(snapshot([desired('a', '1')]), asRunner, signal);
    expect(deployments.parked('a')).toBe(true);
    await deployments.applySnapshot(snapshot([]), asRunner, signal);
    expect(deployments.parked('a')).toBe(false);
    expect(status.get('a')).toBeUndefined();
  });
});
