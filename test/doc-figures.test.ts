/**
 * No benchmark figure in docs/ is written by hand: each comes from a bench result, generated
 * between the operator guide's `sizing` markers (`npm run bench -- --sizing-from`). A figure
 * copied into the prose goes stale with the next change to the code, as the sizing figures did.
 * The ADRs are dated decision records and keep the measurements they were decided on; the
 * reliability page's figures are of the test suites it names, not of the benchmark.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SIZING_END, SIZING_START } from '../bench/lib/sizing.ts';

const DOCS = path.resolve(import.meta.dirname, '..', 'docs');
const NUMBER = /\b\d[\d.,]*(?:[–-]\d[\d.,]*)? ?(?:MiB|GiB|s|ms)(?![\w-])/;

/** Whether a line quotes a benchmark measurement: a number with a unit where bench figures live. */
function quotesBenchFigure(line: string): boolean {
  return (
    (/\b(?:bench(?:mark)?s?|measured)\b/i.test(line) && NUMBER.test(line)) ||
    (/RSS|cgroup|heap|resident/.test(line) && /\d[\d.,–]* ?(?:MiB|GiB)/.test(line)) ||
    /\d[\d.,–]* s of (?:agent )?CPU/.test(line)
  );
}

/** The lines of `text` outside the generated sizing block. */
function handWritten(text: string): string[] {
  const start = text.indexOf(SIZING_START);
  const end = text.indexOf(SIZING_END);
  const outside =
    start >= 0 && end > start ? text.slice(0, start) + text.slice(end + SIZING_END.length) : text;
  return outside.split('\n');
}

describe('benchmark figures in docs/', () => {
  it('are recognised', () => {
    expect(quotesBenchFigure('peaked at 201–202 MiB RSS instead of 213–246 MiB')).toBe(true);
    expect(quotesBenchFigure('the agent took 6.0–6.8 s of agent CPU per poll')).toBe(true);
    expect(quotesBenchFigure('in the benchmark the first apply comes 0.5 s after spawn')).toBe(true);
    expect(quotesBenchFigure('| API server | `cpu` | 1 | 1024 MiB |')).toBe(false);
    expect(quotesBenchFigure('503 when the loop is more than max(60 s, 3 poll intervals)')).toBe(false);
  });

  it.each(readdirSync(DOCS).filter((f) => f.endsWith('.md') && f !== 'reliability.md'))(
    '%s has none outside the generated sizing block',
    (file) => {
      const lines = handWritten(readFileSync(path.join(DOCS, file), 'utf8'));
      expect(lines.filter(quotesBenchFigure)).toEqual([]);
    },
  );

  it('a count of tests in docs/ is dated: the suite grows, the count stays of its day', () => {
    for (const file of readdirSync(DOCS).filter((f) => f.endsWith('.md'))) {
      const paragraphs = readFileSync(path.join(DOCS, file), 'utf8').split(/\n\s*\n/);
      for (const p of paragraphs.filter((p) => /\b\d[\d,]* tests\b/.test(p))) {
        expect(p, file).toMatch(/\b\d{4}-\d{2}-\d{2}\b/);
      }
    }
  });

  it('the operator guide has the generated sizing block, with the commit of each row', () => {
    const guide = readFileSync(path.join(DOCS, 'operator-guide.md'), 'utf8');
    const block = guide.slice(guide.indexOf(SIZING_START), guide.indexOf(SIZING_END));
    expect(block.length).toBeGreaterThan(SIZING_START.length);
    const rows = block.split('\n').filter((l) => /^\| \d/.test(l));
    for (const row of rows) expect(row).toMatch(/\| `[^`]+`, \d{4}-\d{2}-\d{2}, \d+ cores/);
  });
});
