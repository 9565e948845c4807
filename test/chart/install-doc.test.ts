/**
 * docs/install.md shows what a mistaken install prints: Helm stops at the values schema with every
 * refusal listed, and only once the schema passes do the chart's own checks speak. Each example
 * block is what real `helm install` prints for the values that produce it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { installDryRun } from './helm.ts';

const doc = readFileSync(new URL('../../docs/install.md', import.meta.url), 'utf8');
const section = doc.slice(doc.indexOf('Helm checks the values'), doc.indexOf('## 4. Check it'));
const blocks = [...section.matchAll(/```\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());

const BASE = {
  controlPlane: { url: 'https://cp.example.com' },
  listenerId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
};

/** What helm prints on stderr, without its deprecation and warning lines. */
function errorOf(values: Record<string, unknown>): string {
  const res = installDryRun([values]);
  expect(res.status).not.toBe(0);
  return res.stderr
    .split('\n')
    .filter((l) => !l.startsWith('level=') && !l.startsWith('WARNING'))
    .join('\n')
    .trim();
}

describe('docs/install.md: what a mistaken install prints', () => {
  it('shows two outputs, one per step', () => {
    expect(blocks).toHaveLength(2);
  });

  it('the schema step lists every refusal and stops', () => {
    expect(errorOf({ ...BASE, namespaces: ['Mooring_Apps'], pollInterval: 5 })).toBe(blocks[0]);
  });

  it("the chart's own checks run once the schema passes", () => {
    expect(errorOf({ ...BASE, namespaces: ['mooring-apps'] })).toBe(blocks[1]);
  });
});
