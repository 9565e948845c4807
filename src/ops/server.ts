/**
 * The ops HTTP server: `/healthz` (liveness), `/readyz` (readiness), `/metrics` (Prometheus) and
 * `/status` (JSON per deployment). Read-only, GET only, unauthenticated.
 *
 * `/status` names every deployment, namespace and failure reason of the listener: it answers only
 * connections made to and from the loopback interface, which is how `kubectl port-forward` and
 * `kubectl exec` reach a pod (the container runtime connects to 127.0.0.1 inside the pod's network
 * namespace); anyone else gets a 403. `/healthz`, `/readyz` and `/metrics` answer everyone (the
 * kubelet's probes and Prometheus come to the pod's IP). The agent binds to the pod's IP, not every
 * interface; bound to an address other than loopback or a wildcard, the server also listens on
 * 127.0.0.1 at the same port, so that port-forward still reaches it. The status it is given holds
 * no secret (see `agent/status.ts`; the agent scrubs it with its redactor).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Logger } from '../log.ts';

/** A check result: ok, plus named sub-checks for the body. */
export interface Check {
  ok: boolean;
  checks: Record<string, { ok: boolean; detail?: string }>;
}

export interface OpsServerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 = any free port. */
  port?: number;
  registry: Registry;
  /** Liveness: the process works and its loops are not stalled. */
  health: () => Check;
  /** Readiness: started, registered, Kubernetes reachable. */
  ready: () => Check;
  /** The `/status` document (served to loopback clients only). */
  status: () => unknown;
  logger: Logger;
}

export interface OpsServer {
  /** The base URL on `host`. */
  url: string;
  /** The base URL `/status` answers on (loopback). */
  statusUrl: string;
  port: number;
  close(): Promise<void>;
}

/** The 403 of `/status` to a client that is not on the loopback interface. */
export const STATUS_LOOPBACK_ONLY =
  '/status answers loopback clients only: use kubectl port-forward (then mooring status, or curl localhost) or kubectl exec';

const WILDCARDS: ReadonlySet<string> = new Set(['0.0.0.0', '::', '']);

/** True for 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.toLowerCase().replace(/^::ffff:/, '');
  return a === '::1' || (isIP(a) === 4 && a.startsWith('127.'));
}

/** Whether `host` names the loopback interface (an address of it, or `localhost`). */
function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || isLoopbackAddress(host);
}

/**
 * Whether the request came over loopback at both ends: from a loopback address to one. The local
 * end matters too: a proxy in the pod (a service-mesh sidecar) that forwards remote clients to the
 * pod's IP from a loopback source address must not pass for a local client.
 */
function fromLoopback(req: IncomingMessage): boolean {
  return isLoopbackAddress(req.socket.remoteAddress) && isLoopbackAddress(req.socket.localAddress);
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

function urlOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
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
        if (!fromLoopback(req)) {
          return send(res, 403, `${JSON.stringify({ detail: STATUS_LOOPBACK_ONLY })}\n`, 'application/json');
        }
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
  const make = () => {
    const server = createServer((req, res) => {
      handle(req, res).catch((err: unknown) => {
        options.logger.error({ err, path: req.url }, 'ops request failed');
        if (!res.headersSent) send(res, 500, '{"detail":"internal error"}\n', 'application/json');
        else res.end();
      });
    });
    server.keepAliveTimeout = 5000;
    return server;
  };
  const host = options.host ?? '127.0.0.1';
  const servers = [make()];
  const port = await listen(servers[0]!, options.port ?? 8080, host);
  // Bound to one address of another interface (the pod's IP): loopback too, on the same port, for
  // port-forward and exec. A wildcard covers loopback already.
  const alsoLoopback = !WILDCARDS.has(host) && !isLoopbackHost(host);
  if (alsoLoopback) {
    const loopback = make();
    try {
      await listen(loopback, port, '127.0.0.1');
    } catch (err) {
      await new Promise<void>((resolve) => servers[0]!.close(() => resolve()));
      throw new Error(
        `listening on ${host}:${port}, but not on 127.0.0.1:${port} for /status: ${(err as Error).message}`,
      );
    }
    servers.push(loopback);
  }
  const shown = WILDCARDS.has(host) ? '127.0.0.1' : host;
  return {
    url: urlOf(shown, port),
    statusUrl: urlOf(alsoLoopback ? '127.0.0.1' : shown, port),
    port,
    close: () =>
      Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      ).then(() => undefined),
  };
}
