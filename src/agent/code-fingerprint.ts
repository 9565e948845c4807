/**
 * A digest of the agent's own code: the sources that render, compare and apply objects, as the
 * running process reads them. The restart memo (restart-memo.ts) is trusted only by the code that
 * wrote it, since another build may render the same record differently; the package version
 * alone does not tell two builds of one version apart.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The sources directory (this file is in src/agent/). */
const SOURCES = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Programs of their own that the agent does not run. */
const LEFT_OUT: ReadonlySet<string> = new Set(['sandbox', 'control-plane']);

/**
 * The digest of every source file under src/ but the sandbox's and the control plane's, read anew
 * at each call: its caller keeps it (the restart memo keeper reads it once, when made).
 */
export async function codeFingerprint(): Promise<string> {
  const entries = await readdir(SOURCES, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile())
    .map((e) => relative(SOURCES, join(e.parentPath, e.name)))
    .filter((p) => !LEFT_OUT.has(p.split(/[\\/]/)[0] ?? ''))
    .sort();
  const digest = createHash('sha256');
  for (const file of files) digest.update(`${file}\u0000`).update(await readFile(join(SOURCES, file)));
  return digest.digest('base64url');
}
