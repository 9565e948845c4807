/**
 * A control plane that does not (or wrongly) extend the interface: a loopback HTTP proxy in front
 * of the reference server that passes every request and body through and lets a test replace the
 * `X-Total-Count` of list answers (drop it, garble it, repeat it, make it lie).
 */
import { request } from 'undici';
import { startProxyServer } from '../support/proxy-server.ts';

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
  const server = await startProxyServer(async (req, body, res) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === 'string' && !HOP_BY_HOP.has(k)) headers[k] = v;
    }
    const method = (req.method ?? 'GET') as 'GET';
    const up = await request(`${upstream}${req.url ?? '/'}`, {
      method,
      headers,
      ...(body.length > 0 ? { body } : {}),
    });
    const text = await up.body.text();
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
    res.end(text);
  });
  proxy.url = server.url;
  proxy.close = server.close;
  return proxy;
}
