/**
 * The import rules between folders, read from the import lines of the source: agent/ holds the
 * loop mechanics and reaches Kubernetes only through the resource manager and the observed-state
 * owner's interface; objects/ is a leaf that render, kube and agent share.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');

/** Every module a source text imports or re-exports, statically or dynamically. */
function importedSpecifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]/gms)) {
    out.push(m[1] as string);
  }
  for (const m of text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm)) out.push(m[1] as string);
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1] as string);
  return out;
}

/** Whether the import of `specifier` is type-only in `text` (`import type { ... } from`). */
function typeOnly(text: string, specifier: string): boolean {
  const quoted = specifier.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const all = [
    ...text.matchAll(new RegExp(`^\\s*(import|export)\\b([^;]*?)\\bfrom\\s*['"]${quoted}['"]`, 'gms')),
  ];
  return all.length > 0 && all.every((m) => /^\s*type\b/.test(m[2] as string));
}

/** Folder-relative target (e.g. `kube/resource-manager.ts`) of a relative import in `file`. */
function targetOf(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  return path
    .relative(SRC, path.resolve(path.dirname(file), specifier))
    .split(path.sep)
    .join('/');
}

/** The kube/ modules agent/ may import: the resource manager, and the observed-state owner's types. */
const AGENT_MAY_USE = new Map<string, 'any' | 'types'>([
  ['kube/resource-manager.ts', 'any'],
  // The observed-state owner (a cold start's page judge plugs into it). Its interface only:
  // agent/ does not run listings itself.
  ['kube/observed-state.ts', 'types'],
]);

/** The rule broken by each of `file`'s imports of kube/ (empty when it keeps to it). */
function agentViolations(file: string, text: string): string[] {
  const out = new Set<string>();
  for (const spec of importedSpecifiers(text)) {
    const target = targetOf(file, spec);
    if (!target?.startsWith('kube/')) continue;
    const allowed = AGENT_MAY_USE.get(target);
    if (allowed === 'any' || (allowed === 'types' && typeOnly(text, spec))) continue;
    out.add(`${path.relative(SRC, file)} imports ${target}`);
  }
  return [...out];
}

const sourcesOf = (folder: string) =>
  readdirSync(path.join(SRC, folder), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(SRC, folder, f));

describe('folder import rules', () => {
  it('agent/ imports nothing from kube/ but the resource manager and the observed-state interface', () => {
    const violations = sourcesOf('agent').flatMap((f) => agentViolations(f, readFileSync(f, 'utf8')));
    expect(violations).toEqual([]);
  });

  it('the rule sees a kube/ import, multi-line, re-exported or dynamic, and a value import of a type-only module', () => {
    const file = path.join(SRC, 'agent', 'example.ts');
    expect(
      agentViolations(
        file,
        [
          "import type { KubeHttp } from '../kube/http.ts';",
          "import {\n  resourcePath,\n} from '../kube/object-client.ts';",
          "export { servesKind } from '../kube/exposure-discovery.ts';",
          "const m = await import('../kube/lease.ts');",
          "import { previousEntries } from '../kube/slim-listing.ts';",
          "import { ResourceManager } from '../kube/resource-manager.ts';",
          "import type { PageJudge } from '../kube/slim-listing.ts';",
          "import type { PageJudge } from '../kube/observed-state.ts';",
        ].join('\n'),
      ).sort(),
    ).toEqual(
      [
        'agent/example.ts imports kube/exposure-discovery.ts',
        'agent/example.ts imports kube/http.ts',
        'agent/example.ts imports kube/lease.ts',
        'agent/example.ts imports kube/object-client.ts',
        'agent/example.ts imports kube/slim-listing.ts',
      ].sort(),
    );
  });

  it('objects/ is a leaf: it imports nothing from render/, kube/, reconcile/, agent/ or cli/', () => {
    const violations = sourcesOf('objects').flatMap((f) =>
      importedSpecifiers(readFileSync(f, 'utf8'))
        .map((s) => targetOf(f, s))
        .filter((t) => t !== undefined && /^(render|kube|reconcile|agent|cli)\//.test(t))
        .map((t) => `${path.relative(SRC, f)} imports ${t}`),
    );
    expect(violations).toEqual([]);
  });

  it('config/ knows no renderer: it imports nothing from render/, nor modules that do', () => {
    const importsOf = (file: string) =>
      importedSpecifiers(readFileSync(file, 'utf8'))
        .map((s) => targetOf(file, s))
        .filter((t): t is string => t !== undefined);
    const violations = sourcesOf('config').flatMap((f) =>
      importsOf(f)
        .filter(
          (t) =>
            t.startsWith('render/') ||
            (!t.startsWith('config/') && importsOf(path.join(SRC, t)).some((u) => u.startsWith('render/'))),
        )
        .map((t) => `${path.relative(SRC, f)} imports ${t}`),
    );
    expect(violations).toEqual([]);
  });

  it('agent/ holds no composition root: nothing in it builds the real clients', () => {
    const builders = sourcesOf('agent').filter((f) =>
      /\b(createKubeClient|new ControlPlaneClient|new ResourceManager)\b/.test(readFileSync(f, 'utf8')),
    );
    expect(builders.map((f) => path.relative(SRC, f))).toEqual([]);
  });

  it('no file in src/ is over 300 lines', () => {
    const long = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.split(path.sep).join('/'))
      .filter((f) => readFileSync(path.join(SRC, f), 'utf8').split('\n').length - 1 > 300);
    expect(long).toEqual([]);
  });
});
