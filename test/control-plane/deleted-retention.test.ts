/**
 * `--deleted-retention`: a deleted deployment is listed as AWAITING_DELETE for the retention,
 * then it is gone (404, absent from listings, its revisions with it). The clock is injected.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DELETED_RETENTION_SECONDS } from '../../src/control-plane/server/index.ts';
import { dockerDeployment, type Harness, harness, LISTENER_ID, manualClock, raw } from './helpers.ts';

describe('deleted retention', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const names = async () => (await h!.client.listAllDeployments()).items.map((d) => `${d.name}:${d.status}`);

  it('keeps a deleted deployment listed as AWAITING_DELETE for the retention, then removes it (404, absent)', async () => {
    const clock = manualClock();
    h = await harness({ server: { now: clock.now, deletedRetentionSeconds: 60 } });
    const gone = await h.client.createDeployment(dockerDeployment('gone'));
    await h.client.createDeployment(dockerDeployment('kept'));
    await h.client.deleteDeployment(gone.id);
    clock.advance(59_999);
    expect(await names()).toEqual(['kept:READY', 'gone:AWAITING_DELETE']);
    // A second DELETE does not restart the retention.
    await h.client.deleteDeployment(gone.id);
    clock.advance(1);
    expect(await names()).toEqual(['kept:READY']);
    expect((await raw(h.server.url, 'GET', `/v2/deployments/${gone.id}`)).status).toBe(404);
    expect((await raw(h.server.url, 'GET', `/v2/deployments/${gone.id}/revisions`)).status).toBe(404);
    expect(h.server.store.dump().revisions).toHaveLength(1);
    // The name is free again, and the listener still has one deployment attached.
    expect((await h.client.createDeployment(dockerDeployment('gone'))).status).toBe('READY');
    expect((await raw(h.server.url, 'DELETE', `/v2/listeners/${LISTENER_ID}`)).status).toBe(409);
  });

  it('lets a listener be deleted once its last deployment is purged', async () => {
    const clock = manualClock();
    h = await harness({ server: { now: clock.now, deletedRetentionSeconds: 0 } });
    const d = await h.client.createDeployment(dockerDeployment('last'));
    await h.client.deleteDeployment(d.id);
    expect((await raw(h.server.url, 'DELETE', `/v2/listeners/${LISTENER_ID}`)).status).toBe(204);
  });

  it('defaults to an hour', async () => {
    expect(DEFAULT_DELETED_RETENTION_SECONDS).toBe(3600);
    const clock = manualClock();
    h = await harness({ server: { now: clock.now } });
    const d = await h.client.createDeployment(dockerDeployment('hour'));
    await h.client.deleteDeployment(d.id);
    clock.advance(3_599_000);
    expect(await names()).toEqual(['hour:AWAITING_DELETE']);
    clock.advance(1000);
    expect(await names()).toEqual([]);
  });
});
