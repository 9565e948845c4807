/**
 * The liveness rule the operator guide states for /healthz: 503 when the poll loop is more than
 * max(60 s, 3 poll intervals) past its own schedule, or one poll cycle has run for more than
 * max(5 min, 5 intervals); a standby (no poll loop) is live; readiness names leadership.
 */
import { describe, expect, it } from 'vitest';
import { pollLoopHealth, readiness } from '../../src/agent/agent-checks.ts';

const NOW = 10_000_000;

/** A poll loop due `overdueS` seconds ago and inside a cycle for `busyS` seconds (or idle). */
function loop(overdueS: number, busyS?: number) {
  return {
    nextDueAtMs: NOW - overdueS * 1000,
    cycleStartedAtMs: busyS === undefined ? undefined : NOW - busyS * 1000,
  };
}

describe('liveness of the poll loop (/healthz)', () => {
  it('fails past max(60 s, 3 poll intervals) overdue, not before', () => {
    // A 15 s interval: the 60 s floor rules.
    expect(pollLoopHealth(NOW, 15_000, loop(60)).ok).toBe(true);
    expect(pollLoopHealth(NOW, 15_000, loop(61)).ok).toBe(false);
    // A 60 s interval: three intervals rule.
    expect(pollLoopHealth(NOW, 60_000, loop(180)).ok).toBe(true);
    const late = pollLoopHealth(NOW, 60_000, loop(181));
    expect(late.ok).toBe(false);
    expect(late.checks.pollLoop?.detail).toBe('poll loop overdue by 181 s');
  });

  it('fails when one cycle runs past max(5 min, 5 poll intervals), not before', () => {
    expect(pollLoopHealth(NOW, 15_000, loop(0, 300)).ok).toBe(true);
    expect(pollLoopHealth(NOW, 15_000, loop(0, 301)).ok).toBe(false);
    expect(pollLoopHealth(NOW, 120_000, loop(0, 600)).ok).toBe(true);
    const stuck = pollLoopHealth(NOW, 120_000, loop(0, 601));
    expect(stuck.ok).toBe(false);
    expect(stuck.checks.pollLoop?.detail).toBe('one poll cycle has been running for 601 s');
  });

  it('a standby, which has no poll loop, is live', () => {
    expect(pollLoopHealth(NOW, 15_000, undefined)).toEqual({
      ok: true,
      checks: { pollLoop: { ok: true, detail: 'standby (not the leader)' } },
    });
  });
});

describe('readiness (/readyz)', () => {
  it('needs start-up passed and Kubernetes reachable; a standby is ready', () => {
    expect(readiness(true, true, false).ok).toBe(true);
    expect(readiness(true, true, false).checks.leader).toEqual({ ok: true, detail: 'standby' });
    expect(readiness(true, true, true).checks.leader).toEqual({ ok: true, detail: 'leader' });
    expect(readiness(false, true, true).ok).toBe(false);
    expect(readiness(true, false, true).ok).toBe(false);
  });
});
