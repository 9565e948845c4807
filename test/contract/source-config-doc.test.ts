import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { strict } from '../../src/contract/index.ts';

const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

/** The first cells of the SourceConfig table in docs/configuration.md. */
function documentedFields(): string[] {
  const start = doc.indexOf('### SourceConfig: what the agent reads');
  expect(start).toBeGreaterThanOrEqual(0);
  const section = doc.slice(start, doc.indexOf('\n### ', start + 1));
  return section
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .flatMap((l) => [...(l.split('|')[1] ?? '').matchAll(/`([a-z_]+)(?:\.[a-z0-9_]+)?`/g)].map((m) => m[1]!));
}

describe('docs/configuration.md says which SourceConfig fields the agent reads', () => {
  it('lists every field of the interface, and only those', () => {
    const fields = Object.keys(
      (strict.SourceConfig as unknown as { shape: Record<string, unknown> }).shape,
    ).sort();
    expect([...new Set(documentedFields())].sort()).toEqual(fields);
  });
});
