import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { primeCompileCache } from '../../bench/lib/compile-cache.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fresh `.ts` module and a cache directory of its own. */
function fresh(): { module: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mooring-compile-cache-'));
  dirs.push(dir);
  const module = path.join(dir, 'probe.ts');
  writeFileSync(module, `const n: number = ${Date.now()};\nexport default n;\n`);
  return { module, env: { ...process.env, NODE_COMPILE_CACHE: path.join(dir, 'cache') } };
}

/** Whether a process that loads `module` as the agent does (cache on) loads the type stripper. */
function stripsTypes(module: string, env: NodeJS.ProcessEnv): boolean {
  const script = [
    "import m from 'node:module';",
    'm.enableCompileCache();',
    `await import(${JSON.stringify(pathToFileURL(module).href)});`,
    "console.log(process.moduleLoadList.some((l) => l.includes('amaro')));",
  ].join(' ');
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env,
    encoding: 'utf8',
  });
  return out.trim() === 'true';
}

describe('primeCompileCache', () => {
  it('leaves the next process of a changed module without the type stripper', () => {
    const unprimed = fresh();
    expect(stripsTypes(unprimed.module, unprimed.env)).toBe(true);

    const primed = fresh();
    primeCompileCache(process.execPath, primed.module, primed.env);
    expect(stripsTypes(primed.module, primed.env)).toBe(false);
  }, 60_000);
});
