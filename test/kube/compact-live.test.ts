import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactLive, ListingPool, isSlim, shareStrings, slim } from '../../src/kube/compact-live.ts';
import { isManagedBy, ownsField, takenFields } from '../../src/kube/field-owners.ts';
import { objectVersion } from '../../src/kube/object-version.ts';
import { assessObject } from '../../src/reconcile/health.ts';
import type { KubeObject, ManagedFieldsEntry } from '../../src/objects/kube-object.ts';
import { heapHeldBy } from '../heap-held.ts';

const US = 'mooring';

/** A fieldsV1 tree over a small vocabulary so that managers overlap. */
const fieldsV1: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ tree: Record<string, unknown> }>(
  (tie) => ({
    tree: fc.dictionary(
      fc.constantFrom(
        'f:spec',
        'f:replicas',
        'f:template',
        'f:metadata',
        'f:labels',
        'f:app',
        'f:image',
        'k:{"name":"app"}',
        '.',
      ),
      fc.oneof({ depthSize: 'small' }, fc.constant({}), tie('tree')),
      { maxKeys: 4 },
    ),
  }),
).tree;

const entry: fc.Arbitrary<ManagedFieldsEntry> = fc.record(
  {
    manager: fc.constantFrom(US, 'kubectl-edit', 'hpa-controller', 'mooring-handover'),
    operation: fc.constantFrom('Apply', 'Update'),
    subresource: fc.constantFrom(undefined, '', 'status'),
    fieldsType: fc.constant('FieldsV1'),
    fieldsV1,
  },
  { requiredKeys: ['manager', 'operation', 'fieldsV1'] },
);

const object = (managedFields: ManagedFieldsEntry[]): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'a', namespace: 'ns', managedFields },
  spec: { replicas: 2 },
});

describe('compactLive', () => {
  it('answers every question the agent asks of a live object exactly as the full object does', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 5 }), fc.array(entry, { maxLength: 5 }), (before, after) => {
        const full = object(structuredClone(before));
        const compact = compactLive(object(structuredClone(before)), US);
        const later = object(after);
        expect(takenFields(compact, later, US)).toEqual(takenFields(full, later, US));
        expect(ownsField(compact, US, '.spec.replicas')).toBe(ownsField(full, US, '.spec.replicas'));
        expect(isManagedBy(compact, US)).toBe(
          isManagedBy(full, US) &&
            full.metadata.managedFields!.some((e) => e.manager === US && !e.subresource),
        );
      }),
    );
  });

  it('keeps of our own entry only spec.replicas, drops status entries, keeps others whole', () => {
    const ours = {
      manager: US,
      operation: 'Apply',
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:spec': { 'f:replicas': {}, 'f:template': { 'f:spec': {} } },
        'f:metadata': { 'f:labels': { 'f:app': {} } },
      },
    };
    const other = {
      manager: 'kubectl-edit',
      operation: 'Update',
      fieldsV1: { 'f:spec': { 'f:paused': {} } },
    };
    const status = {
      manager: 'kube-controller-manager',
      operation: 'Update',
      subresource: 'status',
      fieldsV1: { 'f:status': { 'f:replicas': {} } },
    };
    const obj = compactLive(object([ours, other, status]), US);
    expect(obj.metadata.managedFields).toEqual([
      {
        manager: US,
        operation: 'Apply',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      },
      other,
    ]);
    expect(obj.spec).toEqual({ replicas: 2 });
  });
});

describe('compactLive with a string pool', () => {
  it('keeps every value equal while repeated short strings become one', () => {
    const listed = () =>
      Array.from({ length: 3 }, (_, i) => ({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: `app-${i}`, namespace: 'ns', labels: { tier: 'web' } },
        spec: {
          template: {
            spec: { containers: [{ name: 'c', imagePullPolicy: 'IfNotPresent', args: ['x'.repeat(100)] }] },
          },
        },
      })) as KubeObject[];
    const pool = new ListingPool();
    const compacted = listed().map((o) => compactLive(o, US, pool));
    expect(compacted).toEqual(listed());
    expect(pool.strings.get('IfNotPresent')).toBe('IfNotPresent');
    expect(pool.strings.has('x'.repeat(100))).toBe(false);
    expect(pool.strings.has('app-2')).toBe(true);
  });

  // The pool once compared the pooled copy with the string by value (always equal for strings),
  // so nothing was replaced: each listed object kept its own copy of every value.
  it('holds a string repeated over a listing once (measured on the heap)', async () => {
    const text = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'ns' },
      data: { image: 'registry.example.com/infra/log-shipper:3-abcdefgh' },
    });
    const objects = 20_000;
    const listing = (pool?: ListingPool) =>
      Array.from({ length: objects }, () => compactLive(JSON.parse(text) as KubeObject, US, pool));
    const unshared = await heapHeldBy(() => listing());
    const shared = await heapHeldBy(() => listing(new ListingPool()));
    // Each unshared copy of the 51-character image is at least 64 bytes.
    expect(unshared - shared).toBeGreaterThan(objects * 48);
  });

  it("counts the strings it replaced by the pool's copy, and changes no value", () => {
    const pool = new ListingPool();
    const a = JSON.parse(
      '{"image":"nginx:1.27","env":[{"name":"PORT","value":"8080"}],"long":"' + 'y'.repeat(80) + '"}',
    );
    const b = JSON.parse(JSON.stringify(a));
    expect(shareStrings(a, pool)).toBe(0);
    expect(shareStrings(b, pool)).toBe(3);
    expect(b).toEqual(a);
  });
});

describe('slim', () => {
  const ours = { manager: US, operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } };
  const theirs = {
    manager: 'kubectl-edit',
    operation: 'Update',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:spec': {} },
  };
  const statusEntry = { manager: US, operation: 'Update', subresource: 'status' };
  const workload = (kind: string): KubeObject => ({
    apiVersion: 'apps/v1',
    kind,
    metadata: {
      name: 'b',
      namespace: 'ns',
      uid: 'u-1',
      resourceVersion: '7',
      generation: 2,
      creationTimestamp: '2026-11-22T09:00:00Z',
      finalizers: ['example.com/hold'],
      labels: {
        'mooring.dev/deployment-id': 'd1',
        'app.kubernetes.io/managed-by': 'mooring',
        team: 'support',
      },
      annotations: { 'mooring.dev/desired-hash': 'h1', 'example.com/note': 'by hand' },
      managedFields: [ours, theirs, statusEntry],
    },
    spec: {
      replicas: 3,
      updateStrategy: { type: 'OnDelete' },
      template: { spec: { containers: [{ name: 'app', image: 'i:1' }] } },
    },
    status: {
      replicas: 3,
      readyReplicas: 2,
      observedGeneration: 2,
      conditions: [
        {
          type: 'Available',
          status: 'True',
          reason: 'MinimumReplicasAvailable',
          message: 'long text',
          lastUpdateTime: 't',
        },
      ],
    },
  });

  it('keeps what the memo, health, pruning and the orphan pass read, and marks the result', () => {
    const full = workload('Deployment');
    const dep = slim(full, US);
    expect(isSlim(dep)).toBe(true);
    expect(isSlim(full)).toBe(false);
    // The mark lives inside the entry: a symbol member added after the fact took a store of its own.
    expect(Object.getOwnPropertySymbols(dep)).toEqual([]);
    // Kept as they are; creationTimestamp, the other labels and every annotation go.
    const { name, namespace, uid, resourceVersion, generation, finalizers } = full.metadata;
    expect(dep).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name,
        namespace,
        uid,
        resourceVersion,
        generation,
        finalizers,
        labels: { 'mooring.dev/deployment-id': 'd1', 'app.kubernetes.io/managed-by': 'mooring' },
        managedFields: [{ manager: US }],
      },
      spec: { replicas: 3 },
      status: {
        replicas: 3,
        readyReplicas: 2,
        observedGeneration: 2,
        conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' }],
      },
    });
    expect(slim(workload('StatefulSet'), US).spec).toEqual({
      replicas: 3,
      updateStrategy: { type: 'OnDelete' },
    });
    // Health and ownership read the same from the slim entry as from the whole object.
    expect(assessObject(dep)).toEqual(assessObject(full));
    expect(isManagedBy(dep, US)).toBe(true);
    expect(isManagedBy(slim(full, 'someone-else'), US)).toBe(false);
    // "Ours" is a frozen mark: nothing may write through it.
    expect(slim(workload('StatefulSet'), US).metadata.managedFields).toEqual(dep.metadata.managedFields);
    expect(Object.isFrozen(dep.metadata.managedFields)).toBe(true);
  });

  it('shares short strings, and one frozen label set per deployment and list of conditions, through the pool', () => {
    const pool = new ListingPool();
    const listed = (deploymentId: string) => {
      const o = JSON.parse(JSON.stringify(workload('Deployment'))) as KubeObject;
      (o.metadata.labels as Record<string, string>)['mooring.dev/deployment-id'] = deploymentId;
      return slim(o, US, pool);
    };
    const [a, b, other] = [listed('d1'), listed('d1'), listed('d2')];
    expect(a).toEqual(b);
    expect(pool.strings.has('ns')).toBe(true);
    // The same labels, one object; frozen, since every entry of the deployment reads it.
    expect(a.metadata.labels).toBe(b.metadata.labels);
    expect(Object.isFrozen(a.metadata.labels)).toBe(true);
    expect(other.metadata.labels).not.toBe(a.metadata.labels);
    expect(other.metadata.labels?.['mooring.dev/deployment-id']).toBe('d2');
    // Another deployment's conditions read the same: the same frozen list.
    const conditions = (o: KubeObject) => (o.status as { conditions: unknown[] }).conditions;
    expect(conditions(other)).toBe(conditions(a));
    expect(Object.isFrozen(conditions(a))).toBe(true);
    expect(assessObject(other)).toEqual(assessObject(workload('Deployment')));
    // The "ours" mark is the pool's: one per listing, dropped with it.
    expect(other.metadata.managedFields).toBe(a.metadata.managedFields);
    expect(slim(workload('Deployment'), US, new ListingPool()).metadata.managedFields).not.toBe(
      a.metadata.managedFields,
    );
  });

  it('keeps the version of the whole object, which covers labels and annotations it leaves out', () => {
    const full = workload('Deployment');
    expect(objectVersion(slim(full, US))).toBe(objectVersion(full));
    const edited = workload('Deployment');
    (edited.metadata.labels as Record<string, string>).team = 'edited by hand';
    expect(objectVersion(slim(edited, US))).toBe(objectVersion(edited));
    expect(objectVersion(slim(edited, US))).not.toBe(objectVersion(slim(full, US)));
    const secret: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', resourceVersion: '9' },
    };
    expect(objectVersion(slim(secret, US))).toBe('9');
  });

  it('leaves out the spec, data and status of every other kind', () => {
    const secret: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'ns', resourceVersion: '7' },
      type: 'Opaque',
      data: { KEY: 'dmFsdWU=' },
    };
    expect(slim(secret, US)).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: secret.metadata });
    const service: KubeObject = { ...workload('Service'), apiVersion: 'v1', status: { loadBalancer: {} } };
    const s = slim(service, US);
    expect(s.spec).toBeUndefined();
    expect(s.status).toBeUndefined();
  });
});
