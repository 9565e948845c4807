import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeLines } from '../../src/lean/exchange-lines.ts';
import { type BodySink, exchange } from '../../src/lean/exchange.ts';
import { Agent } from '../../src/lean/undici.ts';

/** Answers `/ok` in two writes 20 ms apart, anything else 404 with a Status. */
let server: Server;
let origin: string;
const agent = new Agent();

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url !== '/ok') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"kind":"Status","code":404}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"a":1}\n{"b":');
    setTimeout(() => res.end('2}\n'), 20);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await agent.close();
  await new Promise((r) => server.close(r));
});

/** `exchange` with a sink for its 2xx body. */
const exchangeStreamed = (
  dispatcher: Agent,
  options: Parameters<typeof exchange>[1],
  sink: BodySink,
  signal?: AbortSignal,
) => exchange(dispatcher, options, { signal, sink });

describe('exchange with a sink', () => {
  it("hands a 2xx body to the sink as it arrives, then ends it; the answer's text is empty", async () => {
    const seen: string[] = [];
    const answer = await exchangeStreamed(
      agent,
      { origin, path: '/ok', method: 'GET' },
      { write: (chunk) => seen.push(`write ${chunk.toString()}`), end: () => seen.push('end') },
    );
    expect(answer).toMatchObject({ status: 200, text: '' });
    expect(seen.at(-1)).toBe('end');
    // The first write came before the rest of the body was sent.
    expect(seen[0]).toBe('write {"a":1}\n{"b":');
    expect(seen.slice(0, -1).join('').replaceAll('write ', '')).toBe('{"a":1}\n{"b":2}\n');
  });

  it('collects any other answer whole and never calls the sink', async () => {
    const seen: string[] = [];
    const answer = await exchangeStreamed(
      agent,
      { origin, path: '/missing', method: 'GET' },
      { write: () => seen.push('write'), end: () => seen.push('end') },
    );
    expect(answer).toMatchObject({ status: 404, text: '{"kind":"Status","code":404}' });
    expect(seen).toEqual([]);
  });

  it('rejects with what the sink throws, from a write or from its end', async () => {
    const refused = new Error('refused');
    const fromWrite = exchangeStreamed(
      agent,
      { origin, path: '/ok', method: 'GET' },
      {
        write: () => {
          throw refused;
        },
        end: () => {},
      },
    );
    await expect(fromWrite).rejects.toBe(refused);
    const fromEnd = exchangeStreamed(
      agent,
      { origin, path: '/ok', method: 'GET' },
      {
        write: () => {},
        end: () => {
          throw refused;
        },
      },
    );
    await expect(fromEnd).rejects.toBe(refused);
  });

  it('carries exchangeLines: each line of a 2xx answer, a line cut across chunks whole', async () => {
    const lines: string[] = [];
    await exchangeLines(agent, { origin, path: '/ok', method: 'GET' }, (line) => lines.push(line));
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
  });
});
