/**
 * Field ownership of non-apply writes (create, update, patches), as the apiserver's field manager
 * records it: https://kubernetes.io/docs/reference/using-api/server-side-apply/#using-server-side-apply-in-a-controller
 * ("Update" operations), and the 409 wording of apply conflicts.
 */
import { describe, expect, it } from 'vitest';
import {
  conflictStatus,
  type KubeObject,
  recordUpdate,
  serverSideApply,
} from '../../../src/sandbox/apply/index.ts';
import { deployment, entry, stored, T0, T1, T2, T3 } from './fixtures.ts';

function applied(live: KubeObject | undefined, config: KubeObject, manager: string, now: string) {
  const r = serverSideApply({ live, applied: config, manager, force: false, now });
  if (!r.ok) throw new Error('conflict');
  return stored(r.object);
}

function withReplicas(obj: KubeObject, replicas: number): KubeObject {
  return { ...obj, spec: { ...(obj.spec as Record<string, unknown>), replicas } };
}

describe('recordUpdate', () => {
  it('kubectl edit of .spec.replicas moves it from the applier to an Update manager; the next apply conflicts', () => {
    const live = applied(undefined, deployment({ replicas: 2 }), 'mooring', T0);
    const edited = recordUpdate({ live, updated: withReplicas(live, 7), manager: 'kubectl-edit', now: T1 });
    expect(entry(edited, 'kubectl-edit', 'Update')).toMatchObject({
      apiVersion: 'apps/v1',
      time: T1,
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    });
    expect(entry(edited, 'mooring')?.fieldsV1['f:spec']).not.toHaveProperty('f:replicas');
    const again = serverSideApply({
      live: edited,
      applied: deployment({ replicas: 3 }),
      manager: 'mooring',
      force: false,
      now: T2,
    });
    expect(again).toEqual({
      ok: false,
      conflicts: [
        { manager: 'kubectl-edit', apiVersion: 'apps/v1', field: '.spec.replicas', operation: 'Update' },
      ],
    });
  });

  it('a create (POST) records every field it set, maps included as "." members, minus system metadata', () => {
    const created = recordUpdate({
      live: undefined,
      updated: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'c', namespace: 'default', labels: { a: '1' } },
        data: { k: 'v' },
      },
      manager: 'kubectl-create',
      now: T0,
    });
    expect(created.metadata.managedFields).toEqual([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:data': { '.': {}, 'f:k': {} },
          'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } },
        },
      },
    ]);
  });

  it('an update that changes nothing keeps managedFields and times as they were', () => {
    const live = applied(undefined, deployment({ replicas: 2 }), 'mooring', T0);
    const same = recordUpdate({ live, updated: live, manager: 'kubectl-edit', now: T1 });
    expect(same.metadata.managedFields).toEqual(live.metadata.managedFields);
  });

  it('an update removing a field releases it from every manager', () => {
    const live = applied(undefined, deployment({ replicas: 2, labels: { a: '1', b: '2' } }), 'mooring', T0);
    const updated = { ...live, metadata: { ...live.metadata, labels: { a: '1' } } };
    const r = recordUpdate({ live, updated, manager: 'kubectl-edit', now: T1 });
    expect(entry(r, 'mooring')?.fieldsV1['f:metadata']).toEqual({ 'f:labels': { 'f:a': {} } });
    expect(entry(r, 'kubectl-edit')).toBeUndefined();
  });

  it('an existing object nobody tracks stays untracked after an update (skip non-applied)', () => {
    const untracked = stored(deployment({ replicas: 1 }));
    const r = recordUpdate({
      live: untracked,
      updated: withReplicas(untracked, 2),
      manager: 'kubectl-edit',
      now: T1,
    });
    expect(r.metadata.managedFields).toBeUndefined();
    expect((r.spec as { replicas: number }).replicas).toBe(2);
  });

  it('an update sending managedFields: [{}] clears field tracking', () => {
    const live = applied(undefined, deployment({ replicas: 2 }), 'mooring', T0);
    const updated = { ...live, metadata: { ...live.metadata, managedFields: [{}] } } as unknown as KubeObject;
    expect(recordUpdate({ live, updated, manager: 'm', now: T1 }).metadata.managedFields).toBeUndefined();
  });

  it('a status subresource write is owned with subresource "status" and cannot change spec', () => {
    const live = applied(undefined, deployment({ replicas: 2 }), 'mooring', T0);
    const updated = { ...withReplicas(live, 9), status: { readyReplicas: 2 } };
    const r = recordUpdate({ live, updated, manager: 'controller', now: T1, subresource: 'status' });
    expect((r.spec as { replicas: number }).replicas).toBe(2);
    expect(r.status).toEqual({ readyReplicas: 2 });
    expect(entry(r, 'controller')).toMatchObject({
      subresource: 'status',
      fieldsV1: { 'f:status': { '.': {}, 'f:readyReplicas': {} } },
    });
  });

  it('an update of the main resource cannot change status (reset by the strategy) and does not own it', () => {
    const live = {
      ...applied(undefined, deployment({ replicas: 2 }), 'mooring', T0),
      status: { replicas: 2 },
    };
    const r = recordUpdate({
      live,
      updated: { ...withReplicas(live, 3), status: { replicas: 99 } },
      manager: 'edit',
      now: T1,
    });
    expect(r.status).toEqual({ replicas: 2 });
    expect(entry(r, 'edit')?.fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
  });

  it('keeps at most 10 Update managers, folding the oldest into ancient-changes', () => {
    let live = applied(undefined, deployment({ replicas: 1 }), 'mooring', T0);
    for (let i = 0; i < 11; i++) {
      const now = new Date(Date.parse(T1) + i * 1000).toISOString();
      const updated = {
        ...live,
        metadata: { ...live.metadata, labels: { ...(live.metadata.labels as object), [`l${i}`]: 'x' } },
      };
      live = recordUpdate({ live, updated, manager: `editor-${i}`, now });
    }
    const updaters = live.metadata.managedFields?.filter((e) => e.operation === 'Update') ?? [];
    expect(updaters.length).toBe(10);
    const ancient = updaters.find((e) => e.manager === 'ancient-changes');
    // The two oldest editors are folded together, with the time of the later one.
    expect(ancient?.fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { 'f:l0': {}, 'f:l1': {} } } });
    expect(ancient?.time).toBe('2026-01-01T00:01:01Z');
    expect(updaters.map((e) => e.manager)).not.toContain('editor-0');
  });
});

describe('conflictStatus', () => {
  it('formats one conflict as the apiserver does', () => {
    expect(
      conflictStatus([
        { manager: 'kubectl-client-side-apply', apiVersion: 'apps/v1', field: '.spec.replicas' },
      ]),
    ).toEqual({
      message:
        'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas',
      causes: [
        {
          type: 'FieldManagerConflict',
          message: 'conflict with "kubectl-client-side-apply" using apps/v1',
          field: '.spec.replicas',
        },
      ],
    });
  });

  it('formats several conflicts grouped by manager, Apply managers without apiVersion', () => {
    const s = conflictStatus([
      { manager: 'zeta', apiVersion: 'apps/v1', field: '.spec.replicas', operation: 'Update' },
      { manager: 'alpha', apiVersion: 'apps/v1', field: '.metadata.labels.a', operation: 'Apply' },
      { manager: 'zeta', apiVersion: 'apps/v1', field: '.spec.paused', operation: 'Update' },
    ]);
    expect(s.message).toBe(
      'Apply failed with 3 conflicts: conflicts with "alpha":\n- .metadata.labels.a\nconflicts with "zeta" using apps/v1:\n- .spec.replicas\n- .spec.paused',
    );
    expect(s.causes.map((c) => c.message)).toEqual([
      'conflict with "zeta" using apps/v1',
      'conflict with "alpha"',
      'conflict with "zeta" using apps/v1',
    ]);
  });

  it('names the subresource of a status manager', () => {
    const s = conflictStatus([
      { manager: 'c', apiVersion: 'v1', field: '.status', operation: 'Update', subresource: 'status' },
    ]);
    expect(s.causes[0]?.message).toBe('conflict with "c" with subresource "status" using v1');
  });

  it('the conflicts an apply returns format into the 409 the server sends', () => {
    const live = applied(undefined, deployment({ replicas: 2, labels: { a: '1' } }), 'mooring', T0);
    const r = serverSideApply({
      live,
      applied: { ...deployment({ replicas: 5, labels: { a: '2' } }) },
      manager: 'other',
      force: false,
      now: T3,
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(conflictStatus(r.conflicts).message).toBe(
      'Apply failed with 2 conflicts: conflicts with "mooring":\n- .metadata.labels.a\n- .spec.replicas',
    );
  });
});

describe('kubectl client-side apply to server-side apply', () => {
  const LAST = 'kubectl.kubernetes.io/last-applied-configuration';
  /** An object as `kubectl apply` (client-side) leaves it: Update by kubectl-client-side-apply. */
  function clientSideApplied(replicas: number): KubeObject {
    const config = deployment({ replicas });
    const annotated = {
      ...config,
      metadata: { ...config.metadata, annotations: { [LAST]: `${JSON.stringify(config)}\n` } },
    };
    return stored(
      recordUpdate({ live: undefined, updated: annotated, manager: 'kubectl-client-side-apply', now: T0 }),
    );
  }

  it('conflicts on fields the last-applied annotation still describes are taken over by manager "kubectl"', () => {
    const live = clientSideApplied(2);
    const r = serverSideApply({
      live,
      applied: deployment({ replicas: 3 }),
      manager: 'kubectl',
      force: false,
      now: T1,
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect((r.object.spec as { replicas: number }).replicas).toBe(3);
    // The annotation now describes the server-side applied configuration (keys sorted, as Go writes it).
    const annotation = (r.object.metadata.annotations as Record<string, string>)[LAST] as string;
    expect(JSON.parse(annotation)).toEqual(deployment({ replicas: 3 }));
    expect(annotation.endsWith('\n')).toBe(true);
  });

  it('a field changed since the last client-side apply still conflicts', () => {
    const live = clientSideApplied(2);
    const edited = recordUpdate({
      live,
      updated: { ...live, spec: { ...(live.spec as object), replicas: 5 } },
      manager: 'kubectl-edit',
      now: T1,
    });
    const r = serverSideApply({
      live: edited,
      applied: deployment({ replicas: 3 }),
      manager: 'kubectl',
      force: false,
      now: T2,
    });
    expect(r.ok ? [] : r.conflicts.map((c) => `${c.manager} ${c.field}`)).toEqual([
      'kubectl-edit .spec.replicas',
    ]);
  });

  it('another field manager gets no such allowance', () => {
    const live = clientSideApplied(2);
    const r = serverSideApply({
      live,
      applied: deployment({ replicas: 3 }),
      manager: 'mooring',
      force: false,
      now: T1,
    });
    expect(r.ok).toBe(false);
  });
});
