import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { validate, ValidationSeverity } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/render-deploy.ts';
import { EMULATOR_PACKAGES } from '../../src/cli/emulator.ts';
import { importGraph, notInProductionInstall } from '../support/import-graph.ts';

const text = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
const dockerfile = DockerfileParser.parse(text);
const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Instructions of the last stage (the image that ships). */
function finalStage(): Instruction[] {
  const froms = dockerfile.getFROMs();
  const start = froms[froms.length - 1]!.getRange().start.line;
  return dockerfile.getInstructions().filter((i) => i.getRange().start.line >= start);
}

function args(instruction: Instruction | undefined): string[] {
  return (instruction?.getArguments() ?? []).map((a) => a.getValue());
}

function ofKind(instructions: Instruction[], keyword: string): Instruction[] {
  return instructions.filter((i) => i.getKeyword() === keyword);
}

describe('Dockerfile', () => {
  it('passes the dockerfile-utils linter with every optional check as an error', () => {
    const strict = {
      deprecatedMaintainer: ValidationSeverity.ERROR,
      directiveCasing: ValidationSeverity.ERROR,
      emptyContinuationLine: ValidationSeverity.ERROR,
      instructionCasing: ValidationSeverity.ERROR,
      instructionCmdMultiple: ValidationSeverity.ERROR,
      instructionEntrypointMultiple: ValidationSeverity.ERROR,
      instructionHealthcheckMultiple: ValidationSeverity.ERROR,
      instructionJSONInSingleQuotes: ValidationSeverity.ERROR,
      instructionWorkdirRelative: ValidationSeverity.ERROR,
    };
    expect(validate(text, strict).map((d) => `line ${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
    // The linter is live: a broken file is reported.
    expect(validate('FROM node:24-slim\nEXPOSE http\nWORKDIR app\n', strict).length).toBeGreaterThanOrEqual(
      2,
    );
  });

  it('is multi-stage on a Node 24 slim base', () => {
    const froms = dockerfile.getFROMs();
    expect(froms.length).toBeGreaterThanOrEqual(2);
    const base = dockerfile
      .getInitialARGs()
      .find((a) => a.getProperty()?.getName() === 'NODE_IMAGE')
      ?.getProperty()
      ?.getValue();
    // The tag for the reader, the digest for the build: the image a tag names can change.
    expect(base).toMatch(/^node:24-slim@sha256:[0-9a-f]{64}$/);
    const digest = base!.split('@')[1];
    const labels = ofKind(dockerfile.getInstructions(), 'LABEL')
      .map((l) => l.getRawArgumentsContent())
      .join(' ');
    expect(labels).toContain(`org.opencontainers.image.base.digest="${digest}"`);
    expect(labels).toContain('org.opencontainers.image.base.name="docker.io/library/node:24-slim"');
    // Every stage starts from the one pinned base (a Dockerfile variable, not a JS template).
    const variable = ['$', '{NODE_IMAGE}'].join('');
    for (const from of froms) expect(from.getImageName()).toBe(variable);
  });

  it('installs production dependencies only, from the lock file', () => {
    const runs = dockerfile.getInstructions().filter((i) => i.getKeyword() === 'RUN');
    const install = runs.map((r) => args(r).join(' ')).find((r) => r.includes('npm ci'));
    expect(install).toMatch(/npm ci --omit=dev/);
    expect(install).toMatch(/--ignore-scripts/);
  });

  it('runs `mooring run` as uid 65532, the chart runAsUser', () => {
    const stage = finalStage();
    expect(args(ofKind(stage, 'USER').at(-1))).toEqual(['65532:65532']);
    const entrypoint = ofKind(stage, 'ENTRYPOINT');
    expect(entrypoint).toHaveLength(1);
    expect(entrypoint[0]!.getRawArgumentsContent()).toBe('["node", "/app/bin/mooring.js"]');
    expect(ofKind(stage, 'CMD')[0]!.getRawArgumentsContent()).toBe('["run"]');
    expect(args(ofKind(stage, 'EXPOSE')[0])).toEqual(['8080']);
  });

  it('carries the OCI labels', () => {
    const labels = ofKind(finalStage(), 'LABEL')
      .map((l) => l.getRawArgumentsContent())
      .join(' ');
    for (const key of ['title', 'description', 'version', 'revision', 'created', 'licenses', 'source']) {
      expect(labels).toContain(`org.opencontainers.image.${key}=`);
    }
  });

  it('copies only what exists and what .dockerignore lets through', () => {
    const ignore = readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8');
    const copies = dockerfile
      .getCOPYs()
      .filter((c) => !c.getFlags().some((f) => f.getName() === 'from'))
      .flatMap((c) => args(c).slice(0, -1));
    expect(copies.sort()).toEqual(['bin', 'package-lock.json', 'package.json', 'package.json', 'src']);
    for (const source of copies) {
      expect(existsSync(path.join(repoRoot, source)), source).toBe(true);
      const allowed = statSync(path.join(repoRoot, source)).isDirectory() ? `!${source}/` : `!${source}`;
      expect(ignore.split('\n'), source).toContain(allowed);
    }
    // Exclude everything first, then let the listed paths back in (later lines win).
    expect(ignore.split('\n').find((l) => l && !l.startsWith('#'))).toBe('**');
  });
});

/** Bare package names imported by the files under `dir` (static and dynamic imports). */
function importedPackages(dir: string, skip?: string): Set<string> {
  const found = new Set<string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(ts|js)$/.test(entry.name)) continue;
    if (skip && path.join(entry.parentPath, entry.name).startsWith(skip + path.sep)) continue;
    const source = readFileSync(path.join(entry.parentPath, entry.name), 'utf8');
    const specs = [
      ...source.matchAll(/^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/gm),
      ...source.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
      ...source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
    ].map((m) => m[1]!);
    for (const spec of specs) {
      if (spec.startsWith('.') || spec.startsWith('/')) continue;
      if (spec.startsWith('node:') || builtinModules.includes(spec)) continue;
      const parts = spec.split('/');
      found.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
    }
  }
  return found;
}

describe('the image runs without devDependencies', () => {
  const sandboxDir = path.join(repoRoot, 'src', 'sandbox');

  it('imports from bin/ and src/ (but the emulator) only packages listed in dependencies', () => {
    const used = new Set([
      ...importedPackages(path.join(repoRoot, 'src'), sandboxDir),
      ...importedPackages(path.join(repoRoot, 'bin')),
    ]);
    expect(used.size).toBeGreaterThan(3);
    const missing = [...used].filter((name) => !(name in pkg.dependencies));
    expect(missing, 'imported at run time but not in dependencies (npm ci --omit=dev drops them)').toEqual(
      [],
    );
  });

  it('keeps the emulator-only packages out of dependencies, and the list of them true', () => {
    const emulatorOnly = [...importedPackages(sandboxDir)].filter((name) => !(name in pkg.dependencies));
    expect(emulatorOnly.sort()).toEqual([...EMULATOR_PACKAGES].sort());
    for (const name of EMULATOR_PACKAGES) {
      expect(pkg.devDependencies, name).toHaveProperty([name]);
      expect(pkg.dependencies, name).not.toHaveProperty([name]);
    }
  });

  it('reaches the emulator only through the loader, by a dynamic import', () => {
    const reach: string[] = [];
    for (const dir of ['src', 'bin']) {
      for (const entry of readdirSync(path.join(repoRoot, dir), { recursive: true, withFileTypes: true })) {
        const file = path.join(entry.parentPath, entry.name);
        if (!entry.isFile() || file.startsWith(sandboxDir + path.sep)) continue;
        const source = readFileSync(file, 'utf8');
        const value = /^\s*import\s+(?!type\b)[^;]*?from\s*['"][^'"]*\/sandbox\/[^'"]+['"]/m.test(source);
        const dynamic = /\bimport\(\s*['"][^'"]*\/sandbox\/[^'"]+['"]\s*\)/.test(source);
        if (value || dynamic) reach.push(`${path.relative(repoRoot, file)}${dynamic ? ' (dynamic)' : ''}`);
      }
    }
    expect(reach).toEqual([path.join('src', 'cli', 'emulator.ts') + ' (dynamic)']);
  });

  /** What `mooring run` loads: bin/, the dispatcher, and of the lazily loaded commands only run. */
  const runGraph = () =>
    importGraph([path.join(repoRoot, 'bin', 'mooring.js')], {
      [path.join(repoRoot, 'src', 'cli', 'index.ts')]: ['./run.ts'],
    });
  const lock = JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };

  it('mooring run loads only packages the production install of the lock file holds', () => {
    const { files, packages } = runGraph();
    expect(files).toContain(path.join(repoRoot, 'src', 'cli', 'run.ts'));
    expect(packages).toEqual(expect.arrayContaining(['pino', 'undici', 'prom-client', 'zod']));
    expect(notInProductionInstall(packages, lock), 'npm ci --omit=dev leaves them out').toEqual([]);
    for (const name of packages) expect(pkg.dependencies, name).toHaveProperty([name]);
  });

  it('mooring run loads only files the image copies, and nothing of the emulator', () => {
    const copied = dockerfile
      .getCOPYs()
      .filter((c) => !c.getFlags().some((f) => f.getName() === 'from'))
      .flatMap((c) => args(c).slice(0, -1));
    for (const file of runGraph().files) {
      const top = path.relative(repoRoot, file).split(path.sep)[0]!;
      expect(copied, path.relative(repoRoot, file)).toContain(top);
      expect(file.startsWith(sandboxDir + path.sep), file).toBe(false);
    }
  });

  it('the shipped stage takes node_modules from the stage that ran npm ci --omit=dev', () => {
    const installStage = dockerfile.getFROMs().find((from) => {
      const start = from.getRange().start.line;
      return dockerfile
        .getInstructions()
        .some(
          (i) =>
            i.getKeyword() === 'RUN' &&
            i.getRange().start.line > start &&
            /npm ci --omit=dev/.test(i.getRawArgumentsContent() ?? ''),
        );
    });
    const stageName = installStage?.getBuildStage();
    expect(stageName).toBeTruthy();
    const fromInstall = dockerfile
      .getCOPYs()
      .filter((c) => c.getFlags().some((f) => f.getName() === 'from' && f.getValue() === stageName))
      .map((c) => args(c));
    expect(fromInstall).toContainEqual(['/app/node_modules', './node_modules']);
  });

  it('the reachability check catches a development-only package', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mooring-graph-'));
    try {
      writeFileSync(path.join(dir, 'entry.ts'), "import { helper } from './helper.ts';\nhelper();\n");
      writeFileSync(
        path.join(dir, 'helper.ts'),
        "import type { Arbitrary } from 'vitest';\nexport const helper = async () => (await import('fast-check')).default;\n",
      );
      const { packages } = importGraph([path.join(dir, 'entry.ts')]);
      expect(packages).toEqual(['fast-check']);
      expect(notInProductionInstall(packages, lock)).toEqual(['fast-check']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
