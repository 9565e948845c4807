/**
 * Figures the README states about the repository itself, held to the files they describe.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8').replaceAll(/\s+/g, ' ');

describe('the README', () => {
  it('gives the number of packages a production install holds, as the lock file has it', () => {
    const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
    };
    // Every installed package but the root that `npm ci --omit=dev` keeps.
    const production = Object.entries(lock.packages).filter(
      ([key, p]) => key !== '' && !p.dev && !p.devOptional,
    ).length;
    expect(readme).toMatch(
      /production install \(`npm ci --omit=dev`, what the image holds\) is \d+ packages/,
    );
    expect(readme).toContain(`is ${production} packages`);
  });
});
