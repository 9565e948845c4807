/** What every chaos run (scaled or soak) must show, and the figures it prints. */
import { expect } from 'vitest';
import type { FencingBreach } from '../../support/shard-fencing.ts';
import type { ChaosOutcome } from './chaos-run.ts';

/** How many agent log lines carried each error code (what the agent went through). */
export function logCodes(o: ChaosOutcome): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of o.logs.lines()) {
    if (typeof line.code === 'string') counts[line.code] = (counts[line.code] ?? 0) + 1;
  }
  return counts;
}

export function summary(o: ChaosOutcome) {
  return {
    seed: o.seed,
    deployments: o.deployments,
    objects: o.report.expected,
    changes: o.changes,
    kills: o.kills,
    outages: o.outages.length,
    unexpectedExits: o.unexpectedExits.length,
    kubeRequests: o.kubeRequests,
    faultStatuses: o.faultStatuses,
    deletes: o.deletes.length,
    deleted: o.deletes.slice(0, 10).map((r) => `${r.resource}/${r.namespace}/${r.name} ${r.status}`),
    deletesOfDesired: o.deletesOfDesired.length,
    deletesDuringOutages: o.deletesDuringOutages.length,
    convergeMs: o.convergeMs,
    secretValuesSearched: o.secretValuesSearched,
    leakedSecrets: o.leakedSecrets.length,
    credentials: { watched: o.credentials.watched, changed: o.credentials.changed.length },
    logCodes: logCodes(o),
  };
}

export function expectChaosSurvived(
  o: ChaosOutcome,
  want: { kills: number; outages: number; changes: number },
): void {
  // The chaos happened as scheduled.
  expect(o.kills).toBe(want.kills);
  expect(o.outages.filter((w) => w.endedAt !== '')).toHaveLength(want.outages);
  expect(o.changes).toBe(want.changes);
  for (const status of ['500', '429', '409']) expect(o.faultStatuses[status] ?? 0).toBeGreaterThan(0);
  // The agent only died when killed.
  expect(o.unexpectedExits).toEqual([]);
  // Every failure the chaos caused was told by its own code: none reached a log line as unexpected.
  const unexpected = o.logs.lines().filter((l) => l.code === 'MOORING_E_INTERNAL');
  expect(unexpected.map((l) => `${String(l.msg)}: ${JSON.stringify(l.err ?? null)}`)).toEqual([]);
  // The cluster is the desired state: every rendered object, nothing else, rendered fields equal.
  expect(o.report.missing, o.reportText).toEqual([]);
  expect(o.report.unexpected, o.reportText).toEqual([]);
  expect(o.report.different, o.reportText).toEqual([]);
  expect(o.report.live).toBe(o.report.expected);
  expect(o.convergeMs).not.toBeNull();
  // Through every error path the chaos opened, no secret value and not the API key was logged.
  expect(o.secretValuesSearched).toBeGreaterThan(o.deployments);
  expect(o.leakedSecrets.map((v) => `${v.slice(0, 6)}...`)).toEqual([]);
  // Every Postgres credentials Secret was created once and kept its password through the kills.
  expect(o.credentials.seen).toBe(o.credentials.watched);
  expect(o.credentials.changed).toEqual([]);
}

/**
 * A sharded run's fencing: every write of a deployment's object (at least `minWrites` of them) and
 * every namespace patch came from the holder of its shard's Lease at that moment, so no object was
 * written by two replicas in one term; and the kills moved shards (some Lease had several terms).
 */
export function expectFenced(o: ChaosOutcome, minWrites: number): void {
  const f = o.fencing;
  expect(f).toBeDefined();
  if (!f) return;
  const breach = (b: FencingBreach) =>
    `${b.object} by ${b.write.writer} at ${new Date(b.write.at).toISOString()} under ${b.lease} held by ${b.holders}`;
  expect(f.objects.checked).toBeGreaterThan(minWrites);
  expect(f.objects.unattributed).toEqual([]);
  expect(f.objects.breaches.map(breach)).toEqual([]);
  expect(f.objects.sharedTerms).toEqual([]);
  expect(f.namespaces.breaches.map(breach)).toEqual([]);
  expect(Math.max(...Object.values(f.termsPerShard))).toBeGreaterThan(1);
}
