/** `mooring --version` prints the package's version and exits 0. */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO } from '../support/agent-process.ts';

describe('mooring --version', () => {
  it('prints the version of package.json', async () => {
    const { version } = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
      version: string;
    };
    const { stdout } = await promisify(execFile)(
      path.join(REPO, 'node_modules', '.bin', 'node'),
      [path.join(REPO, 'bin', 'mooring.js'), '--version'],
      { cwd: REPO },
    );
    expect(stdout).toBe(`${version}\n`);
  });
});
