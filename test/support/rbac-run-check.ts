/**
 * The end-of-run half of the RBAC proof: the union of what the agent asked of the API server in
 * every stack of the run (test/support/access-record.ts) must be granted by the chart with every
 * option that grants more on (leader election, deleteVolumes, exposure of either kind). A suite that makes the agent use a
 * verb the chart lacks fails the run, whichever suite it is. Whether every granted verb is used
 * is test/integration/rbac-proof.test.ts's question: a partial run cannot answer it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chartInstall } from '../chart/chart-roles.ts';
import { RELEASE } from '../chart/helm.ts';
import { grantedAccesses } from '../chart/rbac-usage.ts';
import { ACCESS_RECORD_DIR } from './access-record.ts';

/** Accesses recorded in this run that the chart does not grant (empty when none were recorded). */
export function ungrantedRecordedAccesses(dir = ACCESS_RECORD_DIR): string[] {
  if (!existsSync(dir)) return [];
  const used = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    for (const access of JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as string[]) used.add(access);
  }
  if (used.size === 0) return [];
  const exposures = [
    { kind: 'ingress', ingressClassName: 'nginx' },
    { kind: 'httproute', gateway: { name: 'gateway', namespace: 'gateways' } },
  ];
  const granted = new Set<string>();
  for (const exposure of exposures) {
    const { roles } = chartInstall([
      {
        namespaces: ['apps'],
        leaderElection: { enabled: true },
        deleteVolumes: true,
        rendering: { exposure },
      },
    ]);
    for (const a of grantedAccesses(roles, { watched: ['apps'], release: RELEASE.namespace })) granted.add(a);
  }
  return [...used].filter((a) => !granted.has(a)).sort();
}
