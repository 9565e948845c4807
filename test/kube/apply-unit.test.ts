import { describe, expect, it } from 'vitest';
import { type ApplyContext, applyAll } from '../../src/kube/apply.ts';
import { prepareForApply } from '../../src/kube/desired-hash.ts';
import { ApplyMemo } from '../../src/kube/memo.ts';
import type { ObjectClient } from '../../src/kube/object-client.ts';
import { objectId } from '../../src/objects/object-id.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { silentLogger } from '../../src/log.ts';
import { deployment } from './fixtures.ts';

/** An API whose admission rewrites the image to a digest: what we send never shows up as sent. */
function mutatingApi(start: KubeObject) {
  let stored = structuredClone(start);
  const calls: string[] = [];
  const client = {
    async apply(obj: KubeObject) {
      calls.push(`apply ${objectId(obj)}`);
      const next = structuredClone(obj);
      (next.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec
        .containers[0]!.image = 'example.com/app@sha256:abc';
      const changed =
        JSON.stringify(next.spec) !== JSON.stringify(stored.spec) ||
        JSON.stringify(next.metadata.annotations) !== JSON.stringify(stored.metadata.annotations);
      const rv = Number(stored.metadata.resourceVersion) + (changed ? 1 : 0);
      stored = { ...next, metadata: { ...next.metadata, resourceVersion: String(rv) } };
      return { object: structuredClone(stored), created: false };
    },
    async get() {
      calls.push('get');
      return structuredClone(stored);
    },
  } as unknown as ObjectClient;
  return { client, calls, live: () => structuredClone(stored) };
}

describe('applyAll with a server that changes what we send', () => {
  it('costs one no-op write, not one per cycle', async () => {
    const desired = deployment('ns');
    // As the first apply left it: our hash, and the image the webhook rewrote.
    const first = prepareForApply(desired).object;
    first.metadata.resourceVersion = '1';
    (first.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec
      .containers[0]!.image = 'example.com/app@sha256:abc';
    const api = mutatingApi(first);
    const ctx: ApplyContext = {
      client: api.client,
      fieldManager: 'mooring',
      dryRun: false,
      logger: silentLogger(),
      random: (n) => Buffer.alloc(n),
      verified: new ApplyMemo(),
    };
    const cycle = () => applyAll(ctx, [desired], { live: new Map([[objectId(desired), api.live()]]) });
    const a = await cycle();
    const b = await cycle();
    const c = await cycle();
    expect(api.calls.filter((x) => x.startsWith('apply')).length).toBe(1);
    expect([a, b, c].map((cs) => cs.entries[0]?.action)).toEqual(['unchanged', 'unchanged', 'unchanged']);
    // A real change (new desired hash) is applied again.
    await applyAll(ctx, [deployment('ns', 'app', { replicas: 3 })], {
      live: new Map([[objectId(desired), api.live()]]),
    });
    expect(api.calls.filter((x) => x.startsWith('apply')).length).toBe(2);
  });
});

describe('applyAll over an object made between its read and the apply', () => {
  it('is a coded refusal, not verified (regression: only a log line)', async () => {
    const desired = deployment('ns');
    const client = {
      // Read: absent.
      async get() {
        return undefined;
      },
      // Yet the apply did not create it: someone made it in between, and the forced apply took it.
      async apply(obj: KubeObject) {
        const object = structuredClone(obj);
        object.metadata.resourceVersion = '7';
        return { object, created: false, partial: false };
      },
    } as unknown as ObjectClient;
    const verified = new ApplyMemo();
    const ctx: ApplyContext = {
      client,
      fieldManager: 'mooring',
      dryRun: false,
      logger: silentLogger(),
      random: (n) => Buffer.alloc(n),
      verified,
    };
    const cs = await applyAll(ctx, [desired]);
    expect(cs.entries).toHaveLength(1);
    expect(cs.entries[0]?.error?.code).toBe('MOORING_E_KUBE_APPLY_CONFLICT');
    expect(cs.entries[0]?.error?.retryable).toBe(false);
    expect(verified.has(objectId(desired))).toBe(false);
  });
});
