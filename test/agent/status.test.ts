import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEPLOYMENT_STATES, type DeploymentState, StatusStore } from '../../src/agent/status.ts';
import { REDACTED, Redactor } from '../../src/redact.ts';

describe('StatusStore.list', () => {
  it('lists entries by namespace, then name, namespaceless ones first, as copies', () => {
    const store = new StatusStore();
    const seen = (id: string, name: string, namespace: string | null) =>
      store.observe({ id, name, namespace, revision: null, controlPlaneStatus: 'READY' });
    seen('1', 'web', 'team-b');
    seen('2', 'api', 'team-b');
    seen('3', 'web-2', 'team-a');
    seen('4', 'web', 'team-a');
    seen('5', 'orphan', null);
    seen('6', 'api-10', 'team-a');
    seen('7', 'api-9', 'team-a');
    const listed = store.list();
    expect(listed.map((e) => `${e.namespace ?? ''}/${e.name}`)).toEqual([
      '/orphan',
      'team-a/api-10',
      'team-a/api-9',
      'team-a/web',
      'team-a/web-2',
      'team-b/api',
      'team-b/web',
    ]);
    listed[0]!.state = 'Ready';
    expect(store.get('5')!.state).toBe('Pending');
  });
});

describe('StatusStore.record', () => {
  it('stores a reason scrubbed of every value its scrubber knows', () => {
    const redactor = new Redactor();
    redactor.set('d1', ['the-secret-value']);
    const store = new StatusStore({ scrubber: redactor });
    store.observe({ id: 'd1', name: 'web', namespace: 'apps', revision: null, controlPlaneStatus: 'READY' });
    store.record('d1', {
      state: 'Refused',
      reason: 'MOORING_E_KUBE_CONFLICT: Secret/apps/web-env: apply conflict (409): "the-secret-value"',
      changed: false,
      changes: null,
      atMs: 0,
    });
    expect(store.get('d1')?.reason).toBe(
      `MOORING_E_KUBE_CONFLICT: Secret/apps/web-env: apply conflict (409): "${REDACTED}"`,
    );
  });
});

describe('StatusStore.counts and pausedObjects', () => {
  type Step =
    | { op: 'observe'; id: number }
    | { op: 'record'; id: number; state: DeploymentState; paused: number }
    | { op: 'remove'; id: number };
  const id = fc.integer({ min: 0, max: 5 });
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ op: fc.constant('observe' as const), id }),
    fc.record({
      op: fc.constant('record' as const),
      id,
      state: fc.constantFrom(...DEPLOYMENT_STATES),
      paused: fc.integer({ min: 0, max: 3 }),
    }),
    fc.record({ op: fc.constant('remove' as const), id }),
  );

  it('are what a walk over every entry counts, whatever the entries went through', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const store = new StatusStore();
        for (const s of steps) {
          const key = `d${s.id}`;
          if (s.op === 'observe')
            store.observe({
              id: key,
              name: key,
              namespace: 'apps',
              revision: null,
              controlPlaneStatus: 'READY',
            });
          else if (s.op === 'remove') store.remove(key);
          else {
            const paused = Array.from({ length: s.paused }, (_, i) => `Service/apps/${key}-${i}`);
            store.record(key, {
              state: s.state,
              reason: null,
              changed: false,
              changes: null,
              atMs: 0,
              paused,
            });
          }
        }
        const walked = Object.fromEntries(DEPLOYMENT_STATES.map((state) => [state, 0]));
        let paused = 0;
        for (const e of store.list()) {
          walked[e.state] = (walked[e.state] ?? 0) + 1;
          paused += e.paused.length;
        }
        expect(store.counts()).toEqual(walked);
        expect(store.pausedObjects()).toBe(paused);
      }),
    );
  });
});
