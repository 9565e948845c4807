import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { fieldRedactor, pathSegments } from '../src/log-redact.ts';
import { REDACT_PATHS, createLogger } from '../src/log.ts';

const CENSOR = '[redacted]';

/** Lines written by `log` through a logger made by `make`, parsed, without their time. */
function linesOf(
  make: (stream: Writable) => pino.Logger,
  log: (logger: pino.Logger) => void,
): Array<Record<string, unknown>> {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  log(make(stream));
  return chunks
    .join('')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const { time: _time, ...rest } = JSON.parse(l) as Record<string, unknown>;
      return rest;
    });
}

/** What pino's own `redact` option makes of the same lines (the guard this module replaces). */
const pinoRedacted = (stream: Writable) =>
  pino(
    {
      level: 'debug',
      base: {},
      redact: { paths: REDACT_PATHS, censor: CENSOR },
      formatters: { level: (label) => ({ level: label }) },
    },
    stream,
  );
const ours = (stream: Writable) => createLogger({ level: 'debug', destination: stream });

/** Log objects that put a secret at every kind of path the list names, and some that do not. */
function hostileLines(): Array<Record<string, unknown>> {
  const withData = Object.assign(new Error('boom'), { data: 's3cr3t-data', code: 'X' });
  return [
    { apiKey: 'k1', other: 'kept' },
    { request: { apiKey: 'k2', url: '/v2' }, n: 3 },
    { headers: { 'x-api-key': 'k3', accept: 'json' } },
    { res: { headers: { 'x-api-key': 'k4', authorization: 'Bearer t' } } },
    { req: { headers: { 'x-api-key': 'k5' } } },
    { authorization: 'Basic a', call: { authorization: 'Bearer b' } },
    { headers: { authorization: 'Bearer c' } },
    { secrets: [{ name: 'A', value: 'v1' }, { name: 'B', value: 'v2' }, { name: 'C' }] },
    { record: { secrets: [{ name: 'A', value: 'v3' }] } },
    { page: { record: { secrets: [{ value: 'v4' }, 'plain'] } } },
    { value: 'v5', stringData: { K: 'v6' }, data: { K: 'djc=' }, password: 'p', token: 't' },
    { obj: { stringData: { K: 'v8' }, data: 'v9', password: 'p2', token: 't2', keep: 1 } },
    { err: withData },
    { list: [{ apiKey: 'k6' }, { data: 'x' }] },
    {
      deploymentId: 'd',
      changes: 'created 8',
      durationMs: 3,
      nothing: null,
      deep: { a: { b: { token: 'kept' } } },
    },
  ];
}

describe('pathSegments (pino redact syntax)', () => {
  it('splits dots, quoted brackets and wildcards', () => {
    expect(pathSegments('a.b')).toEqual(['a', 'b']);
    expect(pathSegments('*.headers["x-api-key"]')).toEqual(['*', 'headers', 'x-api-key']);
    expect(pathSegments("h['y.z']")).toEqual(['h', 'y.z']);
    expect(pathSegments('*.*.secrets[*].value')).toEqual(['*', '*', 'secrets', '*', 'value']);
  });
});

describe('createLogger censors REDACT_PATHS structurally', () => {
  it('writes what pino’s redact option writes, line for line', () => {
    const lines = hostileLines();
    const log = (logger: pino.Logger) => {
      for (const line of lines) logger.info(line, 'line');
      logger.child({ token: 'bound', scope: { password: 'bp' }, keep: 'k' }).info({ n: 1 }, 'child');
    };
    const expected = linesOf(pinoRedacted, log);
    const got = linesOf(ours, log);
    expect(got).toEqual(expected);
    // Not a vacuous comparison: the secrets are in the input and out of both outputs.
    const text = JSON.stringify(got);
    for (const secret of [
      'k1',
      'k2',
      'k3',
      'k4',
      'k5',
      'v1',
      'v2',
      'v3',
      'v4',
      'v6',
      's3cr3t-data',
      'bound',
      'bp',
    ])
      expect(text).not.toContain(`"${secret}"`);
    expect(got[12]?.err).toMatchObject({ message: 'boom', data: CENSOR, code: 'X', type: 'Error' });
    expect(got[14]).toMatchObject({ deep: { a: { b: { token: 'kept' } } } });
  });

  it('censors the bindings of a child of a child, as pino’s redact option does', () => {
    const log = (logger: pino.Logger) =>
      logger
        .child({ component: 'agent' })
        .child({ token: 'grandchild-token', req: { headers: { 'x-api-key': 'grandchild-key' } } })
        .info({ n: 2 }, 'grandchild');
    const got = linesOf(ours, log);
    expect(got).toEqual(linesOf(pinoRedacted, log));
    expect(got[0]).toMatchObject({ component: 'agent', token: CENSOR, n: 2 });
    expect(JSON.stringify(got)).not.toContain('grandchild-');
  });

  it('leaves the caller’s objects as they were', () => {
    const lines = hostileLines();
    const before = JSON.stringify(lines);
    const logger = createLogger({
      level: 'debug',
      destination: new Writable({ write: (_c, _e, cb) => cb() }),
    });
    for (const line of lines) logger.info(line, 'line');
    expect(JSON.stringify(lines)).toBe(before);
  });
});

describe('fieldRedactor', () => {
  it('returns the very object when no path is present (no copy for an ordinary line)', () => {
    const redact = fieldRedactor(REDACT_PATHS, CENSOR);
    const line = {
      deploymentId: 'd',
      revisionId: 'r',
      changes: 'created 8',
      durationMs: 3,
      result: 'success',
    };
    expect(redact(line)).toBe(line);
    const censored = redact({ ...line, nested: { token: 't' } });
    expect(censored).toEqual({ ...line, nested: { token: CENSOR } });
  });
});
