import { rmSync } from 'node:fs';
import { ensureTools } from '../scripts/install-tools.ts';
import { ACCESS_RECORD_DIR } from './support/access-record.ts';
import { ungrantedRecordedAccesses } from './support/rbac-run-check.ts';

/**
 * Installs the pinned helm and kubectl once per test run (idempotent, sha256-checked), and starts
 * the run's record of the agent's Kubernetes accesses empty; at the end, fails the run if the
 * agent used one the Helm chart does not grant.
 */
export default function setup(): () => void {
  ensureTools((line) => process.stdout.write(`${line}\n`));
  rmSync(ACCESS_RECORD_DIR, { recursive: true, force: true });
  return () => {
    const ungranted = ungrantedRecordedAccesses();
    if (ungranted.length > 0) {
      // An error thrown here is only logged (vitest still exits 0): set the exit code as well.
      process.exitCode = 1;
      throw new Error(
        `the agent used Kubernetes accesses the Helm chart's Roles do not grant: ${ungranted.join('; ')}`,
      );
    }
  };
}
