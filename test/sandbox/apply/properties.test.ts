/**
 * Properties of server-side apply that hold for any configuration (checked with fast-check):
 * a sole applier's object converges to exactly its latest configuration (fields it stopped
 * applying are removed, https://kubernetes.io/docs/reference/using-api/server-side-apply/#field-management),
 * re-applying is a no-op, and the FieldsV1 the engine writes reads back to the same ownership.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSubset } from '../../../src/sandbox/apply/field-set.ts';
import { type KubeObject, recordUpdate, serverSideApply } from '../../../src/sandbox/apply/index.ts';
import { decodeManagedFields } from '../../../src/sandbox/apply/managed-fields.ts';
import { rootTypeOf } from '../../../src/sandbox/apply/schema.ts';
import { mergeIsNoop, mergeValues } from '../../../src/sandbox/apply/merge.ts';
import { ensureNamedFieldsAreMembers, fieldSetOf } from '../../../src/sandbox/apply/to-field-set.ts';
import { deepEqual } from '../../../src/sandbox/apply/typed.ts';
import { stored, T0, T1, T2 } from './fixtures.ts';

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
const value = fc.string({ maxLength: 12 });

const container = fc.record(
  {
    name,
    image: fc.constantFrom('nginx:1', 'nginx:2', 'redis:7'),
    env: fc.uniqueArray(fc.record({ name, value }), { selector: (e) => e.name, maxLength: 4 }),
    ports: fc.uniqueArray(
      fc.record({
        containerPort: fc.integer({ min: 1, max: 65535 }),
        protocol: fc.constantFrom('TCP', 'UDP'),
      }),
      { selector: (p) => `${p.containerPort}/${p.protocol}`, maxLength: 3 },
    ),
    args: fc.array(value, { maxLength: 3 }),
  },
  { requiredKeys: ['name'] },
);

const config = fc
  .record(
    {
      labels: fc.dictionary(name, value, { maxKeys: 4 }),
      replicas: fc.integer({ min: 0, max: 10 }),
      containers: fc.uniqueArray(container, { selector: (c) => c.name, minLength: 1, maxLength: 3 }),
      finalizers: fc.uniqueArray(fc.constantFrom('a.io/x', 'b.io/y', 'c.io/z'), { maxLength: 3 }),
    },
    { requiredKeys: ['containers'] },
  )
  .map(
    (c): KubeObject => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'web',
        namespace: 'default',
        ...(c.labels && Object.keys(c.labels).length > 0 ? { labels: c.labels } : {}),
        ...(c.finalizers && c.finalizers.length > 0 ? { finalizers: c.finalizers } : {}),
      },
      spec: {
        ...(c.replicas === undefined ? {} : { replicas: c.replicas }),
        template: { spec: { containers: c.containers.map(dropEmpty) } },
      },
    }),
  );

/** Empty lists are not fields of an associative or atomic list config in this generator. */
function dropEmpty(c: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(c).filter(([, v]) => !(Array.isArray(v) && v.length === 0)));
}

function applyOk(live: KubeObject | undefined, applied: KubeObject, now: string) {
  const r = serverSideApply({ live, applied, manager: 'mooring', force: false, now });
  if (!r.ok) throw new Error('a sole applier never conflicts');
  return r;
}

function withoutManagedFields(obj: KubeObject): KubeObject {
  const {
    managedFields: _,
    uid: _u,
    resourceVersion: _r,
    creationTimestamp: _c,
    generation: _g,
    ...meta
  } = obj.metadata;
  return { ...obj, metadata: meta };
}

describe('apply properties', () => {
  it('a sole applier converges to exactly its latest configuration', () => {
    fc.assert(
      fc.property(config, config, (first, second) => {
        const live = stored(applyOk(undefined, first, T0).object);
        const next = applyOk(live, second, T1).object;
        expect(withoutManagedFields(next)).toEqual(second);
      }),
      { numRuns: 300 },
    );
  });

  it('re-applying any configuration is a no-op that keeps the object and its managedFields', () => {
    fc.assert(
      fc.property(config, config, (first, second) => {
        const live = stored(applyOk(stored(applyOk(undefined, first, T0).object), second, T1).object, '2');
        const again = applyOk(live, second, T2);
        expect(again.changed).toBe(false);
        expect(again.object).toEqual(live);
      }),
      { numRuns: 300 },
    );
  });

  it('the written FieldsV1 survives a JSON round trip with the same meaning', () => {
    fc.assert(
      fc.property(config, (c) => {
        const live = stored(applyOk(undefined, c, T0).object);
        const roundTripped = JSON.parse(JSON.stringify(live)) as KubeObject;
        const again = applyOk(roundTripped, c, T1);
        expect(again.changed).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('with several managers (forced applies and updates), every owned field exists and the last applier sees its values', () => {
    const atom = rootTypeOf('apps/v1', 'Deployment');
    if (!atom) throw new Error('no schema');
    const step = fc.record({ manager: fc.constantFrom('a', 'b', 'c'), update: fc.boolean(), config });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 6 }), (steps) => {
        let live: KubeObject | undefined;
        steps.forEach((s, i) => {
          const now = new Date(Date.parse(T0) + i * 60_000).toISOString();
          let next: KubeObject;
          if (s.update && live) {
            const updated = {
              ...s.config,
              metadata: { ...s.config.metadata, managedFields: live.metadata.managedFields },
            };
            next = recordUpdate({ live, updated, manager: s.manager, now });
          } else {
            const r = serverSideApply({ live, applied: s.config, manager: s.manager, force: true, now });
            if (!r.ok) throw new Error('forced apply conflicted');
            next = r.object;
            // The applier's values are all in the object.
            const body = { ...next, metadata: { ...next.metadata, managedFields: undefined } };
            expect(deepEqual(mergeValues(body, s.config, atom, { path: [], strict: true }), body)).toBe(true);
          }
          live = stored(next, String(i + 1));
          const present = ensureNamedFieldsAreMembers(
            fieldSetOf(live, atom, { path: [], strict: false }),
            atom,
          );
          for (const state of decodeManagedFields(live.metadata.managedFields).values()) {
            expect(isSubset(state.set, present)).toBe(true);
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it('the no-op shortcut is sound: when it says the merge changes nothing, the merge changes nothing', () => {
    const atom = rootTypeOf('apps/v1', 'Deployment');
    if (!atom) throw new Error('no schema');
    let shortcuts = 0;
    fc.assert(
      fc.property(config, config, fc.boolean(), (first, second, same) => {
        const live = applyOk(undefined, first, T0).object;
        const body = { ...live, metadata: { ...live.metadata, managedFields: undefined } };
        const applied = same ? first : second;
        if (mergeIsNoop(body, applied, atom)) {
          shortcuts++;
          expect(mergeValues(body, applied, atom, { path: [], strict: true })).toEqual(body);
        }
        if (same) expect(mergeIsNoop(body, applied, atom)).toBe(true);
      }),
      { numRuns: 500 },
    );
    expect(shortcuts).toBeGreaterThan(0);
  });
});
