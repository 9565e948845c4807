import { ensureTools } from '../scripts/install-tools.ts';

/** Installs the pinned helm and kubectl once per test run (idempotent, sha256-checked). */
export default function setup(): void {
  ensureTools((line) => process.stdout.write(`${line}\n`));
}
