import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { assessObject, deletionHealth, HealthTally, rollUp } from '../../src/reconcile/health.ts';

function dep(spec: Record<string, unknown>, status: Record<string, unknown>, generation = 2): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'api', namespace: 'ns', generation },
    spec,
    status,
  };
}

const available = { type: 'Available', status: 'True' };

describe('per-object health (kstatus style)', () => {
  it('Deployment: Available with updated/ready replicas matching → Ready', () => {
    const h = assessObject(
      dep(
        { replicas: 3 },
        {
          observedGeneration: 2,
          replicas: 3,
          updatedReplicas: 3,
          readyReplicas: 3,
          availableReplicas: 3,
          conditions: [available],
        },
      ),
    );
    expect(h).toEqual({ id: 'Deployment/ns/api', state: 'Ready', reason: '3 of 3 replicas ready' });
  });

  it('Deployment: ProgressDeadlineExceeded → Failed', () => {
    const h = assessObject(
      dep(
        { replicas: 1 },
        {
          observedGeneration: 2,
          conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }],
        },
      ),
    );
    expect(h.state).toBe('Failed');
    expect(h.reason).toBe('progress deadline exceeded');
  });

  it('Deployment: a generation not yet observed → Progressing', () => {
    const h = assessObject(
      dep(
        { replicas: 1 },
        {
          observedGeneration: 1,
          replicas: 1,
          updatedReplicas: 1,
          readyReplicas: 1,
          availableReplicas: 1,
          conditions: [available],
        },
      ),
    );
    expect(h).toMatchObject({
      state: 'Progressing',
      reason: 'waiting for the controller to observe generation 2',
    });
  });

  it.each([
    [{ replicas: 3, updatedReplicas: 1, readyReplicas: 3, availableReplicas: 3 }, '1 of 3 replicas updated'],
    [
      { replicas: 4, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 },
      '1 old replicas pending termination',
    ],
    [
      { replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 2 },
      '2 of 3 updated replicas available',
    ],
  ])('Deployment rollout in progress %j → %s', (status, reason) => {
    expect(
      assessObject(dep({ replicas: 3 }, { observedGeneration: 2, conditions: [available], ...status })),
    ).toMatchObject({ state: 'Progressing', reason });
  });

  it('Deployment scaled to zero (UNUSED) is Ready', () => {
    expect(assessObject(dep({ replicas: 0 }, { observedGeneration: 2 })).state).toBe('Ready');
  });

  it('StatefulSet: ready == replicas and currentRevision == updateRevision → Ready', () => {
    const sts = (status: Record<string, unknown>): KubeObject => ({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'pg', namespace: 'ns', generation: 1 },
      spec: { replicas: 1 },
      status: { observedGeneration: 1, ...status },
    });
    expect(assessObject(sts({ readyReplicas: 1, currentRevision: 'r1', updateRevision: 'r1' })).state).toBe(
      'Ready',
    );
    expect(
      assessObject(sts({ readyReplicas: 1, currentRevision: 'r1', updateRevision: 'r2' })),
    ).toMatchObject({ state: 'Progressing', reason: 'rolling update in progress' });
    expect(assessObject(sts({ readyReplicas: 0 }))).toMatchObject({
      state: 'Progressing',
      reason: '0 of 1 replicas ready',
    });
  });

  it('Services, Secrets, HPA, PDB, NetworkPolicy are Ready when present', () => {
    for (const kind of [
      'Service',
      'Secret',
      'HorizontalPodAutoscaler',
      'PodDisruptionBudget',
      'NetworkPolicy',
    ]) {
      expect(assessObject({ apiVersion: 'v1', kind, metadata: { name: 'x', namespace: 'ns' } }).state).toBe(
        'Ready',
      );
    }
  });
});

describe('roll-up per deployment', () => {
  it('the worst object decides and is named in the reason', () => {
    const ready = { id: 'Service/ns/a', state: 'Ready' as const, reason: 'present' };
    const prog = { id: 'Deployment/ns/a', state: 'Progressing' as const, reason: '1 of 2 replicas ready' };
    const failed = {
      id: 'Deployment/ns/a-queue',
      state: 'Failed' as const,
      reason: 'progress deadline exceeded',
    };
    expect(rollUp([ready])).toMatchObject({ state: 'Ready' });
    expect(rollUp([ready, prog])).toMatchObject({
      state: 'Progressing',
      reason: 'Deployment/ns/a: 1 of 2 replicas ready',
    });
    expect(rollUp([prog, failed, ready])).toMatchObject({
      state: 'Failed',
      reason: 'Deployment/ns/a-queue: progress deadline exceeded',
      code: 'MOORING_E_ROLLOUT_FAILED',
    });
  });

  it('of equally bad objects the first id decides, whatever the order they come in (rendered or listed)', () => {
    const queue = {
      id: 'Deployment/ns/a-queue',
      state: 'Progressing' as const,
      reason: '0 of 1 replicas ready',
    };
    const api = { id: 'Deployment/ns/a', state: 'Progressing' as const, reason: '1 of 2 replicas ready' };
    const db = {
      id: 'StatefulSet/ns/a-postgres',
      state: 'Progressing' as const,
      reason: 'rolling update in progress',
    };
    for (const order of [
      [queue, api, db],
      [db, queue, api],
      [api, db, queue],
    ]) {
      expect(rollUp(order).reason).toBe('Deployment/ns/a: 1 of 2 replicas ready');
    }
  });

  it('deleting → Deleting while objects remain, then Deleted', () => {
    expect(
      deletionHealth([{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'a', namespace: 'ns' } }]),
    ).toMatchObject({ state: 'Deleting' });
    expect(deletionHealth([])).toMatchObject({ state: 'Deleted' });
  });
});

describe('HealthTally', () => {
  it('says what rollUp says of the same objects, in any order, holding only the worst', () => {
    const objects = [
      { id: 'Service/ns/a', state: 'Ready' as const, reason: 'present' },
      { id: 'Deployment/ns/z', state: 'Progressing' as const, reason: '0 of 1 replicas ready' },
      { id: 'Deployment/ns/b', state: 'Progressing' as const, reason: '1 of 2 replicas ready' },
    ];
    for (const order of [objects, [...objects].reverse()]) {
      const tally = new HealthTally();
      for (const o of order) tally.add(o);
      const { state, reason } = rollUp(objects);
      expect(tally.health()).toMatchObject({ state, reason });
    }
    const ready = new HealthTally();
    ready.add(objects[0]!);
    expect(ready.health()).toMatchObject({ state: 'Ready', reason: rollUp([objects[0]!]).reason });
    const failed = new HealthTally();
    for (const o of [
      ...objects,
      { id: 'Deployment/ns/x', state: 'Failed' as const, reason: 'progress deadline exceeded' },
    ])
      failed.add(o);
    expect(failed.health()).toMatchObject({ state: 'Failed', code: 'MOORING_E_ROLLOUT_FAILED' });
  });
});
