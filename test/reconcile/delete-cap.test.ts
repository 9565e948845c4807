/**
 * The per-cycle cap on AWAITING_DELETE deletions (src/reconcile/delete-cap.ts): a control plane that
 * marks more deployments for deletion than the cap allows in one cycle (a bug, or a compromise)
 * deletes nothing at all that cycle; the refusal is an error line, a metric and each deployment's
 * status. Within the cap, deletions are queued as before.
 */
import { describe, expect, it } from 'vitest';
import { deleteCap } from '../../src/reconcile/delete-cap.ts';
import { Deployments } from '../../src/agent/deployments.ts';
import type { DesiredDeployment, Snapshot } from '../../src/agent/poller.ts';
import type { Runner } from '../../src/agent/runner.ts';
import { StatusStore } from '../../src/agent/status.ts';
import type { DeploymentRecord } from '../../src/contract/index.ts';
import { createLogger } from '../../src/log.ts';
import { createMetrics } from '../../src/ops/metrics.ts';
import type { ReconcileResult } from '../../src/reconcile/result.ts';
import { FakeClock } from '../agent/fake-clock.ts';

function desired(id: string, status = 'READY'): DesiredDeployment {
  return {
    deployment: {
      id,
      name: id,
      status,
      source_config: { listener_config: { k8s_namespace: 'apps' } },
      latest_revision_id: null,
    } as unknown as DeploymentRecord,
    revision: undefined,
    hash: `${id}:${status}`,
  };
}

const snapshot = (ds: DesiredDeployment[]): Snapshot => ({ deployments: ds, rejected: [], atMs: 0 });

function setup() {
  const queued: string[] = [];
  const forgotten: string[] = [];
  const runner = {
    depth: 0,
    enqueue: (key: string) => queued.push(key),
    forget: (key: string) => forgotten.push(key),
    resync: () => {},
    whenIdle: () => Promise.resolve(),
  } as unknown as Runner;
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'info',
    destination: { write: (l: string) => lines.push(JSON.parse(l) as Record<string, unknown>) },
  });
  const metrics = createMetrics({ version: 'test' });
  const status = new StatusStore();
  const deployments = new Deployments({
    status,
    logger,
    metrics,
    clock: new FakeClock(),
    reconcile: async () =>
      ({
        changeSet: { entries: [], dryRun: false },
        health: { state: 'Ready', reason: 'ready' },
      }) as unknown as ReconcileResult,
    collectOrphans: async () => ({}),
  });
  return { deployments, runner, queued, forgotten, lines, metrics, status };
}

describe('deleteCap', () => {
  it('is the larger of 5 deployments and a quarter of the listener’s', () => {
    expect(deleteCap(4)).toBe(5);
    expect(deleteCap(40)).toBe(10);
    expect(deleteCap(1000)).toBe(250);
  });
});

describe('AWAITING_DELETE past the per-cycle cap', () => {
  it('every deployment marked for deletion at once: none deleted, an error line, a metric, each one Refused (regression: all deleted in one cycle)', async () => {
    const { deployments, runner, queued, lines, metrics, status } = setup();
    const all = Array.from({ length: 12 }, (_, i) => desired(`d${i}`, 'AWAITING_DELETE'));
    await deployments.applySnapshot(snapshot(all), runner, new AbortController().signal);
    expect(queued).toEqual([]);
    const line = lines.find((l) => l.code === 'MOORING_E_DELETE_CAP_EXCEEDED');
    expect(line?.level).toBe('error');
    expect(line?.due).toBe(12);
    expect(line?.cap).toBe(5);
    expect(await metrics.registry.getSingleMetricAsString('mooring_delete_cap_refusals_total')).toMatch(
      /mooring_delete_cap_refusals_total 1$/m,
    );
    expect(status.get('d3')).toMatchObject({ state: 'Refused' });
    expect(String(status.get('d3')?.reason)).toMatch(/^MOORING_E_DELETE_CAP_EXCEEDED: /);
  });

  it('within the cap, deletions are queued as before; the rest of the listener is never held up', async () => {
    const { deployments, runner, queued } = setup();
    const ds = [
      ...Array.from({ length: 3 }, (_, i) => desired(`gone${i}`, 'AWAITING_DELETE')),
      ...Array.from({ length: 9 }, (_, i) => desired(`live${i}`)),
    ];
    await deployments.applySnapshot(snapshot(ds), runner, new AbortController().signal);
    expect(queued.sort()).toEqual(ds.map((d) => d.deployment.id).sort());
  });

  it('over the cap, the other deployments are still reconciled', async () => {
    const { deployments, runner, queued } = setup();
    const ds = [
      ...Array.from({ length: 8 }, (_, i) => desired(`gone${i}`, 'AWAITING_DELETE')),
      ...Array.from({ length: 4 }, (_, i) => desired(`live${i}`)),
    ];
    await deployments.applySnapshot(snapshot(ds), runner, new AbortController().signal);
    expect(queued.sort()).toEqual(['live0', 'live1', 'live2', 'live3']);
  });
});

describe('AWAITING_DELETE records whose objects are gone', () => {
  it('do not count toward the cap, so lingering records never hold real deletions back (a restarted agent knows them from its listing)', async () => {
    const queued: string[] = [];
    const runner = {
      depth: 0,
      enqueue: (key: string) => queued.push(key),
      forget: () => {},
      resync: () => {},
      whenIdle: () => Promise.resolve(),
    } as unknown as Runner;
    const lingering = Array.from({ length: 10 }, (_, i) => desired(`old${i}`, 'AWAITING_DELETE'));
    const due = desired('due', 'AWAITING_DELETE');
    const deployments = new Deployments({
      status: new StatusStore(),
      logger: createLogger({ level: 'silent' }),
      metrics: createMetrics({ version: 'test' }),
      clock: new FakeClock(),
      reconcile: async () =>
        ({
          changeSet: { entries: [], dryRun: false },
          health: { state: 'Ready', reason: 'ready' },
        }) as unknown as ReconcileResult,
      collectOrphans: async () => ({}),
      // The latest complete listing: only `due` still owns objects.
      ownsObjects: (id) => id === 'due',
    });
    await deployments.applySnapshot(snapshot([...lingering, due]), runner, new AbortController().signal);
    expect(queued).toContain('due');
  });
});
