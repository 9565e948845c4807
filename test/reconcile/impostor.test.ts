import { describe, expect, it } from 'vitest';
import { MooringError } from '../../src/errors.ts';
import { selectorMatches, selectorsOf } from '../../src/kube/foreign-objects.ts';
import { LABELS } from '../../src/labels.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { checkImpostorLabels, recordLabelledPods } from '../../src/reconcile/impostor.ts';

const MOORING = {
  [LABELS.managedBy]: 'mooring',
  [LABELS.deploymentId]: 'dep-b',
  [LABELS.component]: 'api-server',
};
const pod = (labels: Record<string, string>): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'shop', namespace: 'apps' },
    spec: { template: { metadata: { labels: { ...MOORING, ...labels } }, spec: {} } },
  }) as KubeObject;
const service = (selector: Record<string, string>): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'payments', namespace: 'apps' },
    spec: { selector },
  }) as KubeObject;
const policy = (peer: Record<string, unknown>): KubeObject =>
  ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'db-allow', namespace: 'apps' },
    spec: { podSelector: { matchLabels: { app: 'db' } }, egress: [{ to: [{ podSelector: peer }] }] },
  }) as KubeObject;
const refusal = (objects: KubeObject[], foreign: KubeObject[]) => {
  const selecting = foreign.map((f) => ({
    id: `${f.kind}/apps/${f.metadata.name}`,
    selectors: selectorsOf(f),
  }));
  try {
    checkImpostorLabels(recordLabelledPods(objects), selecting, 'dep-b');
  } catch (err) {
    return err instanceof MooringError ? `${err.code}: ${err.message}` : String(err);
  }
  return undefined;
};

describe("record labels never make a pod match another workload's selector", () => {
  it("refuses labels that put the pods behind another workload's Service, or in a NetworkPolicy peer", () => {
    expect(refusal([pod({ app: 'payments', tier: 'web' })], [service({ app: 'payments' })])).toMatch(
      /^MOORING_E_LABELS_FOREIGN_SELECTOR: Deployment\/shop: the record's labels make its pods match Service\/apps\/payments/,
    );
    const exists = { matchExpressions: [{ key: 'role', operator: 'Exists' }] };
    expect(refusal([pod({ role: 'x' })], [policy(exists)])).toContain(
      'NetworkPolicy/apps/db-allow, which allows in its egress rules',
    );
  });

  it('leaves alone labels that match nothing, and selectors that match without the record (empty, by mooring keys)', () => {
    expect(refusal([pod({ app: 'shop' })], [service({ app: 'payments' })])).toBeUndefined();
    expect(refusal([pod({ app: 'shop' })], [policy({})])).toBeUndefined();
    expect(refusal([pod({ app: 'shop' })], [service({ [LABELS.component]: 'api-server' })])).toBeUndefined();
    // Without labels of the record's own, nothing is to be checked (and nothing listed).
    expect(recordLabelledPods([pod({})])).toEqual([]);
  });
});

describe('selectorMatches', () => {
  it('reads matchLabels and the four operators as Kubernetes does', () => {
    const labels = { app: 'a', tier: 'web' };
    expect(selectorMatches({ matchLabels: { app: 'a' } }, labels)).toBe(true);
    expect(selectorMatches({ matchLabels: { app: 'b' } }, labels)).toBe(false);
    const expr = (operator: string, values?: string[]) =>
      selectorMatches(
        { matchExpressions: [{ key: 'tier', operator, ...(values ? { values } : {}) }] },
        labels,
      );
    expect([expr('In', ['web']), expr('In', ['db']), expr('NotIn', ['db']), expr('NotIn', ['web'])]).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expect([expr('Exists'), expr('DoesNotExist'), expr('Bogus')]).toEqual([true, false, false]);
    expect(selectorMatches({}, labels)).toBe(true);
  });
});
