/**
 * A real forward proxy for tests: it answers HTTP CONNECT only, counts the tunnels it opens, can
 * refuse them with a chosen status, and resolves host names from its own table (so a name that
 * only the proxy knows proves a client went through it). Every tunnel's target and
 * Proxy-Authorization header are recorded.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';

export interface ConnectProxyOptions {
  /** Host name → address the proxy connects to instead of resolving the name. */
  hosts?: Record<string, string>;
}

export interface ConnectProxy {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  port: number;
  /** `host:port` of every CONNECT received, refused ones included. */
  readonly tunnels: string[];
  /** The Proxy-Authorization header of every CONNECT ('' when absent). */
  readonly authorizations: string[];
  /** Answers every following CONNECT with this status (undefined: tunnel again). */
  refuseWith(status: number | undefined): void;
  close(): Promise<void>;
}

export async function startConnectProxy(options: ConnectProxyOptions = {}): Promise<ConnectProxy> {
  const tunnels: string[] = [];
  const authorizations: string[] = [];
  const sockets = new Set<Socket>();
  let refusal: number | undefined;
  const server = createServer((_req, res) => {
    res.writeHead(405).end('CONNECT only');
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    const target = req.url ?? '';
    tunnels.push(target);
    authorizations.push(String(req.headers['proxy-authorization'] ?? ''));
    if (refusal !== undefined) {
      client.end(`HTTP/1.1 ${refusal} Refused by policy\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const at = target.lastIndexOf(':');
    const host = target.slice(0, at).replace(/^\[|\]$/g, '');
    const upstream = connect(Number(target.slice(at + 1)), options.hosts?.[host] ?? host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    tunnels,
    authorizations,
    refuseWith: (status) => {
      refusal = status;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
