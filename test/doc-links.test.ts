/**
 * Every relative link and file reference in the user-facing docs points at a file of the
 * repository: a page that cites a document users cannot open is a false claim.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const PAGES = [
  'README.md',
  'charts/mooring/README.md',
  'bench/README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...readdirSync(path.join(ROOT, 'docs', 'adr'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/adr/${f}`),
];

describe('links in the docs resolve', () => {
  it.each(PAGES)('%s', (page) => {
    const text = readFileSync(path.join(ROOT, page), 'utf8');
    const targets = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
      .map((m) => m[1]!)
      .filter((t) => !/^[a-z]+:/.test(t) && /^[\w./-]+$/.test(t));
    // Bare mentions of a markdown file (`interface.md`), outside links, must name one of ours too.
    const mentioned = [...text.matchAll(/(?<![\w/.(-])([\w-]+\.md)\b/g)].map((m) => m[1]!);
    const missing = targets.filter((t) => !existsSync(path.resolve(ROOT, path.dirname(page), t)));
    const unknown = mentioned.filter(
      (name) => !PAGES.some((p) => path.basename(p) === name) && !existsSync(path.join(ROOT, name)),
    );
    expect({ missing, unknown }).toEqual({ missing: [], unknown: [] });
  });
});
