import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

describe('the license', () => {
  it('is the full Apache License 2.0 text that package.json and the image label name', () => {
    const text = readFileSync(path.join(ROOT, 'LICENSE'), 'utf8');
    expect(text).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
    // The whole text, not a pointer to it: the nine sections and the end of the terms.
    for (const section of [
      '1. Definitions.',
      '4. Redistribution.',
      '9. Accepting Warranty or Additional Liability.',
    ]) {
      expect(text).toContain(section);
    }
    expect(text).toContain('END OF TERMS AND CONDITIONS');
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { license: string };
    expect(pkg.license).toBe('Apache-2.0');
    expect(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')).toContain(
      'org.opencontainers.image.licenses="Apache-2.0"',
    );
  });
});
