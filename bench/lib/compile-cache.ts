/**
 * The agent's modules put into Node's compile cache before a measured agent starts. The cache is
 * keyed by each file's content: the first process to load a changed `.ts` file strips its types
 * with Node's type stripper, which then stays loaded for that process's life, and the cache is
 * written only when the process exits. The warm-up's agent takes that hit; with `--skip-warmup`
 * this does instead, so that the measured agent of a changed commit starts as a deployed one
 * (whose image carries a compile cache) does (bench/README.md).
 */
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/**
 * Imports `entry` (a module's path) in a child `node` with the compile cache on, and lets it
 * exit. `env` is the child's environment (its `NODE_COMPILE_CACHE`, if any, names the cache).
 */
export function primeCompileCache(node: string, entry: string, env: NodeJS.ProcessEnv = process.env): void {
  const script = [
    "import m from 'node:module';",
    'm.enableCompileCache();',
    `await import(${JSON.stringify(pathToFileURL(entry).href)});`,
    'm.flushCompileCache();',
  ].join(' ');
  execFileSync(node, ['--input-type=module', '-e', script], { env, stdio: 'ignore', timeout: 120_000 });
}
