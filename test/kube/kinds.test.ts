import { describe, expect, it } from 'vitest';
import { applyRank, KINDS, kindInfo, sortForApply, sortForDelete } from '../../src/objects/kinds.ts';
import { formatObjectId, objectId } from '../../src/objects/object-id.ts';
import { changeSetView, countActions, hasChanges, summarize } from '../../src/objects/change-set.ts';
import { MooringError } from '../../src/errors.ts';

describe('kind order as data', () => {
  it('applies what others depend on first and deletes in reverse', () => {
    const objs = [
      'HorizontalPodAutoscaler',
      'Deployment',
      'Secret',
      'Service',
      'StatefulSet',
      'Secret',
      'NetworkPolicy',
    ].map((kind, i) => ({ kind, i }));
    const applied = sortForApply(objs).map((o) => `${o.kind}${o.i}`);
    expect(applied).toEqual([
      'NetworkPolicy6',
      'Secret2',
      'Secret5',
      'Service3',
      'Deployment1',
      'StatefulSet4',
      'HorizontalPodAutoscaler0',
    ]);
    expect(sortForDelete(objs).map((o) => `${o.kind}${o.i}`)).toEqual([...applied].reverse());
  });

  it('puts unknown kinds last and marks what is safe to recreate', () => {
    expect(applyRank('Gadget')).toBe(KINDS.length);
    expect(kindInfo('Deployment')?.recreatable).toBe(true);
    expect(kindInfo('Service')?.recreatable).toBe(true);
    expect(kindInfo('StatefulSet')?.recreatable).toBe(false);
    expect(kindInfo('PersistentVolumeClaim')?.volume).toBe(true);
  });
});

describe('object ids and change sets', () => {
  it('formats Kind/namespace/name', () => {
    expect(objectId({ kind: 'Deployment', metadata: { name: 'a', namespace: 'ns' } })).toBe(
      'Deployment/ns/a',
    );
    expect(formatObjectId('Namespace', undefined, 'ns')).toBe('Namespace/ns');
  });

  it('summarizes and views entries without leaking anything but ids, actions and coded errors', () => {
    const cs = {
      dryRun: false,
      entries: [
        { id: 'Secret/ns/a', apiVersion: 'v1', kind: 'Secret', name: 'a', action: 'created' as const },
        { id: 'Service/ns/a', apiVersion: 'v1', kind: 'Service', name: 'a', action: 'unchanged' as const },
        {
          id: 'Deployment/ns/a',
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: 'a',
          action: 'unknown' as const,
          error: new MooringError('MOORING_E_KUBE_SERVER', 'Deployment/ns/a: apply server answered 500'),
        },
      ],
    };
    expect(countActions(cs)).toEqual({ created: 1, unchanged: 1, unknown: 1 });
    expect(summarize(cs)).toBe('created 1, unchanged 1, unknown 1');
    expect(hasChanges(cs)).toBe(true);
    expect(changeSetView(cs)[2]).toEqual({
      id: 'Deployment/ns/a',
      action: 'unknown',
      error: { code: 'MOORING_E_KUBE_SERVER', message: 'Deployment/ns/a: apply server answered 500' },
    });
  });
});
