import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  CONTROL_PLANE_REQUEST_BACKOFF,
  heartbeatBackoff,
  jitter,
  NO_BACKOFF,
  pollBackoff,
  pRetryBackoff,
  RECONCILE_BACKOFF,
  START_UP_BACKOFF,
} from '../src/backoff.ts';

const low = () => 0;
const mid = () => 0.5;
const high = () => 1;

describe('backoffDelay', () => {
  it('doubles from the base and stops at the cap', () => {
    const policy = { baseMs: 100, maxMs: 1000, jitter: 0 };
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(policy, n))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('stays finite and at the cap however many attempts failed', () => {
    expect(backoffDelay({ baseMs: 1, maxMs: 5000, jitter: 0 }, 10_000)).toBe(5000);
  });

  it('spreads by the jitter fraction either way', () => {
    const policy = { baseMs: 1000, maxMs: 60_000, jitter: 0.2 };
    expect(backoffDelay(policy, 3, low)).toBe(3200);
    expect(backoffDelay(policy, 3, mid)).toBe(4000);
    expect(backoffDelay(policy, 3, high)).toBe(4800);
  });

  it('lets a jittered delay pass the cap unless the policy holds it there', () => {
    const policy = { baseMs: 1000, maxMs: 2000, jitter: 0.1 };
    expect(backoffDelay(policy, 5, high)).toBe(2200);
    expect(backoffDelay({ ...policy, capJittered: true }, 5, high)).toBe(2000);
  });

  it('is never negative', () => {
    expect(backoffDelay({ baseMs: 1000, maxMs: 1000, jitter: 2 }, 1, low)).toBe(0);
  });
});

describe('each loop’s policy (the values the loops always had)', () => {
  it('reconcile: 1 s doubling to 5 min, +-20%, held to the cap', () => {
    expect(backoffDelay(RECONCILE_BACKOFF, 1, mid)).toBe(1000);
    expect(backoffDelay(RECONCILE_BACKOFF, 40, high)).toBe(300_000);
    expect(backoffDelay(RECONCILE_BACKOFF, 2, high)).toBe(2400);
  });

  it('start-up: 1 s doubling to 30 s, no jitter', () => {
    expect([1, 2, 5, 6, 7].map((n) => backoffDelay(START_UP_BACKOFF, n, high))).toEqual([
      1000, 2000, 16_000, 30_000, 30_000,
    ]);
  });

  it('poll: an eighth of the interval (at least 250 ms) doubling to the interval, +-10% past it', () => {
    expect(backoffDelay(pollBackoff(10_000), 1, mid)).toBe(1250);
    expect(backoffDelay(pollBackoff(1000), 1, mid)).toBe(250);
    expect(backoffDelay(pollBackoff(10_000), 9, high)).toBe(11_000);
    expect(backoffDelay(pollBackoff(10_000, 100), 2, mid)).toBe(200);
  });

  it('heartbeat: 5 s doubling, never later than the interval', () => {
    expect([1, 2, 3].map((n) => backoffDelay(heartbeatBackoff(15_000), n, high))).toEqual([
      5000, 10_000, 15_000,
    ]);
  });
});

describe('pRetryBackoff', () => {
  it('gives p-retry the policy’s base, cap and doubling, randomized when the policy jitters', () => {
    expect(pRetryBackoff(CONTROL_PLANE_REQUEST_BACKOFF)).toEqual({
      minTimeout: 250,
      maxTimeout: 5000,
      factor: 2,
      randomize: true,
    });
    expect(pRetryBackoff(NO_BACKOFF)).toEqual({ minTimeout: 0, maxTimeout: 0, factor: 2, randomize: false });
  });
});

describe('jitter', () => {
  it('scales by a uniform factor within the fraction', () => {
    expect([low, mid, high].map((r) => jitter(1000, 0.1, r))).toEqual([900, 1000, 1100]);
  });
});
