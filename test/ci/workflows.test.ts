/**
 * The GitHub Actions workflows: each validates against the Actions schema (action-validator, run
 * from its bin as a contributor would), and each `uses:` names a commit, not a movable tag.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '../../scripts/render-deploy.ts';

const workflowDir = path.join(repoRoot, '.github', 'workflows');
const validatorBin = path.join(repoRoot, 'node_modules', '.bin', 'action-validator');

function workflows(): string[] {
  return readdirSync(workflowDir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => path.join(workflowDir, f));
}

/** Runs action-validator on one file: its exit status and what it printed. */
function validate(file: string): { status: number; output: string } {
  const res = spawnSync(validatorBin, [file], { encoding: 'utf8' });
  return { status: res.status ?? -1, output: `${res.stdout}${res.stderr}` };
}

/** Every `uses:` of a workflow: job-level (reusable workflows) and step-level. */
function usesOf(file: string): string[] {
  const doc = parse(readFileSync(file, 'utf8')) as {
    jobs: Record<string, { uses?: string; steps?: Array<{ uses?: string }> }>;
  };
  return Object.values(doc.jobs).flatMap((job) => [
    ...(job.uses ? [job.uses] : []),
    ...(job.steps ?? []).flatMap((s) => (s.uses ? [s.uses] : [])),
  ]);
}

/** The `uses:` values that are neither local (`./`) nor pinned to a full commit SHA. */
function unpinned(uses: string[]): string[] {
  return uses.filter((u) => !u.startsWith('./') && !/^[^@\s]+@[0-9a-f]{40}$/.test(u));
}

describe('GitHub Actions workflows', () => {
  it('are the CI and release workflows', () => {
    expect(workflows().map((f) => path.basename(f))).toEqual(['ci.yml', 'release.yml']);
  });

  it.each(workflows().map((f) => [path.basename(f), f]))(
    '%s validates against the Actions schema',
    (_, file) => {
      const res = validate(file);
      expect(res.output).toBe('');
      expect(res.status).toBe(0);
    },
  );

  it('a broken workflow is rejected by the validator', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mooring-workflow-'));
    try {
      const broken = path.join(dir, 'broken.yml');
      // A misspelt runs-on: the kind of slip review misses.
      writeFileSync(
        broken,
        'on: push\njobs:\n  a:\n    runs-onn: ubuntu-24.04\n    steps:\n      - run: true\n',
      );
      const res = validate(broken);
      expect(res.status).not.toBe(0);
      expect(res.output).toContain("Additional property 'runs-onn' is not allowed");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each(workflows().map((f) => [path.basename(f), f]))(
    '%s pins every action to a commit SHA',
    (_, file) => {
      const uses = usesOf(file);
      expect(uses.length).toBeGreaterThan(0);
      expect(unpinned(uses)).toEqual([]);
      // The version each SHA stands for is written beside it, for the reader and for updates.
      const text = readFileSync(file, 'utf8');
      for (const use of uses) expect(text, use).toMatch(new RegExp(`${use}\\s+# v\\d+\\.\\d+\\.\\d+`));
    },
  );

  it('the pin check refuses tags, branches and short SHAs, and lets local actions through', () => {
    expect(
      unpinned([
        'actions/checkout@v7',
        'actions/checkout@main',
        'actions/checkout@3d3c42e',
        'actions/checkout',
        './.github/actions/local',
        'actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1',
      ]),
    ).toEqual([
      'actions/checkout@v7',
      'actions/checkout@main',
      'actions/checkout@3d3c42e',
      'actions/checkout',
    ]);
  });
});
