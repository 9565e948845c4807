import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorSpec } from '../src/errors.ts';

describe('docs/errors.md', () => {
  const doc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
  const documented = new Set([...doc.matchAll(/MOORING_E_[A-Z0-9_]+/g)].map((m) => m[0]));

  it('lists every error code the code defines', () => {
    const missing = Object.keys(ERROR_CODES).filter((c) => !documented.has(c));
    expect(missing).toEqual([]);
  });

  it('lists no code the code does not define', () => {
    const unknown = [...documented].filter((c) => !(c in ERROR_CODES));
    expect(unknown).toEqual([]);
  });
});

/** The "retried" column a code's spec implies: its own `handling`, else what retryability says. */
function retriedText(spec: ErrorSpec): string {
  if (spec.handling) return spec.handling;
  if (spec.retryable) return 'yes, with backoff';
  if (spec.untilResync) return 'at the next resync (parked until then, or until the desired state changes)';
  return 'no: parked until the desired state changes';
}

describe("docs/errors.md's columns", () => {
  const doc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
  const rows = doc
    .split('\n')
    .filter((l) => l.startsWith('| `MOORING_E_'))
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );

  it('has one row per code, in the order of src/errors.ts', () => {
    expect(rows.map((r) => r[0]!.replaceAll('`', ''))).toEqual(Object.keys(ERROR_CODES));
  });

  it.each(Object.entries(ERROR_CODES))(
    '%s: the meaning is the summary, the retried column its handling',
    (code, spec) => {
      const row = rows.find((r) => r[0] === `\`${code}\``);
      expect(row?.[1]).toBe(spec.summary);
      expect(row?.[2]).toBe(retriedText(spec));
    },
  );
});
