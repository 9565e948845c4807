import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { EventRecorder, type EventRecorderOptions } from '../../src/reconcile/events.ts';
import { REDACTED, Redactor } from '../../src/redact.ts';
import { capturedLogger } from '../kube/sandbox.ts';

function recorder(opts: { fail?: boolean } & Partial<EventRecorderOptions> = {}) {
  const sent: KubeObject[] = [];
  let now = Date.parse('2026-01-01T00:00:00Z');
  const rec = new EventRecorder({
    sink: {
      create: async (e) => {
        if (opts.fail) throw Object.assign(new Error('boom'), { code: 'MOORING_E_KUBE_SERVER' });
        sent.push(e);
        return e;
      },
    },
    clock: () => now,
    instance: 'listener-1',
    ...opts,
  });
  return { rec, sent, advance: (ms: number) => (now += ms) };
}

const target = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'apps', name: 'shop-api', uid: 'u1' };
const applied = (message: string) => ({
  target,
  reason: 'Applied' as const,
  type: 'Normal' as const,
  message,
});

describe('EventRecorder', () => {
  it('writes a core/v1 Event about the target', async () => {
    const { rec, sent } = recorder();
    expect(rec.record(applied('created 2'))).toBe(true);
    expect(await rec.flush()).toBe(0);
    expect(sent[0]).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { namespace: 'apps' },
      involvedObject: { kind: 'Deployment', name: 'shop-api', namespace: 'apps', uid: 'u1' },
      reason: 'Applied',
      type: 'Normal',
      message: 'created 2',
      source: { component: 'mooring' },
      reportingInstance: 'listener-1',
      count: 1,
      firstTimestamp: '2026-01-01T00:00:00.000Z',
    });
  });

  it('sends at most one identical event per object per minute', async () => {
    const { rec, sent, advance } = recorder();
    const ev = {
      target,
      reason: 'ApplyFailed' as const,
      type: 'Warning' as const,
      message: 'MOORING_E_KUBE_SERVER: x',
    };
    expect(rec.record(ev)).toBe(true);
    advance(30_000);
    expect(rec.record(ev)).toBe(false);
    expect(rec.record({ ...ev, message: 'another message' })).toBe(true);
    advance(30_000);
    expect(rec.record(ev)).toBe(true);
    await rec.flush();
    expect(sent.length).toBe(3);
    expect(new Set(sent.map((e) => e.metadata.name)).size).toBe(3);
  });

  it('never carries a known secret value, and never throws when the API refuses', async () => {
    const redactor = new Redactor();
    redactor.set('d1', ['s3cr3t-canary']);
    const { rec, sent } = recorder({ scrubber: redactor });
    rec.record({ target, reason: 'ApplyFailed', type: 'Warning', message: 'value s3cr3t-canary leaked' });
    await rec.flush();
    expect(sent[0]?.message).toBe('value [redacted] leaked');
    const log = capturedLogger();
    const failing = recorder({ fail: true, logger: log.logger });
    expect(failing.rec.record(applied('x'))).toBe(true);
    expect(await failing.rec.flush()).toBe(0);
    expect(log.text()).toContain('event not recorded');
    expect(log.text()).toContain('MOORING_E_KUBE_SERVER');
  });

  it('scrubs every value its redactor knows, before the message is cut to 1 KiB', async () => {
    const redactor = new Redactor();
    const value = `another-deployments-${'x'.repeat(40)}`;
    redactor.set('d2', [value]);
    const { rec, sent } = recorder({ scrubber: redactor });
    // The value straddles the 1 KiB cut: cut first, a part of it would be left.
    const message = `${'m'.repeat(1000)} ${value} and a 409 quoting it`;
    rec.record({ target, reason: 'ApplyFailed', type: 'Warning', message });
    await rec.flush();
    expect(sent[0]?.message).toBe(`${'m'.repeat(1000)} ${REDACTED} and a 409 quoting it`.slice(0, 1024));
    expect(sent[0]?.message).not.toContain('another-deployments');
  });

  it('returns before the event is written, and writes queued events one at a time, in order', async () => {
    const sent: string[] = [];
    const gates: Array<() => void> = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const rec = new EventRecorder({
      sink: {
        create: async (e) => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await new Promise<void>((resolve) => gates.push(resolve));
          inFlight--;
          sent.push(String(e.message));
          return e;
        },
      },
    });
    for (const m of ['a', 'b', 'c']) expect(rec.record(applied(m))).toBe(true);
    expect(sent).toEqual([]);
    expect(rec.pending).toBe(2);
    // Out of time: the one being written and the two behind it are still unwritten.
    expect(await rec.flush(20)).toBe(3);
    while (sent.length < 3) {
      await new Promise((resolve) => setImmediate(resolve));
      gates.shift()?.();
    }
    expect(await rec.flush()).toBe(0);
    expect(sent).toEqual(['a', 'b', 'c']);
    expect(maxInFlight).toBe(1);
  });

  it('drops events past its bound, with one warning and a count once the queue has drained', async () => {
    const log = capturedLogger();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sent: string[] = [];
    const rec = new EventRecorder({
      sink: {
        create: async (e) => {
          await held;
          sent.push(String(e.message));
          return e;
        },
      },
      maxPending: 2,
      logger: log.logger,
    });
    // The first is being written, two wait; the next three are dropped.
    const queued = ['m0', 'm1', 'm2', 'm3', 'm4', 'm5'].map((m) => rec.record(applied(m)));
    expect(queued).toEqual([true, true, true, false, false, false]);
    expect(log.text().match(/event dropped/g)?.length).toBe(1);
    release();
    await rec.flush();
    expect(sent).toEqual(['m0', 'm1', 'm2']);
    expect(log.text()).toContain('3 events were dropped while the queue was full');
  });

  it('records nothing while told not to (a replica that is not leading)', async () => {
    let leading = false;
    const { rec, sent } = recorder({ recording: () => leading });
    expect(rec.record(applied('standby'))).toBe(false);
    leading = true;
    expect(rec.record(applied('leader'))).toBe(true);
    await rec.flush();
    expect(sent.map((e) => e.message)).toEqual(['leader']);
  });
});

describe('EventRecorder.flushAtShutdown', () => {
  it('says how many events were left unwritten when the time ran out, and nothing when all were written', async () => {
    const log = capturedLogger();
    let release: () => void = () => {};
    const stuck = new EventRecorder({
      sink: { create: (e) => new Promise((resolve) => (release = () => resolve(e))) },
      logger: log.logger,
    });
    stuck.record(applied('one'));
    await stuck.flushAtShutdown(10);
    expect(log.lines().filter((l) => l.unwritten === 1)).toHaveLength(1);
    release();
    const quiet = capturedLogger();
    const { rec } = recorder({ logger: quiet.logger });
    rec.record(applied('two'));
    await rec.flushAtShutdown(1_000);
    expect(quiet.lines().filter((l) => l.unwritten !== undefined)).toEqual([]);
  });
});
