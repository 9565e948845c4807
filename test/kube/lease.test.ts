import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeLeaseClient } from '../../src/kube/lease.ts';
import { LeaseConflict } from '../../src/objects/lease.ts';
import { createKubeClient } from '../../src/kube/clients.ts';
import type { KubeHttp } from '../../src/kube/http.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';

describe('kubeLeaseClient against the sandbox Kubernetes API', () => {
  let api: KubeApi;
  let kube: KubeHttp;

  beforeAll(async () => {
    api = await startKubeApi({ namespaces: ['ops'] });
    kube = createKubeClient(api.kubeconfig);
  });
  afterAll(async () => {
    await api.close();
  });

  it('creates, reads and updates a Lease; a stale resourceVersion is a LeaseConflict', async () => {
    const a = kubeLeaseClient(kube, 'ops', 'leader');
    const b = kubeLeaseClient(kube, 'ops', 'leader');
    expect(await a.get()).toBeUndefined();
    const created = await a.create({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTimeMs: 1_700_000_000_000,
      renewTimeMs: 1_700_000_000_000,
      leaseTransitions: 0,
      resourceVersion: undefined,
    });
    expect(created).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 });
    expect(created.renewTimeMs).toBe(1_700_000_000_000);
    await expect(
      b.create({ ...created, holderIdentity: 'b', resourceVersion: undefined }),
    ).rejects.toBeInstanceOf(LeaseConflict);
    const seenByB = (await b.get())!;
    const renewed = await a.update({ ...created, renewTimeMs: 1_700_000_002_000 });
    expect(renewed.resourceVersion).not.toBe(created.resourceVersion);
    // b read before a's renewal: its takeover must fail.
    await expect(b.update({ ...seenByB, holderIdentity: 'b' })).rejects.toBeInstanceOf(LeaseConflict);
    // Release: holderIdentity cleared.
    const released = await a.update({ ...renewed, holderIdentity: undefined });
    expect(released.holderIdentity).toBeUndefined();
    const lease = api.getObject('coordination.k8s.io/v1', 'Lease', 'ops', 'leader') as {
      spec: { holderIdentity?: string };
    };
    expect(lease.spec.holderIdentity ?? '').toBe('');
  });
});

describe('kubeLeaseClient behind a client-side rate limit', () => {
  it('does not wait at the rate limit that holds the other requests back', async () => {
    const api = await startKubeApi({ namespaces: ['ops'] });
    const waits: string[] = [];
    const kube = createKubeClient(api.kubeconfig, {
      rateLimit: { qps: 2, burst: 1, untilServerFlowControl: false },
      onWait: (reason) => waits.push(reason),
    });
    try {
      const lease = kubeLeaseClient(kube, 'ops', 'limited');
      await kube.request({ method: 'GET', path: '/api/v1/namespaces/ops' });
      // The burst is spent: a Lease request goes at once all the same.
      expect(await lease.get()).toBeUndefined();
      expect(waits).toEqual([]);
      await kube.request({ method: 'GET', path: '/api/v1/namespaces/ops' });
      expect(waits).toEqual(['rate_limiter']);
    } finally {
      await kube.close();
      await api.close();
    }
  });
});
