/**
 * The modules a command loads, found by following the import statements of the sources from an
 * entry file: what a production install must provide for that command to start and run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';

/** Files reached and bare packages they import (value imports only: `import type` is erased). */
export interface ImportGraph {
  files: string[];
  packages: string[];
}

/** Specifiers of value imports and re-exports, and of dynamic imports and requires of a literal string. */
function specifiers(source: string): string[] {
  return [
    ...source.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/gm),
    ...source.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
    ...source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
    // createRequire's require: some packages are loaded by a file of theirs, not their index.
    ...source.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]!);
}

/** The package a bare specifier names (`@scope/name` or `name`), or undefined for a builtin. */
function packageOf(spec: string): string | undefined {
  if (spec.startsWith('node:') || builtinModules.includes(spec)) return undefined;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * Follows imports from `entries`. `only` narrows what a file's dynamic imports may lead to (a
 * command table loads each command lazily: for one command, follow that one): file → the
 * relative specifiers followed there.
 */
export function importGraph(entries: string[], only: Record<string, string[]> = {}): ImportGraph {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    if (!existsSync(file)) throw new Error(`import of a missing file: ${file}`);
    files.add(file);
    const source = readFileSync(file, 'utf8');
    const allowed = only[file];
    for (const spec of specifiers(source)) {
      if (spec.startsWith('.')) {
        const isDynamic = source.includes(`import('${spec}')`) || source.includes(`import("${spec}")`);
        if (allowed && isDynamic && !allowed.includes(spec)) continue;
        queue.push(path.resolve(path.dirname(file), spec));
      } else if (!spec.startsWith('/')) {
        const name = packageOf(spec);
        if (name) packages.add(name);
      }
    }
  }
  return { files: [...files].sort(), packages: [...packages].sort() };
}

/** Names among `packages` that `npm ci --omit=dev` of this lock file does not install. */
export function notInProductionInstall(
  packages: string[],
  lock: { packages: Record<string, { dev?: boolean }> },
): string[] {
  return packages.filter((name) => {
    const entry = lock.packages[`node_modules/${name}`];
    return !entry || entry.dev === true;
  });
}
