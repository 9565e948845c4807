/**
 * The printers never fail on what an object holds: any JSON in spec, status, metadata or the
 * top-level fields gives a Table whose cells are strings or numbers, one per column, for every
 * kind. A CRD object (HTTPRoute) is stored with fields no schema checked, so `kubectl get` must
 * not turn a strange record into a 500.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RESOURCE_TYPES } from '../../src/sandbox/resources.ts';
import { humanDuration } from '../../src/sandbox/human-duration.ts';
import { toTable } from '../../src/sandbox/table.ts';
import type { StoredObject } from '../../src/sandbox/types.ts';

const NOW = new Date('2026-01-01T00:00:00Z');

describe('Table cells', () => {
  it.each(RESOURCE_TYPES.map((t) => t.kind).concat(['SomethingElse']))(
    '%s: arbitrary field values print as strings and numbers',
    (kind) => {
      const value = fc.jsonValue({ maxDepth: 4 });
      fc.assert(
        fc.property(
          fc.record({
            spec: value,
            status: value,
            data: value,
            type: value,
            subjects: value,
            involvedObject: value,
          }),
          fc.option(fc.dictionary(fc.string(), fc.string()), { nil: undefined }),
          (fields, annotations) => {
            const o = {
              apiVersion: 'v1',
              kind,
              metadata: {
                name: 'x',
                creationTimestamp: '2025-12-31T00:00:00Z',
                ...(annotations ? { annotations } : {}),
              },
              ...fields,
            } as StoredObject;
            const table = toTable(kind, [o], {}, NOW) as {
              columnDefinitions: unknown[];
              rows: { cells: unknown[] }[];
            };
            const cells = table.rows[0]?.cells ?? [];
            expect(cells).toHaveLength(table.columnDefinitions.length);
            for (const c of cells) expect(['string', 'number']).toContain(typeof c);
          },
        ),
        { numRuns: 150 },
      );
    },
  );

  it('ages are HumanDuration: two units while they matter, one after', () => {
    const s = 1000;
    const cases: [number, string][] = [
      [-3 * s, '<invalid>'],
      [-1 * s, '0s'],
      [119 * s, '119s'],
      [(3 * 60 + 5) * s, '3m5s'],
      [10 * 60 * s, '10m'],
      [(2 * 60 + 5) * 60 * s, '125m'],
      [(5 * 60 + 30) * 60 * s, '5h30m'],
      [30 * 3600 * s, '30h'],
      [(3 * 24 + 4) * 3600 * s, '3d4h'],
      [20 * 86400 * s, '20d'],
      [(2 * 365 + 10) * 86400 * s, '2y10d'],
      [9 * 365 * 86400 * s, '9y'],
    ];
    expect(cases.map(([ms]) => humanDuration(ms))).toEqual(cases.map(([, text]) => text));
  });
});
