import { describe, expect, it } from 'vitest';
import { fieldPaths, isManagedBy, ownsField, takenFields } from '../../src/kube/field-owners.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';

function obj(managedFields: KubeObject['metadata']['managedFields']): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'a', namespace: 'ns', managedFields },
  };
}

const containerImage = {
  'f:spec': {
    'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"api"}': { '.': {}, 'f:image': {} } } } },
  },
};

describe('managedFields', () => {
  it('flattens a FieldsV1 trie into leaf paths', () => {
    expect(
      fieldPaths({ 'f:spec': { 'f:replicas': {} }, 'f:metadata': { 'f:labels': { 'f:a': {} } } }),
    ).toEqual(['.spec.replicas', '.metadata.labels.a']);
    expect(fieldPaths(containerImage)).toEqual([
      '.spec.template.spec.containers[name=api]',
      '.spec.template.spec.containers[name=api].image',
    ]);
  });

  it('reports the fields a forced apply took from another manager', () => {
    const before = obj([
      { manager: 'mooring', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
      { manager: 'kubectl-edit', operation: 'Update', fieldsV1: containerImage },
      {
        manager: 'kubectl-annotate',
        operation: 'Update',
        fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:note': {} } } },
      },
    ]);
    const after = obj([
      {
        manager: 'mooring',
        operation: 'Apply',
        fieldsV1: { 'f:spec': { 'f:replicas': {}, ...containerImage['f:spec'] } },
      },
      {
        manager: 'kubectl-annotate',
        operation: 'Update',
        fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:note': {} } } },
      },
    ]);
    expect(takenFields(before, after, 'mooring')).toEqual([
      {
        manager: 'kubectl-edit',
        fields: [
          '.spec.template.spec.containers[name=api]',
          '.spec.template.spec.containers[name=api].image',
        ],
      },
    ]);
    expect(takenFields(undefined, after, 'mooring')).toEqual([]);
  });

  it('answers who manages what (status subresource entries ignored)', () => {
    const o = obj([
      { manager: 'mooring', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
      {
        manager: 'kube-controller-manager',
        operation: 'Update',
        subresource: 'status',
        fieldsV1: { 'f:status': { 'f:replicas': {} } },
      },
    ]);
    expect(isManagedBy(o, 'mooring')).toBe(true);
    expect(isManagedBy(o, 'helm')).toBe(false);
    expect(ownsField(o, 'mooring', '.spec.replicas')).toBe(true);
    expect(ownsField(o, 'kube-controller-manager', '.status.replicas')).toBe(false);
  });
});
