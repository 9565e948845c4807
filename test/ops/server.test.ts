import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusStore } from '../../src/agent/status.ts';
import { silentLogger } from '../../src/log.ts';
import { createMetrics } from '../../src/ops/metrics.ts';
import { type Check, type OpsServer, startOpsServer } from '../../src/ops/server.ts';

describe('ops server', () => {
  const store = new StatusStore();
  const metrics = createMetrics({
    version: '9.9.9',
    deploymentStates: () => store.counts(),
    queueDepth: () => 3,
  });
  let healthy: Check = { ok: true, checks: { loop: { ok: true } } };
  let ready: Check = { ok: false, checks: { registered: { ok: false, detail: 'not yet' } } };
  let server: OpsServer;

  beforeAll(async () => {
    server = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      registry: metrics.registry,
      health: () => healthy,
      ready: () => ready,
      status: () => ({ deployments: store.list() }),
      logger: silentLogger(),
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers /healthz and /readyz with 200 or 503 and the checks', async () => {
    let res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', ok: true, checks: { loop: { ok: true } } });
    res = await fetch(`${server.url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      status: 'failing',
      checks: { registered: { detail: 'not yet' } },
    });
    healthy = { ok: false, checks: { loop: { ok: false, detail: 'stalled' } } };
    ready = { ok: true, checks: {} };
    expect((await fetch(`${server.url}/healthz`)).status).toBe(503);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('serves metrics from its own registry, with deployments by state and build info', async () => {
    store.observe({ id: 'd1', name: 'alpha', namespace: 'ns', revision: 'r1', controlPlaneStatus: 'READY' });
    store.observe({ id: 'd2', name: 'beta', namespace: 'ns', revision: 'r2', controlPlaneStatus: 'READY' });
    store.record('d1', { state: 'Ready', reason: null, changed: true, changes: 'created 2', atMs: 0 });
    metrics.reconciles.inc({ result: 'success' });
    const res = await fetch(`${server.url}/metrics`);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toContain('mooring_deployments{state="Ready"} 1');
    expect(text).toContain('mooring_deployments{state="Pending"} 1');
    expect(text).toContain('mooring_deployments{state="Refused"} 0');
    expect(text).toContain('mooring_queue_depth 3');
    expect(text).toContain('mooring_reconciles_total{result="success"} 1');
    expect(text).toMatch(/mooring_build_info\{version="9.9.9",node_version="[\d.]+"\} 1/);
    // Not the global registry: no default process metrics unless asked.
    expect(text).not.toContain('process_cpu_user_seconds_total');
  });

  it('serves /status as JSON', async () => {
    const body = (await (await fetch(`${server.url}/status`)).json()) as {
      deployments: { id: string; state: string }[];
    };
    expect(body.deployments.map((d) => [d.id, d.state])).toEqual([
      ['d1', 'Ready'],
      ['d2', 'Pending'],
    ]);
  });

  it('answers 404 for unknown paths and 405 for writes', async () => {
    expect((await fetch(`${server.url}/nope`)).status).toBe(404);
    expect((await fetch(`${server.url}/status`, { method: 'POST' })).status).toBe(405);
  });
});
