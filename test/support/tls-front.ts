/**
 * TLS in front of a plain-HTTP test server (the reference control plane): a certificate for the
 * given names, signed by a CA made for this front alone, so a client trusts it only when given
 * that CA. Each TLS connection is piped to the server's port. With `clientCa`, a client
 * certificate signed by that CA is required (mTLS).
 */
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createServer } from 'node:tls';
import { createServingCertificate } from '../../src/sandbox/tls.ts';

export interface TlsFront {
  port: number;
  /** The CA that signed the front's certificate (PEM). */
  caPem: string;
  /** Connections whose TLS handshake completed. */
  readonly handshakes: number;
  close(): Promise<void>;
}

export async function startTlsFront(
  targetPort: number,
  hosts: string[],
  options: { clientCa?: string } = {},
): Promise<TlsFront> {
  const cert = await createServingCertificate(hosts);
  const sockets = new Set<Socket>();
  let handshakes = 0;
  const server = createServer(
    {
      cert: cert.certPem,
      key: cert.keyPem,
      ...(options.clientCa ? { ca: options.clientCa, requestCert: true, rejectUnauthorized: true } : {}),
    },
    (secure) => {
      handshakes++;
      const upstream = connect(targetPort, '127.0.0.1');
      for (const s of [secure, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => {});
      }
      secure.pipe(upstream).pipe(secure);
    },
  );
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    caPem: cert.caPem,
    get handshakes() {
      return handshakes;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
