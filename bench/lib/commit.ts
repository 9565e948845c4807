/**
 * The commit a run measures, so a figure quoted in the docs says which code it is of: the short
 * hash of HEAD, with `+dirty` when the work tree has uncommitted changes; null outside git.
 */
import { execFileSync } from 'node:child_process';

export function measuredCommit(cwd = process.cwd()): string | null {
  try {
    const git = (args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
    const head = git(['rev-parse', '--short', 'HEAD']);
    return git(['status', '--porcelain', '--untracked-files=no']) === '' ? head : `${head}+dirty`;
  } catch {
    return null;
  }
}
