/**
 * A control plane answering a huge body (64 MiB, a hostile or broken one) is not read past the
 * cap: that request fails alone with MOORING_E_CP_RESPONSE_TOO_LARGE, without a retry, the server
 * sees the connection closed long before it wrote its body, and the next requests are answered.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlaneClient } from '../../src/control-plane/client.ts';
import { CONTROL_PLANE_MAX_RESPONSE_BYTES } from '../../src/control-plane/client-http.ts';
import { MooringError } from '../../src/errors.ts';

const HUGE = 64 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x20);

describe('the control-plane answer cap', () => {
  let server: Server;
  let url = '';
  /** Bytes of the huge body the server managed to write before the client hung up. */
  let written = 0;
  let hugeRequests = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      if (req.url?.startsWith('/v2/deployments')) {
        hugeRequests++;
        res.writeHead(200, { 'content-type': 'application/json' });
        // A page whose one record holds 64 MiB of spaces: valid JSON, were it read to the end.
        res.write('{"items":[{"name":"');
        const pump = () => {
          while (written < HUGE) {
            written += CHUNK.length;
            if (!res.write(CHUNK)) {
              res.once('drain', pump);
              return;
            }
          }
          res.end('"}],"offset":1}');
        };
        res.on('close', () => res.removeAllListeners('drain'));
        pump();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify([{ id: 'tok-1', provider_id: 'p' }]));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('refuses a 64 MiB page with a coded error, reads little of it, and answers the next request', async () => {
    const client = new ControlPlaneClient({ baseUrl: url, apiKey: 'k', retryMinDelayMs: 1 });
    try {
      const err = await client.listAllDeployments().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(MooringError);
      expect((err as MooringError).code).toBe('MOORING_E_CP_RESPONSE_TOO_LARGE');
      expect((err as MooringError).message).toContain('GET /v2/deployments');
      expect((err as MooringError).retryable).toBe(false);
      // Not retried: one request, and its body abandoned well before its end.
      expect(hugeRequests).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(written).toBeLessThan(HUGE / 2);
      expect(await client.listTokens()).toEqual([{ id: 'tok-1', provider_id: 'p' }]);
    } finally {
      await client.close();
    }
  });

  it('the default cap is 4 MiB, and a setting changes it', async () => {
    expect(CONTROL_PLANE_MAX_RESPONSE_BYTES).toBe(4 * 1024 * 1024);
    const client = new ControlPlaneClient({ baseUrl: url, apiKey: 'k', maxResponseBytes: 16 });
    try {
      const err = (await client.listTokens().catch((e: unknown) => e)) as MooringError;
      expect(err.code).toBe('MOORING_E_CP_RESPONSE_TOO_LARGE');
      expect(err.details).toMatchObject({ limitBytes: 16, route: expect.any(String) });
    } finally {
      await client.close();
    }
  });
});
