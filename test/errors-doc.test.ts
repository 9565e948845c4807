import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/errors.ts';

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
