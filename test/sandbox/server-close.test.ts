/**
 * Closing the sandbox ends every connection, also one that never finished its TLS handshake
 * (regression: such a connection, opened by a client for a request it then dropped, held `close`
 * for about a minute, and a test file's `afterAll` with it).
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startKubeApi } from '../../src/sandbox/server.ts';

describe('sandbox close', () => {
  it('ends a connection still waiting for its TLS handshake', { timeout: 10_000 }, async () => {
    const api = await startKubeApi({ namespaces: ['a'] });
    const { hostname, port } = new URL(api.url);
    const raw = connect(Number(port), hostname);
    await new Promise<void>((resolve, reject) => raw.once('connect', resolve).once('error', reject));
    const ended = new Promise<void>((resolve) => raw.once('close', () => resolve()));
    raw.on('error', () => undefined);
    await api.close();
    await ended;
    expect(raw.destroyed).toBe(true);
  });
});
