import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/kube/types.ts';
import { EventRecorder } from '../../src/reconcile/events.ts';

function recorder(opts: { fail?: boolean } = {}) {
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
  });
  return { rec, sent, advance: (ms: number) => (now += ms) };
}

const target = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'apps', name: 'shop-api', uid: 'u1' };

describe('EventRecorder', () => {
  it('writes a core/v1 Event about the target', async () => {
    const { rec, sent } = recorder();
    expect(await rec.record({ target, reason: 'Applied', type: 'Normal', message: 'created 2' })).toBe(true);
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
    expect(await rec.record(ev)).toBe(true);
    advance(30_000);
    expect(await rec.record(ev)).toBe(false);
    expect(await rec.record({ ...ev, message: 'another message' })).toBe(true);
    advance(30_000);
    expect(await rec.record(ev)).toBe(true);
    expect(sent.length).toBe(3);
    expect(new Set(sent.map((e) => e.metadata.name)).size).toBe(3);
  });

  it('never carries a known secret value, and never throws when the API refuses', async () => {
    const { rec, sent } = recorder();
    await rec.record({
      target,
      reason: 'ApplyFailed',
      type: 'Warning',
      message: 'value s3cr3t-canary leaked',
      secretValues: ['s3cr3t-canary'],
    });
    expect(sent[0]?.message).toBe('value [redacted] leaked');
    const failing = recorder({ fail: true });
    await expect(
      failing.rec.record({ target, reason: 'Applied', type: 'Normal', message: 'x' }),
    ).resolves.toBe(false);
  });
});
