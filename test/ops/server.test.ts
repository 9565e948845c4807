import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusStore } from '../../src/agent/status.ts';
import { silentLogger } from '../../src/log.ts';
import { createMetrics } from '../../src/ops/metrics.ts';
import {
  type Check,
  isLoopbackAddress,
  type OpsServer,
  STATUS_LOOPBACK_ONLY,
  startOpsServer,
} from '../../src/ops/server.ts';

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

/** An IPv4 address of this machine that is not loopback (what a pod's IP is to the agent), if any. */
const podIp = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

describe.skipIf(podIp === undefined)('ops server bound to the pod IP (as the chart runs it)', () => {
  const metrics = createMetrics({ version: '9.9.9' });
  const check: Check = { ok: true, checks: {} };
  const start = (host: string) =>
    startOpsServer({
      host,
      port: 0,
      registry: metrics.registry,
      health: () => check,
      ready: () => check,
      status: () => ({ deployments: [{ id: 'd1', name: 'alpha' }] }),
      logger: silentLogger(),
    });
  let server: OpsServer;
  beforeAll(async () => {
    server = await start(podIp!);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('serves /healthz, /readyz and /metrics on the pod IP (kubelet probes, Prometheus)', async () => {
    expect(server.url).toBe(`http://${podIp}:${server.port}`);
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      expect((await fetch(`${server.url}${path}`)).status, path).toBe(200);
    }
  });

  it('refuses /status on the pod IP with a 403 that says how to get it', async () => {
    const res = await fetch(`${server.url}/status`);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ detail: STATUS_LOOPBACK_ONLY });
  });

  it('also listens on 127.0.0.1 at the same port, where /status answers (port-forward, exec)', async () => {
    expect(server.statusUrl).toBe(`http://127.0.0.1:${server.port}`);
    const res = await fetch(`${server.statusUrl}/status`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ deployments: [{ id: 'd1', name: 'alpha' }] });
    expect((await fetch(`${server.statusUrl}/metrics`)).status).toBe(200);
  });

  it('bound to every interface (an explicit 0.0.0.0), still answers /status to loopback only', async () => {
    const wide = await start('0.0.0.0');
    try {
      expect((await fetch(`http://127.0.0.1:${wide.port}/status`)).status).toBe(200);
      expect((await fetch(`http://${podIp}:${wide.port}/status`)).status).toBe(403);
      expect((await fetch(`http://${podIp}:${wide.port}/metrics`)).status).toBe(200);
    } finally {
      await wide.close();
    }
  });

  it('fails to start, and holds no port, when 127.0.0.1 at that port is taken', async () => {
    const blocker = await start('127.0.0.1');
    const options = {
      host: podIp!,
      port: blocker.port,
      registry: metrics.registry,
      health: () => check,
      ready: () => check,
      status: () => ({}),
      logger: silentLogger(),
    };
    await expect(startOpsServer(options)).rejects.toThrow(/not on 127\.0\.0\.1/);
    await blocker.close();
    // The pod-IP listener was closed again: both addresses at that port can be had now.
    const again = await startOpsServer(options);
    expect(again.port).toBe(blocker.port);
    await again.close();
  });
});

describe('isLoopbackAddress', () => {
  it('knows 127.0.0.0/8, ::1 and their IPv4-mapped forms, and nothing else', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'])
      expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ['10.0.0.1', '::ffff:10.0.0.1', 'fd00::2', '0.0.0.0', '', undefined, '128.0.0.1'])
      expect(isLoopbackAddress(a), String(a)).toBe(false);
  });
});
