/**
 * The ops HTTP server: `/healthz` (liveness), `/readyz` (readiness), `/metrics` (Prometheus) and
 * `/status` (JSON per deployment). Read-only, GET only; it never serves a secret because the
 * status it is given holds none (see `agent/status.ts`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Logger } from '../log.ts';

/** A check result: ok, plus named sub-checks for the body. */
export interface Check {
  ok: boolean;
  checks: Record<string, { ok: boolean; detail?: string }>;
}

export interface OpsServerOptions {
  host?: string;
  /** 0 = any free port. */
  port?: number;
  registry: Registry;
  /** Liveness: the process works and its loops are not stalled. */
  health: () => Check;
  /** Readiness: started, registered, Kubernetes reachable. */
  ready: () => Check;
  /** The `/status` document. */
  status: () => unknown;
  logger: Logger;
}

export interface OpsServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: string, contentType: string): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  res.end(body);
}

function sendCheck(res: ServerResponse, check: Check): void {
  send(
    res,
    check.ok ? 200 : 503,
    `${JSON.stringify({ status: check.ok ? 'ok' : 'failing', ...check })}\n`,
    'application/json',
  );
}

export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      send(res, 405, '{"detail":"method not allowed"}\n', 'application/json');
      return;
    }
    switch (path) {
      case '/healthz':
        return sendCheck(res, options.health());
      case '/readyz':
        return sendCheck(res, options.ready());
      case '/metrics':
        return send(res, 200, await options.registry.metrics(), options.registry.contentType);
      case '/status':
        return send(res, 200, `${JSON.stringify(options.status(), null, 2)}\n`, 'application/json');
      default:
        return send(
          res,
          404,
          '{"detail":"not found: try /healthz, /readyz, /metrics, /status"}\n',
          'application/json',
        );
    }
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      options.logger.error({ err, path: req.url }, 'ops request failed');
      if (!res.headersSent) send(res, 500, '{"detail":"internal error"}\n', 'application/json');
      else res.end();
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host =
    options.host && options.host !== '0.0.0.0' && options.host !== '::' ? options.host : '127.0.0.1';
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
