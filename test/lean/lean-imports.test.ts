import { execFileSync } from 'node:child_process';
import * as promClient from 'prom-client';
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import * as leanPromClient from '../../src/lean/prom-client.ts';
import * as leanUndici from '../../src/lean/undici.ts';

// src/lean loads single modules of undici and prom-client by their paths inside the packages.
// Those paths are not the packages' public entry points: an upgrade that moves or splits them must
// fail here, not in a cluster.
describe('lean imports', () => {
  it('are the very classes undici exports', () => {
    expect(leanUndici.Agent).toBe(undici.Agent);
    expect(leanUndici.Pool).toBe(undici.Pool);
    expect(leanUndici.ProxyAgent).toBe(undici.ProxyAgent);
  });

  it('are the very classes prom-client exports', () => {
    expect(leanPromClient.Registry).toBe(promClient.Registry);
    expect(leanPromClient.Counter).toBe(promClient.Counter);
    expect(leanPromClient.Gauge).toBe(promClient.Gauge);
    expect(leanPromClient.Histogram).toBe(promClient.Histogram);
  });

  it('register prom-client’s process memory and start time metrics under their standard names', async () => {
    const registry = new leanPromClient.Registry();
    leanPromClient.processMemoryMetrics(registry);
    leanPromClient.processStartTimeMetric(registry);
    const text = await registry.metrics();
    const rss = Number(/^process_resident_memory_bytes (\d+)$/m.exec(text)?.[1]);
    expect(rss).toBeGreaterThan(1024 * 1024);
    const start = Number(/^process_start_time_seconds (\d+)$/m.exec(text)?.[1]);
    expect(Math.abs(start - (Date.now() / 1000 - process.uptime()))).toBeLessThan(5);
  });

  it('serve the agent in a process that never loads the packages’ indexes', () => {
    // A fresh process (vitest's own workers load undici's index, which adds methods to every
    // dispatcher): load `mooring run`, make one control-plane request through the lean Pool, and
    // list the files of the two packages that were evaluated.
    const url = (p: string) => JSON.stringify(new URL(p, import.meta.url).href);
    const script = `
      import module from 'node:module';
      import http from 'node:http';
      const seen = [];
      module.registerHooks({ load(u, context, next) { seen.push(u); return next(u, context); } });
      await import(${url('../../src/cli/run.ts')});
      const { Transport } = await import(${url('../../src/control-plane/client-http.ts')});
      const server = http.createServer((req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-total-count': '7' });
        res.end(JSON.stringify({ path: req.url, key: req.headers['x-api-key'] }));
      });
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const transport = new Transport({ baseUrl: 'http://127.0.0.1:' + server.address().port, apiKey: 'k', retries: 0 });
      const answer = await transport.exchange({ method: 'GET', route: '/v2/things', path: '/v2/things', query: { limit: '1' }, ok: [200] });
      server.close();
      const indexes = seen.filter((u) => /node_modules\\/(undici|prom-client)\\/index\\.js$/.test(u));
      console.log(JSON.stringify({ indexes, body: answer.body, total: answer.headers['x-total-count'] }));
      process.exit(0);
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out.trim().split('\n').at(-1) ?? 'null')).toEqual({
      indexes: [],
      body: { path: '/v2/things?limit=1', key: 'k' },
      total: '7',
    });
  });

  it('tunnel through a proxy in a process that never loads the packages’ indexes', () => {
    // undici's ProxyAgent opens its tunnel with `Dispatcher#connect`, which only undici's index
    // installs: without it a kubeconfig proxy-url or HTTPS_PROXY failed in the agent alone.
    const url = (p: string) => JSON.stringify(new URL(p, import.meta.url).href);
    const script = `
      import http from 'node:http';
      const { startConnectProxy } = await import(${url('../support/connect-proxy.ts')});
      const { Transport } = await import(${url('../../src/control-plane/client-http.ts')});
      const server = http.createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const proxy = await startConnectProxy({ hosts: { 'cp.mooring.test': '127.0.0.1' } });
      const transport = new Transport({ baseUrl: 'http://cp.mooring.test:' + server.address().port, apiKey: 'k', retries: 0, env: { HTTP_PROXY: proxy.url } });
      const answer = await transport.exchange({ method: 'GET', route: '/v2/things', path: '/v2/things', ok: [200] }).catch((e) => ({ body: e.message }));
      console.log(JSON.stringify({ body: answer.body, tunnels: proxy.tunnels.length }));
      process.exit(0);
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out.trim().split('\n').at(-1) ?? 'null')).toEqual({ body: { ok: true }, tunnels: 1 });
  });
});
