import { describe, expect, it } from 'vitest';
import { StatusStore } from '../../src/agent/status.ts';
import { heapHeldBy } from '../heap-held.ts';

const ENTRIES = 10_000;

/** A store of `ENTRIES` deployments, each observed, then reconciled as a resync does. */
function store(): StatusStore {
  const status = new StatusStore();
  const ids = Array.from({ length: ENTRIES }, (_, i) => `d-${String(i).padStart(6, '0')}`);
  for (const id of ids)
    status.observe({ id, name: id, namespace: 'apps', revision: null, controlPlaneStatus: 'READY' });
  for (const [i, id] of ids.entries()) {
    // Each run makes its own summary text; a resync's runs finish many to a millisecond.
    const changes = ['unchanged', 10 + (i % 5)].join(' ');
    status.record(id, { state: 'Ready', reason: null, changed: false, changes, atMs: 1_000 + (i >> 6) });
  }
  return status;
}

describe('StatusStore: what an entry holds', () => {
  it('shares the summaries, times and empty pause lists its entries hold alike (measured on the heap)', async () => {
    await heapHeldBy(store);
    const bytes = await heapHeldBy(store);
    // The entry (11 members in the object itself) and its map slot; the ids are the test's own.
    expect(bytes / ENTRIES).toBeLessThan(200);
  });

  it('keeps each entry as told: the shared texts and lists change nothing of what is shown', () => {
    const status = store();
    const [first] = status.list();
    expect(first).toMatchObject({
      lastChanges: 'unchanged 10',
      lastReconcileAt: new Date(1_000).toISOString(),
    });
    expect(first?.paused).toEqual([]);
    first?.paused.push('Deployment/apps/x');
    expect(status.pausedObjects()).toBe(0);
    status.record('d-000001', {
      state: 'Ready',
      reason: null,
      changed: true,
      changes: 'updated 1',
      atMs: 5,
      paused: ['x'],
    });
    expect(status.get('d-000001')).toMatchObject({ lastAppliedAt: new Date(5).toISOString(), paused: ['x'] });
    expect(status.pausedObjects()).toBe(1);
  });
});
