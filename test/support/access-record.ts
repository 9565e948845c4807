/**
 * Records what the agent asked of the sandbox Kubernetes API in one test's stack, for the RBAC
 * check at the end of a test run (test/global-setup.ts): every access the agent's requests need
 * (`verb group/resource @scope`, as test/chart/rbac-usage.ts writes them), one file per stack
 * under `test-output/rbac-usage/`. Only the agent's requests count (its User-Agent is
 * `mooring/<version> (<identity>)`); kubectl's and the tests' own do not.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { KubeApi, RequestRecord } from '../../src/sandbox/server.ts';
import { accessesOf } from '../chart/rbac-usage.ts';
import { REPO } from './agent-process.ts';

/** Where the per-stack records go; emptied when a test run starts. */
export const ACCESS_RECORD_DIR = path.join(REPO, 'test-output', 'rbac-usage');

/**
 * A request for the restart memo's ConfigMap (the chart's default name, or a shard's
 * `mooring-restart-memo-<i>`; a create names none).
 */
const isRestartMemo = (r: RequestRecord): boolean =>
  r.resource === 'configmaps' &&
  r.group === '' &&
  (r.name === undefined || /^mooring-restart-memo(-\d+)?$/.test(r.name));

/**
 * The accesses the agent's requests in `kube`'s log need, with the watched `namespaces` as one
 * scope. The Lease and the restart memo are put in the release namespace, where the chart's Role
 * for them is, whatever namespace a test gave them; the start-up check of a namespace counts as in a watched one (the
 * agent reads only those it is given, and a test may give it one the stack does not serve).
 */
export function agentAccesses(kube: Pick<KubeApi, 'requests'>, namespaces: readonly string[]): string[] {
  const scopes = { watched: namespaces, release: '' };
  const out = new Set<string>();
  for (const record of kube.requests()) {
    if (!(record.userAgent ?? '').startsWith('mooring/')) continue;
    for (const access of accessesOf(record, scopes)) {
      if (record.resource === 'leases' || isRestartMemo(record)) out.add(access.replace(/@.*$/, '@release'));
      else if (record.resource === 'namespaces') out.add(access.replace(/@.*$/, '@watched'));
      else out.add(access);
    }
  }
  return [...out].sort();
}

/** Writes the stack's agent accesses to a file of their own, inside a vitest run only. */
export function recordAgentAccesses(kube: Pick<KubeApi, 'requests'>, namespaces: readonly string[]): void {
  if (!process.env.VITEST) return;
  const accesses = agentAccesses(kube, namespaces);
  if (accesses.length === 0) return;
  mkdirSync(ACCESS_RECORD_DIR, { recursive: true });
  writeFileSync(path.join(ACCESS_RECORD_DIR, `${randomUUID()}.json`), `${JSON.stringify(accesses)}\n`);
}
