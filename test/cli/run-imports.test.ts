import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * The modules a fresh process evaluates when it loads `mooring run`, by file URL (node: built-ins
 * by name). A fresh process: vitest's own workers have loaded much of this already.
 */
function modulesOfRun(): string[] {
  const run = JSON.stringify(new URL('../../src/cli/run.ts', import.meta.url).href);
  const script = `
    import module from 'node:module';
    const seen = [];
    module.registerHooks({ load(u, context, next) { seen.push(u); return next(u, context); } });
    await import(${run});
    console.log(JSON.stringify(seen));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1) ?? '[]') as string[];
}

describe('what mooring run loads', () => {
  const loaded = modulesOfRun();

  it('loads the agent itself', () => {
    expect(loaded.some((u) => u.endsWith('/src/agent/agent.ts'))).toBe(true);
  });

  it('leaves the YAML parser unloaded until a kubeconfig or settings file needs it', () => {
    // 72 modules and about 2 MiB of resident memory an agent in its cluster never uses.
    expect(loaded.filter((u) => /\/node_modules\/yaml\//.test(u))).toEqual([]);
  });

  it('leaves the other commands and their dependencies unloaded', () => {
    const others = loaded.filter((u) =>
      /\/src\/(control-plane\/server|sandbox|check)\/|\/src\/render\/serialize\.ts$|^node:sqlite$/.test(u),
    );
    expect(others).toEqual([]);
  });
});
