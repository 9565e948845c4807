/**
 * Strategic merge patch as documented in
 * https://kubernetes.io/docs/tasks/manage-kubernetes-objects/update-api-object-kubectl-patch/
 * and https://github.com/kubernetes/community/blob/master/contributors/devel/sig-api-machinery/strategic-merge-patch.md
 */
import { describe, expect, it } from 'vitest';
import { ApplyError, type KubeObject, strategicMergePatch } from '../../../src/sandbox/apply/index.ts';
import { deployment, podSpec } from './fixtures.ts';

const live = (): KubeObject => {
  const d = deployment({ replicas: 2 });
  const spec = (d.spec as { template: { spec: Record<string, unknown> } }).template.spec;
  spec.containers = [
    { name: 'app', image: 'nginx:1', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }] },
    { name: 'side', image: 'proxy:1' },
  ];
  spec.tolerations = [{ key: 'a', operator: 'Exists' }];
  d.metadata.finalizers = ['x.io/a'];
  return d;
};

const patchPod = (spec: Record<string, unknown>) => ({ spec: { template: { spec } } });

describe('strategicMergePatch', () => {
  it('merges containers by name, leaving the others alone', () => {
    const r = strategicMergePatch(live(), patchPod({ containers: [{ name: 'app', image: 'nginx:2' }] }));
    expect(podSpec(r).containers).toEqual([
      { name: 'app', image: 'nginx:2', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }] },
      { name: 'side', image: 'proxy:1' },
    ]);
  });

  it('merges env by name; the merged list takes the patch order (apimachinery normalizeElementOrder)', () => {
    const r = strategicMergePatch(
      live(),
      patchPod({
        containers: [
          {
            name: 'app',
            env: [
              { name: 'B', value: '2' },
              { name: 'A', value: '9' },
            ],
          },
        ],
      }),
    );
    const app = (podSpec(r).containers as { env: unknown }[])[0];
    expect(app?.env).toEqual([
      { name: 'B', value: '2' },
      { name: 'A', value: '9' },
    ]);
  });

  it('$patch: delete removes a keyed item', () => {
    const r = strategicMergePatch(live(), patchPod({ containers: [{ name: 'side', $patch: 'delete' }] }));
    expect((podSpec(r).containers as { name: string }[]).map((c) => c.name)).toEqual(['app']);
  });

  it('$patch: replace on a list replaces it with the patch items', () => {
    const r = strategicMergePatch(
      live(),
      patchPod({ containers: [{ $patch: 'replace' }, { name: 'only', image: 'x' }] }),
    );
    expect(podSpec(r).containers).toEqual([{ name: 'only', image: 'x' }]);
  });

  it('$patch: replace on a map replaces the map', () => {
    const r = strategicMergePatch(live(), { metadata: { labels: { $patch: 'replace', fresh: 'yes' } } });
    expect(r.metadata.labels).toEqual({ fresh: 'yes' });
  });

  it('null deletes a map key', () => {
    const r = strategicMergePatch(live(), {
      metadata: { labels: { 'app.kubernetes.io/managed-by': null, b: '2' } },
    });
    expect(r.metadata.labels).toEqual({ b: '2' });
  });

  it('lists without a merge strategy (tolerations) are replaced', () => {
    const r = strategicMergePatch(live(), patchPod({ tolerations: [{ key: 'b', operator: 'Exists' }] }));
    expect(podSpec(r).tolerations).toEqual([{ key: 'b', operator: 'Exists' }]);
  });

  it('merge lists of primitives (finalizers) are unioned, a new value first; $deleteFromPrimitiveList removes values', () => {
    const added = strategicMergePatch(live(), { metadata: { finalizers: ['x.io/b'] } });
    expect(added.metadata.finalizers).toEqual(['x.io/b', 'x.io/a']);
    const removed = strategicMergePatch(added, {
      metadata: { '$deleteFromPrimitiveList/finalizers': ['x.io/a'] },
    });
    expect(removed.metadata.finalizers).toEqual(['x.io/b']);
  });

  it('$retainKeys clears the fields of a map not listed (the strategy switch of a Deployment)', () => {
    const base = {
      ...live(),
      spec: {
        ...(live().spec as object),
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } },
      },
    };
    const r = strategicMergePatch(base, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } });
    expect((r.spec as { strategy: unknown }).strategy).toEqual({ type: 'Recreate' });
  });

  it('$setElementOrder orders a keyed list', () => {
    const r = strategicMergePatch(
      live(),
      patchPod({
        '$setElementOrder/containers': [{ name: 'side' }, { name: 'app' }],
        containers: [{ name: 'side', image: 'proxy:2' }],
      }),
    );
    expect(
      (podSpec(r).containers as { name: string; image: string }[]).map((c) => `${c.name}=${c.image}`),
    ).toEqual(['side=proxy:2', 'app=nginx:1']);
  });

  it('container ports merge by containerPort; the live object is not modified', () => {
    const before = live();
    const snapshot = JSON.stringify(before);
    const r = strategicMergePatch(
      before,
      patchPod({ containers: [{ name: 'app', ports: [{ containerPort: 80, name: 'http' }] }] }),
    );
    expect((podSpec(r).containers as { ports: unknown }[])[0]?.ports).toEqual([
      { containerPort: 80, name: 'http' },
    ]);
    expect(JSON.stringify(before)).toBe(snapshot);
  });

  it('a patch of the wrong shape is an ApplyError (422)', () => {
    expect(() => strategicMergePatch(live(), { spec: { replicas: { a: 1 } } })).toThrow(ApplyError);
    expect(() => strategicMergePatch(live(), patchPod({ containers: { name: 'x' } }))).toThrow(
      /expected list, got map/,
    );
  });
});
