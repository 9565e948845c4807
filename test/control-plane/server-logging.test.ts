import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlPlaneServer, startControlPlane } from '../../src/control-plane/server/index.ts';
import { createLogger } from '../../src/log.ts';
import { API_KEY, BASE_SEED, dockerDeployment, raw } from './helpers.ts';

const SECRET = 'canary-secret-value-51d2';

describe('control-plane server logging and unexpected errors', () => {
  const lines: string[] = [];
  let server: ControlPlaneServer;

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    server = await startControlPlane({
      apiKey: API_KEY,
      seed: BASE_SEED,
      logger: createLogger({ destination }),
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('logs one line per request with method, route, status and duration; never headers or bodies', async () => {
    lines.length = 0;
    const body = JSON.stringify({ ...dockerDeployment('logged'), secrets: [{ name: 'S', value: SECRET }] });
    const created = await raw(server.url, 'POST', '/v2/deployments', { body });
    expect(created.status).toBe(201);
    await raw(server.url, 'GET', '/v2/deployments?name=logged');
    await raw(server.url, 'GET', '/v2/deployments', { apiKey: 'wrong-key' });
    expect(lines).toHaveLength(3);
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed.map((p) => [p.method, p.route, p.status])).toEqual([
      ['POST', '/v2/deployments', 201],
      ['GET', '/v2/deployments', 200],
      ['GET', '/v2/deployments', 401],
    ]);
    for (const p of parsed) expect(typeof p.durationMs).toBe('number');
    for (const line of lines) {
      expect(line).not.toContain(SECRET);
      expect(line).not.toContain(API_KEY);
      expect(line).not.toContain('wrong-key');
      expect(line).not.toContain('name=logged');
    }
  });

  it('answers an unexpected failure with a generic 500 and logs it without the request body', async () => {
    lines.length = 0;
    // Closing the database under the server makes every store call throw: a stand-in for a bug.
    server.store.close();
    const res = await raw(server.url, 'PATCH', '/v2/deployments/11111111-1111-4111-8111-111111111111', {
      body: JSON.stringify({ secrets: [{ name: 'S', value: SECRET }] }),
    });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ detail: 'Internal Server Error' });
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed.map((p) => p.msg)).toEqual(['unexpected error', 'request']);
    expect(parsed[0].errorName).toBeTruthy();
    for (const line of lines) expect(line).not.toContain(SECRET);
  });
});
