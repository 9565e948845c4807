import { describe, expect, it } from 'vitest';
import { describePlan, type PollPlanInput, planPoll } from '../../src/agent/plan-poll.ts';

/** An idle agent 100 s in, polling every 5 s, with a 60 s resync interval; each row changes what it names. */
const BASE: PollPlanInput = {
  nowMs: 100_000,
  queued: 0,
  lastStartedAtMs: 0,
  lastDrained: undefined,
  resyncIntervalMs: 60_000,
  pollIntervalMs: 5_000,
  pollJitter: 0.1,
};

type Expected = ReturnType<typeof planPoll>['kind'] | 'queued' | 'not-due' | 'resting' | 'memory-short';

const rows: Array<[rule: string, input: Partial<PollPlanInput>, expected: Expected]> = [
  [
    'the first poll is a resync (the cold start)',
    { lastStartedAtMs: undefined, resyncIntervalMs: 1e9 },
    'resync',
  ],
  ['work still queued: changes only', { queued: 1 }, 'queued'],
  [
    'work still queued beats everything, the cold start too',
    { queued: 3, lastStartedAtMs: undefined },
    'queued',
  ],
  ['an idle poll past the resync interval is a resync', {}, 'resync'],
  ['a heap short of room: changes only, no listing of every object', { memoryShort: true }, 'memory-short'],
  [
    'a heap short of room does not stop the cold start',
    { memoryShort: true, lastStartedAtMs: undefined },
    'resync',
  ],
  ['the last resync is more recent than the resync interval: changes only', { nowMs: 30_000 }, 'not-due'],
  ['the interval less the poll jitter is enough (54 s of 60 s)', { nowMs: 54_000 }, 'resync'],
  ['just short of that is not (53.999 s)', { nowMs: 53_999 }, 'not-due'],
  ['no resync interval: every idle poll is a resync', { resyncIntervalMs: 0, nowMs: 1 }, 'resync'],
  [
    'a resync that outlasted the poll interval rests as long as it took',
    { resyncIntervalMs: 0, lastDrained: { atMs: 95_000, tookMs: 12_000 } },
    'resting',
  ],
  [
    'the rest is over once the duration (less the jitter) has passed',
    { resyncIntervalMs: 0, lastDrained: { atMs: 89_200, tookMs: 12_000 } },
    'resync',
  ],
  [
    'a resync that fitted in the poll interval never rests',
    { resyncIntervalMs: 0, lastDrained: { atMs: 99_999, tookMs: 5_000 } },
    'resync',
  ],
  [
    'without a poll interval resyncs never rest',
    { resyncIntervalMs: 0, pollIntervalMs: undefined, lastDrained: { atMs: 99_999, tookMs: 50_000 } },
    'resync',
  ],
  [
    'not due is said before resting',
    { nowMs: 10_000, lastDrained: { atMs: 9_000, tookMs: 8_000 } },
    'not-due',
  ],
];

describe('planPoll', () => {
  it.each(rows)('%s', (_rule, overrides, expected) => {
    const plan = planPoll({ ...BASE, ...overrides });
    expect(plan.kind === 'resync' ? 'resync' : plan.reason).toBe(expected);
    expect(plan.atMs).toBe(overrides.nowMs ?? BASE.nowMs);
  });

  it('marks only the first resync as the cold start', () => {
    expect(planPoll({ ...BASE, lastStartedAtMs: undefined })).toEqual({
      kind: 'resync',
      atMs: 100_000,
      first: true,
    });
    expect(planPoll(BASE)).toEqual({ kind: 'resync', atMs: 100_000, first: false });
  });
});

describe('describePlan', () => {
  it('says why a poll queues changes only, with the figures behind it; nothing for a resync', () => {
    const drained = { atMs: 95_000, tookMs: 12_000 };
    expect(describePlan(planPoll({ ...BASE, queued: 2 }), { queued: 2, lastDrained: undefined })).toEqual({
      fields: { queued: 2 },
      message: 'previous resync still queued: queueing changes only',
    });
    expect(describePlan(planPoll({ ...BASE, nowMs: 1 }), BASE)?.message).toBe(
      'resync not due yet: queueing changes only',
    );
    const resting = planPoll({ ...BASE, resyncIntervalMs: 0, lastDrained: drained });
    expect(describePlan(resting, { queued: 0, lastDrained: drained })?.fields).toEqual({
      lastResyncTookMs: 12_000,
    });
    expect(describePlan(planPoll(BASE), BASE)).toBeUndefined();
  });
});
