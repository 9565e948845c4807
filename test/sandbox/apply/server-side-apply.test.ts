/**
 * Server-side apply as documented in https://kubernetes.io/docs/reference/using-api/server-side-apply/
 * and implemented by structured-merge-diff: each test names the behaviour it checks.
 */
import { describe, expect, it } from 'vitest';
import { type KubeObject, recordUpdate, serverSideApply } from '../../../src/sandbox/apply/index.ts';
import { deployment, dig, entry, podSpec, stored, T0, T1, T2, T3 } from './fixtures.ts';

function apply(
  live: KubeObject | undefined,
  applied: KubeObject,
  manager = 'mooring',
  now = T0,
  force = false,
) {
  const r = serverSideApply({ live, applied, manager, force, now });
  if (!r.ok) throw new Error(`unexpected conflicts: ${JSON.stringify(r.conflicts)}`);
  return r;
}

describe('create by apply', () => {
  it('stores the applied configuration with one Apply entry listing exactly the applied fields (FieldsV1)', () => {
    const r = apply(undefined, deployment({ replicas: 2 }), 'mooring', '2026-01-01T00:00:00.789Z');
    expect(r.changed).toBe(true);
    expect(r.object.spec).toEqual(deployment({ replicas: 2 }).spec);
    expect(r.object.metadata.managedFields).toEqual([
      {
        manager: 'mooring',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: '2026-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:app.kubernetes.io/managed-by': {} } },
          'f:spec': {
            'f:replicas': {},
            'f:selector': {},
            'f:template': {
              'f:metadata': { 'f:labels': { 'f:app': {} } },
              'f:spec': {
                'f:containers': {
                  'k:{"name":"app"}': {
                    '.': {},
                    'f:env': { 'k:{"name":"MODE"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
                    'f:image': {},
                    'f:name': {},
                    'f:ports': {
                      'k:{"containerPort":8000,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} },
                    },
                  },
                },
              },
            },
          },
        },
      },
    ]);
  });

  it('serializes FieldsV1 keys in the apiserver order (sorted path elements, "." first)', () => {
    const r = apply(undefined, deployment({ replicas: 1 }));
    const fields = r.object.metadata.managedFields?.[0]?.fieldsV1;
    const container = dig(
      fields,
      'f:spec',
      'f:template',
      'f:spec',
      'f:containers',
      'k:{"name":"app"}',
    ) as object;
    expect(JSON.stringify(Object.keys(container))).toBe('[".","f:env","f:image","f:name","f:ports"]');
  });
});

describe('the documented example (Server-Side Apply page, "test-cm")', () => {
  it('an apply of test-cm by kubectl records f:metadata.f:labels.f:test-label and f:data.f:key', () => {
    const r = apply(
      undefined,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'test-cm', namespace: 'default', labels: { 'test-label': 'test' } },
        data: { key: 'some value' },
      },
      'kubectl',
      '2010-10-10T00:00:00Z',
    );
    expect(r.object.metadata.managedFields).toEqual([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'v1',
        time: '2010-10-10T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { 'f:test-label': {} } }, 'f:data': { 'f:key': {} } },
      },
    ]);
  });

  it('managedFields entries are ordered Apply before Update, then by time, then by manager', () => {
    const cm = (labels: Record<string, string>): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'default', labels },
    });
    let live = stored(apply(undefined, cm({ z: '1' }), 'zeta', T1).object);
    live = stored(apply(live, cm({ a: '1' }), 'alpha', T1).object);
    live = stored(apply(live, cm({ e: '1' }), 'early', T0).object);
    live = recordUpdate({ live, updated: { ...live, data: { k: 'v' } }, manager: 'editor', now: T0 });
    expect(live.metadata.managedFields?.map((e) => `${e.operation} ${e.manager}`)).toEqual([
      'Apply early',
      'Apply alpha',
      'Apply zeta',
      'Update editor',
    ]);
  });
});

describe('no-op apply', () => {
  it('re-applying the same configuration returns the live object unchanged, managedFields time included', () => {
    const live = stored(apply(undefined, deployment({ replicas: 2 }), 'mooring', T0).object);
    const again = apply(live, deployment({ replicas: 2 }), 'mooring', T1);
    expect(again.changed).toBe(false);
    expect(again.object).toEqual(live);
    expect(entry(again.object, 'mooring')?.time).toBe(T0);
  });

  it('a configuration with the same content in another key order is still a no-op', () => {
    const live = stored(apply(undefined, deployment({ replicas: 2 })).object);
    const d = deployment({ replicas: 2 });
    const spec = d.spec as Record<string, unknown>;
    const config = {
      spec: { template: spec.template, replicas: 2, selector: spec.selector },
      metadata: { labels: d.metadata.labels, namespace: 'default', name: 'web' },
      kind: 'Deployment',
      apiVersion: 'apps/v1',
    };
    const r = apply(live, config, 'mooring', T1);
    expect(r.changed).toBe(false);
    expect(r.object).toEqual(live);
  });

  it('apply of a changed value by the same manager updates it and bumps only its time', () => {
    const live = stored(apply(undefined, deployment({ replicas: 2 }), 'mooring', T0).object);
    const r = apply(live, deployment({ replicas: 4 }), 'mooring', T1);
    expect(r.changed).toBe(true);
    expect((r.object.spec as { replicas: number }).replicas).toBe(4);
    expect(entry(r.object, 'mooring')?.time).toBe(T1);
  });
});

describe('fields a manager stops applying', () => {
  it('are removed from the object when no other manager owns them', () => {
    const first = deployment({
      labels: { a: '1', b: '2' },
      env: [
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ],
    });
    const live = stored(apply(undefined, first).object);
    const r = apply(
      live,
      deployment({ labels: { a: '1' }, env: [{ name: 'A', value: '1' }] }),
      'mooring',
      T1,
    );
    expect(r.object.metadata.labels).toEqual({ a: '1' });
    expect((podSpec(r.object).containers as { env: unknown }[])[0]?.env).toEqual([{ name: 'A', value: '1' }]);
  });

  it('are kept, and only released, when another applier also owns them', () => {
    const live1 = stored(
      apply(undefined, deployment({ labels: { a: '1', shared: 'x' } }), 'mooring', T0).object,
    );
    const other: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default', labels: { shared: 'x' } },
    };
    const live2 = stored(apply(live1, other, 'other', T1).object, '2');
    const r = apply(live2, deployment({ labels: { a: '1' } }), 'mooring', T2);
    expect(r.object.metadata.labels).toEqual({ a: '1', shared: 'x' });
    expect(entry(r.object, 'mooring')?.fieldsV1['f:metadata']).toEqual({ 'f:labels': { 'f:a': {} } });
    expect(entry(r.object, 'other')?.fieldsV1['f:metadata']).toEqual({ 'f:labels': { 'f:shared': {} } });
  });

  it('are removed when the last field of a map goes (the map goes with it)', () => {
    const live = stored(
      apply(undefined, { ...deployment(), metadata: { ...deployment().metadata, annotations: { x: '1' } } })
        .object,
    );
    const r = apply(live, deployment(), 'mooring', T1);
    expect(r.object.metadata.annotations).toBeUndefined();
  });
});

describe('fields a manager stops applying, with server defaults in the object', () => {
  /** What a real apiserver adds by defaulting after the apply (owned by nobody). */
  function defaulted(obj: KubeObject): KubeObject {
    const spec = structuredClone(obj.spec) as Record<string, unknown>;
    spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } };
    const pod = (spec.template as { spec: { containers: Record<string, unknown>[] } }).spec;
    for (const c of pod.containers) c.terminationMessagePath = '/dev/termination-log';
    return { ...obj, spec };
  }

  it('a container the applier stops applying goes, defaulted fields included; defaults elsewhere stay', () => {
    const two = deployment({
      replicas: 2,
      containers: [
        { name: 'app', image: 'a:1' },
        { name: 'old', image: 'b:1' },
      ],
    });
    const live = stored(defaulted(apply(undefined, two).object));
    const r = apply(live, deployment({ containers: [{ name: 'app', image: 'a:1' }] }), 'mooring', T1);
    expect(podSpec(r.object).containers).toEqual([
      { name: 'app', image: 'a:1', terminationMessagePath: '/dev/termination-log' },
    ]);
    const spec = r.object.spec as Record<string, unknown>;
    expect(spec.replicas).toBeUndefined();
    expect(spec.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' },
    });
  });

  it('finalizers the applier stops applying are removed while metadata stays', () => {
    const withFinalizer = {
      ...deployment(),
      metadata: { ...deployment().metadata, finalizers: ['x.io/keep'] },
    };
    const live = stored(apply(undefined, withFinalizer).object);
    const r = apply(live, deployment(), 'mooring', T1);
    expect(r.object.metadata.finalizers).toBeUndefined();
    expect(r.object.metadata).toMatchObject({ name: 'web', namespace: 'default', uid: 'uid-1' });
  });
});

describe('shared ownership', () => {
  it('two appliers setting the same value both own the field, without conflict', () => {
    const live = stored(apply(undefined, deployment({ replicas: 3 }), 'mooring', T0).object);
    const r = serverSideApply({
      live,
      applied: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web' },
        spec: { replicas: 3 },
      },
      manager: 'scaler',
      force: false,
      now: T1,
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(entry(r.object, 'scaler')?.fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect(entry(r.object, 'mooring')?.fieldsV1['f:spec']).toHaveProperty('f:replicas');
    // The object did not change; the new entry still needs a time.
    expect(r.changed).toBe(true);
    expect(r.object.spec).toEqual(live.spec);
    expect(entry(r.object, 'scaler')?.time).toBe(T1);
  });
});

describe('conflicts', () => {
  const scaler: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { replicas: 5 },
  };

  it('applying a different value to a field owned by another applier lists the conflict', () => {
    const live = stored(apply(undefined, deployment({ replicas: 3 }), 'mooring', T0).object);
    const r = serverSideApply({ live, applied: scaler, manager: 'scaler', force: false, now: T1 });
    expect(r).toEqual({
      ok: false,
      conflicts: [{ manager: 'mooring', apiVersion: 'apps/v1', field: '.spec.replicas', operation: 'Apply' }],
    });
  });

  it('force moves the field to the applier and drops the previous owner entry when it becomes empty', () => {
    const live = stored(apply(undefined, scaler, 'scaler', T0).object);
    const r = serverSideApply({
      live,
      applied: deployment({ replicas: 3 }),
      manager: 'mooring',
      force: true,
      now: T1,
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect((r.object.spec as { replicas: number }).replicas).toBe(3);
    expect(entry(r.object, 'scaler')).toBeUndefined();
    expect(r.object.metadata.managedFields?.map((e) => e.manager)).toEqual(['mooring']);
  });

  it('force takes only the conflicting field; the other manager keeps the rest of its set', () => {
    const both: KubeObject = { ...scaler, metadata: { name: 'web', labels: { team: 'a' } } };
    const live = stored(apply(undefined, both, 'scaler', T0).object);
    const r = serverSideApply({
      live,
      applied: deployment({ replicas: 3 }),
      manager: 'mooring',
      force: true,
      now: T1,
    });
    expect(r.ok && entry(r.object, 'scaler')?.fieldsV1).toEqual({
      'f:metadata': { 'f:labels': { 'f:team': {} } },
    });
  });

  it('a keyed list item field owned by another manager conflicts with the item path in kube form', () => {
    const live = stored(apply(undefined, deployment({ image: 'nginx:1' }), 'mooring', T0).object);
    const r = serverSideApply({
      live,
      applied: deployment({ image: 'nginx:2' }),
      manager: 'ci',
      force: false,
      now: T1,
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.conflicts.map((c) => c.field)).toEqual(['.spec.template.spec.containers[name="app"].image']);
  });
});

describe('system fields and status', () => {
  it('apply that omits resourceVersion, uid and creationTimestamp keeps the live values and never owns them', () => {
    const live = stored(apply(undefined, deployment({ replicas: 1 })).object, '7');
    const r = apply(live, deployment({ replicas: 2 }), 'mooring', T1);
    expect(r.object.metadata).toMatchObject({
      uid: 'uid-1',
      resourceVersion: '7',
      creationTimestamp: T0,
      generation: 1,
    });
    const meta = entry(r.object, 'mooring')?.fieldsV1['f:metadata'] as Record<string, unknown>;
    expect(Object.keys(meta)).toEqual(['f:labels']);
  });

  it('system metadata sent in the configuration is neither owned nor written (live values win)', () => {
    const live = stored(apply(undefined, deployment({ replicas: 1 })).object, '7');
    const sent = deployment({ replicas: 2 });
    sent.metadata = {
      ...sent.metadata,
      uid: 'forged',
      resourceVersion: '7',
      creationTimestamp: '1999-01-01T00:00:00Z',
      generation: 42,
      selfLink: '/x',
    };
    const r = apply(live, sent, 'mooring', T1);
    expect(r.object.metadata).toMatchObject({
      uid: 'uid-1',
      resourceVersion: '7',
      creationTimestamp: T0,
      generation: 1,
    });
    expect(r.object.metadata.selfLink).toBeUndefined();
    expect(Object.keys(entry(r.object, 'mooring')?.fieldsV1['f:metadata'] as object)).toEqual(['f:labels']);
  });

  it('apply never touches status of a workload on the main resource and never owns it', () => {
    const live = {
      ...stored(apply(undefined, deployment()).object),
      status: { replicas: 1, readyReplicas: 1 },
    };
    const withStatus = { ...deployment({ replicas: 2 }), status: { replicas: 9 } };
    const r = apply(live, withStatus, 'mooring', T1);
    expect(r.object.status).toEqual({ replicas: 1, readyReplicas: 1 });
    expect(entry(r.object, 'mooring')?.fieldsV1).not.toHaveProperty('f:status');
  });

  it('create by apply drops a status the configuration carries', () => {
    const r = apply(undefined, { ...deployment(), status: { replicas: 3 } });
    expect(r.object.status).toBeUndefined();
  });

  it('an object that predates field tracking gets a before-first-apply Update owner for its existing fields', () => {
    const untracked = stored({ ...deployment({ replicas: 2 }) });
    const r = serverSideApply({
      live: untracked,
      applied: deployment({ replicas: 3 }),
      manager: 'mooring',
      force: false,
      now: T1,
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.conflicts).toContainEqual({
      manager: 'before-first-apply',
      apiVersion: 'apps/v1',
      field: '.spec.replicas',
      operation: 'Update',
    });
  });

  it('the configuration may not carry managedFields (400)', () => {
    const bad = { ...deployment(), metadata: { ...deployment().metadata, managedFields: [] } };
    expect(() =>
      serverSideApply({ live: undefined, applied: bad, manager: 'm', force: false, now: T3 }),
    ).toThrow(
      expect.objectContaining({
        name: 'ApplyError',
        status: 400,
        message: 'metadata.managedFields must be nil',
      }),
    );
  });
});
