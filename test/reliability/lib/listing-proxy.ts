/**
 * A control plane that misbehaves on demand: an HTTP proxy in front of the reference server that
 * can hide chosen deployments from `GET /v2/deployments`, or answer every listing with an empty
 * page, as a control plane with a bad database or a wrong tenant would. Everything else passes
 * through unchanged, `X-Total-Count` included.
 */
import { startProxyServer } from '../../support/proxy-server.ts';

export interface ListingProxy {
  url: string;
  /** `normal`, `empty` (no deployments at all) or a set of ids to leave out. */
  mode: 'normal' | 'empty' | Set<string>;
  /** Raw records appended to the first page (malformed ones, say). */
  extra: unknown[];
  close(): Promise<void>;
}

export async function startListingProxy(upstream: string): Promise<ListingProxy> {
  const proxy: ListingProxy = { url: '', mode: 'normal', extra: [], close: async () => {} };
  const server = await startProxyServer(async (req, body, res) => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === 'string' && k !== 'host' && k !== 'connection' && k !== 'content-length')
        headers.set(k, v);
    }
    const method = req.method ?? 'GET';
    const up = await fetch(`${upstream}${req.url ?? '/'}`, {
      method,
      headers,
      ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
    });
    let text = await up.text();
    const path = (req.url ?? '/').split('?')[0];
    const changed = proxy.mode !== 'normal' || proxy.extra.length > 0;
    const rewrites = method === 'GET' && path === '/v2/deployments' && up.status === 200 && changed;
    // A page passed through keeps the upstream's listing total (ADR 0003); a rewritten one
    // drops it, so the client ends the walk by the short-page rule, as before the header.
    const total = rewrites ? null : up.headers.get('x-total-count');
    if (rewrites) {
      const page = JSON.parse(text) as { resources: { id: string }[]; offset: number };
      const requested = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('offset') ?? 0);
      const mode = proxy.mode;
      const kept: unknown[] =
        mode === 'empty'
          ? []
          : mode === 'normal'
            ? page.resources
            : page.resources.filter((d) => !mode.has(d.id));
      if (requested === 0) kept.push(...proxy.extra);
      text = JSON.stringify({ resources: kept, offset: requested + kept.length });
    }
    res.writeHead(up.status, {
      'content-type': up.headers.get('content-type') ?? 'application/json',
      ...(total !== null ? { 'x-total-count': total } : {}),
    });
    res.end(text);
  });
  proxy.url = server.url;
  proxy.close = server.close;
  return proxy;
}
