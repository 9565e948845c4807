import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { backoffDelayMs, type ReconcileOutcome, type RunReport, Runner } from '../../src/agent/runner.ts';
import { MooringError, TerminalError } from '../../src/errors.ts';
import { FakeClock, flush } from './fake-clock.ts';

/** A reconcile whose calls the test completes by hand. */
function controllable() {
  const calls: {
    key: string;
    signal: AbortSignal;
    resolve: (o?: ReconcileOutcome) => void;
    reject: (e: unknown) => void;
  }[] = [];
  const reconcile = (key: string, signal: AbortSignal) =>
    new Promise<ReconcileOutcome | undefined>((resolve, reject) =>
      calls.push({ key, signal, resolve, reject }),
    );
  return { calls, reconcile };
}

function setup(opts: { concurrency?: number; timeoutMs?: number } = {}) {
  const clock = new FakeClock();
  const { calls, reconcile } = controllable();
  const reports: RunReport[] = [];
  const runner = new Runner({
    reconcile,
    clock,
    random: () => 0.5, // no jitter
    concurrency: opts.concurrency ?? 2,
    timeoutMs: opts.timeoutMs ?? 60_000,
    backoff: { baseMs: 1000, maxMs: 8000 },
    onReport: (r) => reports.push(r),
  });
  runner.start();
  return { clock, calls, runner, reports };
}

describe('Runner', () => {
  it('runs one reconcile per key at a time and deduplicates', async () => {
    const { calls, runner } = setup();
    runner.enqueue('a', 'h1');
    runner.enqueue('a', 'h1');
    await flush();
    expect(calls.map((c) => c.key)).toEqual(['a']);
    // The same state while running is not queued again; a new state runs after the current one.
    runner.enqueue('a', 'h1');
    runner.enqueue('a', 'h2');
    runner.enqueue('a', 'h3');
    await flush();
    expect(calls).toHaveLength(1);
    calls[0]!.resolve();
    await flush();
    expect(calls).toHaveLength(2);
    calls[1]!.resolve();
    await flush();
    expect(calls).toHaveLength(2);
  });

  it('bounds concurrency', async () => {
    const { calls, runner } = setup({ concurrency: 2 });
    for (const k of ['a', 'b', 'c', 'd']) runner.enqueue(k, 'h');
    await flush();
    expect(calls.map((c) => c.key)).toEqual(['a', 'b']);
    expect(runner.depth).toBe(2);
    calls[0]!.resolve();
    await flush();
    expect(calls.map((c) => c.key)).toEqual(['a', 'b', 'c']);
  });

  it('runs fewer at a time while its limit says so (memory pressure), and more once it lets go', async () => {
    const clock = new FakeClock();
    const { calls, reconcile } = controllable();
    let limit = 1;
    const runner = new Runner({ reconcile, clock, concurrency: 4, limit: (n) => Math.min(n, limit) });
    runner.start();
    for (const k of ['a', 'b', 'c', 'd']) runner.enqueue(k, 'h');
    await flush();
    expect(calls.map((c) => c.key)).toEqual(['a']);
    limit = 8;
    calls[0]!.resolve();
    await flush();
    expect(calls.map((c) => c.key)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('puts a known deployment whose desired state changed ahead of a resync backlog', async () => {
    const { calls, runner } = setup({ concurrency: 1 });
    for (const k of ['a', 'b', 'c', 'd']) runner.enqueue(k, 'h1');
    await flush();
    calls[0]!.resolve();
    await flush();
    expect(calls.map((c) => c.key)).toEqual(['a', 'b']);
    // A resync of everything, then 'd' changes: 'd' runs next, before 'c' and the resync of 'a'.
    for (const k of ['a', 'b', 'c']) runner.enqueue(k, 'h1');
    runner.enqueue('d', 'h2');
    calls[1]!.resolve();
    await flush();
    expect(calls.map((c) => c.key)).toEqual(['a', 'b', 'd']);
    calls[2]!.resolve();
    await flush();
    expect(calls.map((c) => c.key)).toEqual(['a', 'b', 'd', 'c']);
  });

  it('does not requeue a key forgotten while its reconcile ran (regression: refused deployment reconciled again)', async () => {
    const { clock, calls, runner } = setup();
    runner.enqueue('a', 'h');
    await flush();
    runner.forget('a');
    calls[0]!.resolve({ requeueAfterMs: 5000 });
    await flush();
    await clock.advance(10_000);
    expect(calls).toHaveLength(1);
  });

  it('leaves a look-again to the next resync while other keys are queued', async () => {
    const { clock, calls, runner, reports } = setup({ concurrency: 1 });
    runner.enqueue('a', 'h');
    runner.enqueue('b', 'h');
    await flush();
    calls[0]!.resolve({ requeueAfterMs: 5000 }); // b still waits
    await flush();
    expect(reports[0]!.result).toEqual({ kind: 'success', requeueAfterMs: undefined });
    calls[1]!.resolve({ requeueAfterMs: 5000 }); // nothing else queued
    await flush();
    expect(reports[1]!.result).toEqual({ kind: 'success', requeueAfterMs: 5000 });
    await clock.advance(5000);
    expect(calls.map((c) => c.key)).toEqual(['a', 'b', 'b']);
  });

  it('requeues after success when asked', async () => {
    const { clock, calls, runner, reports } = setup();
    runner.enqueue('a', 'h');
    await flush();
    calls[0]!.resolve({ requeueAfterMs: 5000 });
    await flush();
    expect(reports[0]!.result).toEqual({ kind: 'success', requeueAfterMs: 5000 });
    await clock.advance(4999);
    expect(calls).toHaveLength(1);
    await clock.advance(1);
    expect(calls).toHaveLength(2);
  });

  it('backs off exponentially per key on retryable errors, up to the cap', async () => {
    const { clock, calls, runner, reports } = setup();
    runner.enqueue('a', 'h');
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      await flush();
      calls[i]!.reject(new MooringError('MOORING_E_KUBE_UNREACHABLE'));
      await flush();
      const last = reports.at(-1)!.result;
      if (last.kind !== 'retry') throw new Error('expected retry');
      delays.push(last.delayMs);
      // A resync with the same desired state must not defeat the backoff.
      runner.enqueue('a', 'h');
      await clock.advance(last.delayMs - 1);
      expect(calls).toHaveLength(i + 1);
      await clock.advance(1);
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 8000]);
    // Success resets the count.
    calls[5]!.resolve();
    await flush();
    runner.enqueue('a', 'h');
    await flush();
    calls[6]!.reject(new Error('boom'));
    await flush();
    expect(reports.at(-1)!.result).toMatchObject({ kind: 'retry', attempt: 1, delayMs: 1000 });
  });

  it('honours a Retry-After hint longer than the backoff', async () => {
    const { calls, runner, reports } = setup();
    runner.enqueue('a', 'h');
    await flush();
    calls[0]!.reject(new MooringError('MOORING_E_CP_UNAVAILABLE', undefined, { retryAfterMs: 30_000 }));
    await flush();
    expect(reports[0]!.result).toMatchObject({ kind: 'retry', delayMs: 30_000 });
  });

  it('parks a terminal error until the desired state changes', async () => {
    const { clock, calls, runner, reports } = setup();
    runner.enqueue('a', 'h1');
    await flush();
    calls[0]!.reject(new TerminalError('MOORING_E_RENDER_INVALID'));
    await flush();
    expect(reports[0]!.result.kind).toBe('terminal');
    expect(runner.isParked('a')).toBe(true);
    runner.enqueue('a', 'h1');
    await clock.advance(600_000);
    expect(calls).toHaveLength(1);
    runner.enqueue('a', 'h2');
    await flush();
    expect(calls).toHaveLength(2);
    expect(runner.isParked('a')).toBe(false);
  });

  it('parks an ownership refusal until the next resync: no backoff retries, other keys run on', async () => {
    const { clock, calls, runner, reports } = setup();
    runner.enqueue('a', 'h1');
    runner.enqueue('b', 'h1');
    await flush();
    calls[0]!.reject(
      new TerminalError('MOORING_E_KUBE_OWNERSHIP', 'Service/apps/x-redis: exists and belongs to …'),
    );
    calls[1]!.reject(new TerminalError('MOORING_E_RENDER_INVALID'));
    await flush();
    expect(reports.map((r) => r.result)).toMatchObject([
      { kind: 'terminal', until: 'resync' },
      { kind: 'terminal', until: 'change' },
    ]);
    // Polls between resyncs do not run it, nor does time.
    runner.enqueue('a', 'h1');
    await clock.advance(600_000);
    expect(calls).toHaveLength(2);
    // Others are not held up by it.
    runner.enqueue('c', 'h1');
    await flush();
    expect(calls.map((c) => c.key)).toEqual(['a', 'b', 'c']);
    calls[2]!.resolve();
    // A resync lets it go (and only it: a refusal parked until a change stays parked).
    runner.resync();
    runner.enqueue('a', 'h1');
    runner.enqueue('b', 'h1');
    await flush();
    expect(calls.map((c) => c.key)).toEqual(['a', 'b', 'c', 'a']);
    expect(runner.isParked('b')).toBe(true);
    // Refused again: parked until the resync after.
    calls[3]!.reject(new TerminalError('MOORING_E_KUBE_OWNERSHIP'));
    await flush();
    runner.enqueue('a', 'h1');
    await flush();
    expect(calls).toHaveLength(4);
    // A change of its desired state runs it at once, as for any parked key.
    runner.enqueue('a', 'h2');
    await flush();
    expect(calls).toHaveLength(5);
  });

  it('does not park when the desired state changed during the failing run', async () => {
    const { calls, runner } = setup();
    runner.enqueue('a', 'h1');
    await flush();
    runner.enqueue('a', 'h2');
    calls[0]!.reject(new TerminalError('MOORING_E_RENDER_INVALID'));
    await flush();
    expect(runner.isParked('a')).toBe(false);
    expect(calls).toHaveLength(2);
  });

  it('aborts a reconcile that overruns its timeout and reports the timeout code', async () => {
    const { clock, calls, runner, reports } = setup({ timeoutMs: 10_000 });
    runner.enqueue('a', 'h');
    await flush();
    const call = calls[0]!;
    call.signal.addEventListener('abort', () => call.reject(call.signal.reason));
    await clock.advance(10_000);
    expect(call.signal.aborted).toBe(true);
    const result = reports[0]!.result;
    expect(result.kind).toBe('retry');
    expect((result as { error: MooringError }).error.code).toBe('MOORING_E_RECONCILE_TIMEOUT');
  });

  it('keeps the key busy until an overrunning reconcile really ends', async () => {
    const { clock, calls, runner } = setup({ timeoutMs: 1000 });
    runner.enqueue('a', 'h1');
    await flush();
    await clock.advance(1000);
    runner.enqueue('a', 'h2');
    await flush();
    expect(calls).toHaveLength(1);
    calls[0]!.resolve();
    await flush();
    expect(calls).toHaveLength(2);
  });

  it('stops: in-flight work finishes within the grace period, nothing new starts', async () => {
    const { clock, calls, runner } = setup({ concurrency: 1 });
    runner.enqueue('a', 'h');
    runner.enqueue('b', 'h');
    await flush();
    const stopped = runner.stop(5000);
    await clock.advance(1000);
    calls[0]!.resolve();
    expect(await stopped).toBe(true);
    expect(calls).toHaveLength(1);
  });

  it('stops: aborts in-flight work when the grace period runs out', async () => {
    const { clock, calls, runner } = setup();
    runner.enqueue('a', 'h');
    await flush();
    const call = calls[0]!;
    call.signal.addEventListener('abort', () => call.reject(call.signal.reason));
    const stopped = runner.stop(5000);
    await clock.advance(5000);
    expect(call.signal.aborted).toBe(true);
    expect(await stopped).toBe(false);
  });

  it('a run cut by stop() is a cancellation, with the reason given: no failure, no retry (regression: reported as a failure to retry)', async () => {
    const { clock, calls, runner, reports } = setup();
    runner.enqueue('a', 'h');
    await flush();
    const call = calls[0]!;
    call.signal.addEventListener('abort', () => call.reject(call.signal.reason));
    const reason = new MooringError('MOORING_E_LEADERSHIP_LOST', 'leadership lost');
    const stopped = runner.stop(0, 0, reason);
    await clock.advance(1);
    await stopped;
    await flush();
    expect(call.signal.reason).toBe(reason);
    expect(reports.map((r) => r.result)).toEqual([{ kind: 'cancelled', reason }]);
  });

  it('a timed-out run stays a failure, retried with backoff', async () => {
    const { clock, calls, runner, reports } = setup({ timeoutMs: 1000 });
    runner.enqueue('a', 'h');
    await flush();
    const call = calls[0]!;
    call.signal.addEventListener('abort', () => call.reject(call.signal.reason));
    await clock.advance(1000);
    await flush();
    expect(reports.map((r) => r.result.kind)).toEqual(['retry']);
  });

  it('a report that throws is logged, and the loop carries on (regression: swallowed without a line)', async () => {
    const clock = new FakeClock();
    const { calls, reconcile } = controllable();
    const lines: Record<string, unknown>[] = [];
    const runner = new Runner({
      reconcile,
      clock,
      concurrency: 1,
      logger: pino({ level: 'debug' }, { write: (l: string) => lines.push(JSON.parse(l)) }),
      onReport: () => {
        throw new Error('metrics exploded');
      },
    });
    runner.start();
    runner.enqueue('a', 'h');
    runner.enqueue('b', 'h');
    await flush();
    calls[0]!.resolve();
    await flush();
    expect(calls.map((c) => c.key)).toEqual(['a', 'b']);
    const logged = lines.filter((l) => l.msg === 'reconcile report failed');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ deploymentId: 'a', level: 50 });
  });

  it('forgets a key: no retry after its in-flight run fails', async () => {
    const { clock, calls, runner } = setup();
    runner.enqueue('a', 'h');
    await flush();
    runner.forget('a');
    calls[0]!.reject(new Error('x'));
    await clock.advance(600_000);
    expect(calls).toHaveLength(1);
  });

  it('resolves whenIdle once the queue is drained', async () => {
    const { calls, runner } = setup();
    runner.enqueue('a', 'h');
    let idle = false;
    void runner.whenIdle().then(() => {
      idle = true;
    });
    await flush();
    expect(idle).toBe(false);
    calls[0]!.resolve();
    await flush();
    expect(idle).toBe(true);
  });
});

describe('backoffDelayMs', () => {
  it('jitters within the fraction and never exceeds the cap', () => {
    expect(backoffDelayMs(3, { baseMs: 1000, jitterFraction: 0.2 }, () => 0)).toBe(3200);
    expect(backoffDelayMs(3, { baseMs: 1000, jitterFraction: 0.2 }, () => 1)).toBe(4800);
    expect(backoffDelayMs(40, { baseMs: 1000, maxMs: 60_000 }, () => 1)).toBe(60_000);
  });
});
