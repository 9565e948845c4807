import { describe, expect, it } from 'vitest';
import {
  hasPinnedVersion,
  knownVersion,
  listedVersion,
  objectVersion,
  PinnedEntry,
} from '../../src/kube/object-version.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';

const deployment = (meta: Partial<KubeObject['metadata']>): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'b',
    namespace: 'ns',
    resourceVersion: '10',
    generation: 2,
    labels: { a: '1', b: '2' },
    annotations: { 'mooring.dev/desired-hash': 'h1' },
    ...meta,
  },
});

describe('objectVersion (what the apply memo pins)', () => {
  it('ignores status writes on kinds with a generation: only the resourceVersion moves', () => {
    expect(objectVersion(deployment({ resourceVersion: '11' }))).toBe(objectVersion(deployment({})));
  });

  it('moves with the generation (a spec change) and with any label or annotation', () => {
    const base = objectVersion(deployment({}));
    expect(objectVersion(deployment({ generation: 3 }))).not.toBe(base);
    expect(objectVersion(deployment({ labels: { a: '1', b: '3' } }))).not.toBe(base);
    expect(objectVersion(deployment({ labels: { a: '1', b: '2', c: '' } }))).not.toBe(base);
    expect(objectVersion(deployment({ annotations: { 'mooring.dev/desired-hash': 'h2' } }))).not.toBe(base);
    expect(objectVersion(deployment({ annotations: undefined }))).not.toBe(base);
    // A label's key moved into an annotation is a change too.
    expect(
      objectVersion(
        deployment({ labels: { a: '1' }, annotations: { b: '2', 'mooring.dev/desired-hash': 'h1' } }),
      ),
    ).not.toBe(base);
  });

  it('leaves out the revision annotation the Deployment controller sets after every rollout', () => {
    const base = objectVersion(deployment({}));
    const rolledOut = (revision: string) =>
      deployment({
        annotations: { 'mooring.dev/desired-hash': 'h1', 'deployment.kubernetes.io/revision': revision },
      });
    expect(objectVersion(rolledOut('1'))).toBe(base);
    expect(objectVersion(rolledOut('2'))).toBe(base);
    // Any other annotation still counts.
    expect(
      objectVersion(
        deployment({
          annotations: { 'mooring.dev/desired-hash': 'h1', 'deployment.kubernetes.io/other': '1' },
        }),
      ),
    ).not.toBe(base);
  });

  it('moves with the uid: an object deleted and made again starts at generation 1 again', () => {
    expect(objectVersion(deployment({ uid: 'u2', generation: 1 }))).not.toBe(
      objectVersion(deployment({ uid: 'u1', generation: 1 })),
    );
  });

  it('does not depend on the order the server lists labels in', () => {
    expect(objectVersion(deployment({ labels: { b: '2', a: '1' } }))).toBe(objectVersion(deployment({})));
  });

  it('is the resourceVersion for kinds without a generation, and undefined without either', () => {
    const secret: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', resourceVersion: '7' },
    };
    expect(objectVersion(secret)).toBe('7');
    expect(objectVersion({ ...secret, metadata: { name: 's' } })).toBeUndefined();
    expect(objectVersion(deployment({ generation: 0, resourceVersion: '9' }))).toBe('9');
  });
});

describe('the versions kept on listed objects (their invalidation rule)', () => {
  it('keeps a pinned version on its entry alone: a copy of the entry carries none', () => {
    const whole = deployment({});
    const entry = new PinnedEntry(whole.apiVersion, whole.kind, whole.metadata, 'v-whole');
    expect(objectVersion(entry)).toBe('v-whole');
    expect(hasPinnedVersion(entry)).toBe(true);
    const copy = { ...entry };
    expect(hasPinnedVersion(copy)).toBe(false);
    expect(objectVersion(copy)).toBe(objectVersion(deployment({})));
    expect(JSON.stringify(entry)).toBe(JSON.stringify(deployment({})));
  });

  it('keeps a pinned version inside its entry: no member of its own, no separate property store', () => {
    const whole = deployment({});
    const entry = new PinnedEntry(whole.apiVersion, whole.kind, whole.metadata, 'v-whole');
    // A symbol member defined after the fact moved every entry's members to a store of their own.
    expect(Object.getOwnPropertySymbols(entry)).toEqual([]);
    expect(Reflect.ownKeys(entry)).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(structuredClone(entry)).toEqual(whole);
    expect(hasPinnedVersion(structuredClone(entry))).toBe(false);
  });

  it("takes a listed object's version once, for the life of that object; another object is read anew", () => {
    const listed = deployment({});
    const first = listedVersion(listed);
    (listed.metadata.labels as Record<string, string>).a = 'changed';
    expect(listedVersion(listed)).toBe(first);
    expect(listedVersion(deployment({ labels: { a: 'changed', b: '2' } }))).not.toBe(first);
  });

  it('knows a kept version without a digest, and digests any other object without keeping one', () => {
    const listed = deployment({});
    const kept = listedVersion(listed);
    (listed.metadata.labels as Record<string, string>).a = 'changed';
    expect(knownVersion(listed)).toBe(kept);
    const other = deployment({});
    expect(knownVersion(other)).toBe(kept);
    (other.metadata.labels as Record<string, string>).a = 'changed';
    expect(knownVersion(other)).not.toBe(kept);
    expect(Object.getOwnPropertySymbols(other)).toEqual([]);
  });

  it('reads a frozen listed object without keeping anything on it', () => {
    const frozen = Object.freeze(deployment({}));
    expect(listedVersion(frozen)).toBe(objectVersion(deployment({})));
  });
});
