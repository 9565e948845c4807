import { describe, expect, it } from 'vitest';
import { type RequestRecord, RequestLog } from '../../src/sandbox/request-log.ts';

const record = (i: number): RequestRecord => ({
  time: String(i),
  method: 'GET',
  path: `/api/v1/namespaces/ns/configmaps/c${i}`,
  verb: 'get',
  group: '',
  version: 'v1',
  resource: 'configmaps',
  name: `c${i}`,
  status: i % 2 === 0 ? 200 : 404,
  write: false,
  dryRun: false,
});

describe('RequestLog', () => {
  it('keeps the newest records up to its capacity, in order, however many came', () => {
    const log = new RequestLog({ capacity: 3 });
    for (let i = 0; i < 2; i++) log.add(record(i));
    expect(log.find().map((r) => r.name)).toEqual(['c0', 'c1']);
    for (let n = 2; n < 20; n++) {
      log.add(record(n));
      const names = Array.from({ length: Math.min(3, n + 1) }, (_, k) => `c${n - Math.min(2, n) + k}`);
      expect(log.find().map((r) => r.name)).toEqual(names);
    }
    // Filters see the same window: of c17, c18 and c19, only c18 answered 200.
    expect(log.find({ status: 200 }).map((r) => r.name)).toEqual(['c18']);
    log.clear();
    expect(log.find()).toEqual([]);
  });
});
