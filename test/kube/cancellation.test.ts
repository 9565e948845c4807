/**
 * Writes that can be cancelled, and deletes that cannot hit a successor: a reconcile's signal
 * reaches every request of an apply or delete batch (a request in flight is cut, none follows,
 * nothing unfinished enters the apply memo), and a prune carries the listed object's uid, so an
 * object replaced under the same name since the listing is left alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplyMemo } from '../../src/kube/memo.ts';
import { objectId } from '../../src/objects/object-id.ts';
import type { KubeObject } from '../../src/objects/kube-object.ts';
import { type KubeApi, startKubeApi } from '../../src/sandbox/server.ts';
import { DEPLOYMENT, deployment, LISTENER, service } from './fixtures.ts';
import { capturedLogger, managerFor } from './sandbox.ts';

let api: KubeApi;

beforeAll(async () => {
  api = await startKubeApi({ namespaces: ['cut', 'cutdel', 'swap'] });
});
afterAll(async () => {
  await api?.close();
});

const LATENCY_MS = 1_500;

/** Aborts `controller` once a request matching `verb`/`resource` has reached the API server. */
async function abortWhenSent(controller: AbortController, verb: string, resource: string): Promise<number> {
  for (;;) {
    if (api.requests({ verb, resource }).length > 0) {
      const at = Date.now();
      controller.abort(new Error('test: cancelled'));
      return at;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('a cancelled apply batch', () => {
  it('cuts the request in flight, sends nothing more, and leaves the memo without what it did not finish', async () => {
    const memo = new ApplyMemo();
    const rm = managerFor(api, { memo });
    // Kind order: Service, then Deployment (delayed), then nothing after it may be written.
    const objects: KubeObject[] = [service('cut'), deployment('cut'), deployment('cut', 'second')];
    api.clearRequests();
    api.setFaults([{ verb: 'apply', resource: 'deployments', latencyMs: LATENCY_MS }]);
    const controller = new AbortController();
    try {
      const applying = rm.applyAll(objects, { live: new Map(), signal: controller.signal });
      const abortedAt = await abortWhenSent(controller, 'apply', 'deployments');
      await expect(applying).rejects.toThrow();
      // No write reached the server after the abort.
      const late = api.requests().filter((r) => r.write && Date.parse(r.time) > abortedAt);
      expect(late.map((r) => `${r.verb} ${r.resource}/${r.name}`)).toEqual([]);
      expect(api.requests({ verb: 'apply', resource: 'deployments' }).length).toBe(1);
      // The Service was applied and verified; the Deployment cut in flight is neither.
      expect(memo.has(objectId(service('cut')))).toBe(true);
      expect(memo.has(objectId(deployment('cut')))).toBe(false);
      expect(memo.has(objectId(deployment('cut', 'second')))).toBe(false);
      // The server did not act on the request whose client went away.
      await new Promise((r) => setTimeout(r, LATENCY_MS + 200));
      expect(api.hasObject('apps/v1', 'Deployment', 'cut', 'app')).toBe(false);
    } finally {
      api.clearFaults();
    }
  });
});

describe('a cancelled delete batch', () => {
  it('cuts the delete in flight and deletes nothing more', async () => {
    const rm = managerFor(api);
    await rm.applyAll([deployment('cutdel'), service('cutdel'), service('cutdel', 'second')]);
    const inv = await rm.listOwned({
      namespaces: ['cutdel'],
      listenerId: LISTENER,
      deploymentId: DEPLOYMENT,
    });
    api.clearRequests();
    api.setFaults([{ verb: 'delete', resource: 'deployments', latencyMs: LATENCY_MS }]);
    const controller = new AbortController();
    try {
      const deleting = rm.deleteAll(inv.objects, { deleteVolumes: false, signal: controller.signal });
      const abortedAt = await abortWhenSent(controller, 'delete', 'deployments');
      await expect(deleting).rejects.toThrow();
      const late = api.requests().filter((r) => r.write && Date.parse(r.time) > abortedAt);
      expect(late).toEqual([]);
      await new Promise((r) => setTimeout(r, LATENCY_MS + 200));
      expect(api.hasObject('apps/v1', 'Deployment', 'cutdel', 'app')).toBe(true);
      expect(api.hasObject('v1', 'Service', 'cutdel', 'app')).toBe(true);
    } finally {
      api.clearFaults();
    }
  });
});

describe('a prune of an object replaced under the same name', () => {
  it('deletes nothing: the listed uid is a precondition, and the conflict is "not ours any more"', async () => {
    const { logger, lines } = capturedLogger();
    const rm = managerFor(api, { logger });
    await rm.applyAll([service('swap')]);
    const inv = await rm.listOwned({ namespaces: ['swap'], listenerId: LISTENER, deploymentId: DEPLOYMENT });
    const listed = inv.byId.get(objectId(service('swap')))!;
    // Replaced since the listing: deleted, and made again under the same name (another uid).
    await rm.deleteAll([listed], { deleteVolumes: false });
    await rm.applyAll([service('swap')]);
    const successor = api.getObject('v1', 'Service', 'swap', 'app')?.metadata?.uid;
    expect(successor).toBeDefined();
    expect(successor).not.toBe(listed.metadata.uid);
    api.clearRequests();
    const cs = await rm.deleteAll([listed], { deleteVolumes: false });
    expect(api.getObject('v1', 'Service', 'swap', 'app')?.metadata?.uid).toBe(successor);
    expect(cs.entries).toHaveLength(1);
    expect(cs.entries[0]).toMatchObject({ action: 'skipped', detail: 'replaced' });
    expect(cs.entries[0]?.error).toBeUndefined();
    // One request, not a retry storm; said once in the log.
    expect(api.requests({ verb: 'delete' })).toHaveLength(1);
    expect(lines().filter((l) => String(l.msg).includes('replaced under the same name'))).toHaveLength(1);
  });
});
