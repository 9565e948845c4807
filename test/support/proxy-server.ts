/**
 * A loopback HTTP server for test proxies in front of the reference control plane: it collects
 * each request's body, hands the request to `forward`, answers 502 when forwarding throws, and
 * closes with its connections.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxyServer {
  url: string;
  close(): Promise<void>;
}

export async function startProxyServer(
  forward: (req: IncomingMessage, body: Buffer, res: ServerResponse) => Promise<void>,
): Promise<ProxyServer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        await forward(req, Buffer.concat(chunks), res);
      } catch {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end('{"detail":"upstream unreachable"}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
