/**
 * A control plane that does not (or wrongly) extend the interface: a loopback HTTP proxy in front
 * of the reference server that passes every request and body through and lets a test replace the
 * `X-Total-Count` of list answers (drop it, garble it, repeat it, make it lie).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

/**
 * Given the upstream's total (undefined when it sent none) and the request URL, the header to
 * send instead: undefined drops it, an array repeats it.
 */
export type TotalRewrite = (upstream: string | undefined, url: URL) => string | string[] | undefined;

export interface HeaderProxy {
  url: string;
  rewrite: TotalRewrite;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

export async function startHeaderProxy(upstream: string, rewrite: TotalRewrite): Promise<HeaderProxy> {
  const proxy: HeaderProxy = { url: '', rewrite, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) {
          if (typeof v === 'string' && !HOP_BY_HOP.has(k)) headers[k] = v;
        }
        const method = (req.method ?? 'GET') as 'GET';
        const up = await request(`${upstream}${req.url ?? '/'}`, {
          method,
          headers,
          ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        });
        const body = await up.body.text();
        const out: Record<string, string | string[]> = {};
        for (const [k, v] of Object.entries(up.headers)) {
          if (v !== undefined && !HOP_BY_HOP.has(k) && k !== 'x-total-count') out[k] = v;
        }
        const given = up.headers['x-total-count'];
        const total = proxy.rewrite(
          typeof given === 'string' ? given : undefined,
          new URL(req.url ?? '/', 'http://proxy'),
        );
        if (total !== undefined) out['x-total-count'] = total;
        res.writeHead(up.statusCode, out);
        res.end(body);
      } catch {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end('{"detail":"upstream unreachable"}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return proxy;
}
