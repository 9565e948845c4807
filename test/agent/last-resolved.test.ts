/**
 * An unchanged record is taken as the last poll resolved it only where resolving it again would
 * give the same: its revisions final and cached, nothing refused by the listing or the resolver.
 */
import { describe, expect, it } from 'vitest';
import { LastResolved } from '../../src/agent/last-resolved.ts';
import type { DeploymentRecord, RevisionRecord } from '../../src/contract/index.ts';
import { DesiredResolver, type KnownRevision } from '../../src/reconcile/desired-resolver.ts';
import { revisionDigest } from '../../src/reconcile/record-digest.ts';
import { D1, deploymentRecord, R_ACTIVE, R_LATEST, revisionRecord } from './revision-fixtures.ts';

function resolverOf(revisions: RevisionRecord[], seed: KnownRevision[] = []) {
  const reads: string[] = [];
  const byId = new Map(revisions.map((r) => [r.id, r]));
  const client = {
    getRevision: async (_d: string, id: string) => {
      reads.push(id);
      return structuredClone(byId.get(id) as RevisionRecord);
    },
  };
  return { resolver: new DesiredResolver(client, async () => new Map(seed.map((k) => [k.id, k]))), reads };
}

describe('LastResolved', () => {
  it('takes the same record with final, cached revisions as it resolved: no read, the same hash', async () => {
    const { resolver, reads } = resolverOf([revisionRecord(R_LATEST, 'DEPLOYED')]);
    const record = deploymentRecord('l');
    const d = await resolver.resolve(record, undefined, undefined);
    const last = new LastResolved();
    last.keep([d], () => true);
    expect(last.reuse(record, false, resolver)).toBe(d);
    const again = await resolver.resolve(record, undefined, undefined);
    expect(again).toEqual(d);
    expect(reads).toEqual([R_LATEST]);
  });

  it('resolves again a record listed anew, one the listing refuses, or one not kept', async () => {
    const { resolver } = resolverOf([revisionRecord(R_LATEST, 'DEPLOYED')]);
    const record = deploymentRecord('l');
    const d = await resolver.resolve(record, undefined, undefined);
    const last = new LastResolved();
    last.keep([d], () => true);
    expect(last.reuse(structuredClone(record), false, resolver)).toBeUndefined();
    expect(last.reuse(record, true, resolver)).toBeUndefined();
    last.keep([d], (id) => id !== D1);
    expect(last.reuse(record, false, resolver)).toBeUndefined();
  });

  it('resolves again while the latest revision is still moving (it is read at every poll)', async () => {
    const { resolver, reads } = resolverOf([
      revisionRecord(R_LATEST, 'BUILDING'),
      revisionRecord(R_ACTIVE, 'DEPLOYED'),
    ]);
    const record = deploymentRecord('l');
    const d = await resolver.resolve(record, undefined, undefined);
    const last = new LastResolved();
    last.keep([d], () => true);
    expect(last.reuse(record, false, resolver)).toBeUndefined();
    await resolver.resolve(record, undefined, undefined);
    expect(reads.filter((id) => id === R_LATEST)).toHaveLength(2);
  });

  it('resolves again a revision the restart memo knew and nobody read, and never keeps a refusal', async () => {
    const latest = revisionRecord(R_LATEST, 'DEPLOYED');
    const memo = { id: R_LATEST, status: 'DEPLOYED', digest: revisionDigest(latest) };
    const { resolver } = resolverOf([latest], [memo]);
    const record = deploymentRecord('l');
    const d = await resolver.resolve(record, undefined, undefined);
    expect(d.pendingRevision).toBe(R_LATEST);
    const last = new LastResolved();
    last.keep([d], () => true);
    expect(last.reuse(record, false, resolver)).toBeUndefined();
    const refused = await resolver.resolve(record, 'an unsupported source', undefined);
    expect(refused.refused).toBeDefined();
    last.keep([refused], () => true);
    expect(last.reuse(record, false, resolver)).toBeUndefined();
  });

  it('takes again a deployment being deleted, or one with no revision at all, and never a refusal', async () => {
    const { resolver, reads } = resolverOf([]);
    const deleting = { ...deploymentRecord('l'), status: 'AWAITING_DELETE' } as DeploymentRecord;
    const bare = {
      ...deploymentRecord('l'),
      latest_revision_id: null,
      active_revision_id: null,
    } as DeploymentRecord;
    for (const record of [deleting, bare]) {
      const d = await resolver.resolve(record, undefined, undefined);
      expect(d.refused).toBeUndefined();
      expect(resolver.stillResolves(d)).toBe(true);
    }
    // Refused by the listing, a record with no revision would otherwise look like `bare` above.
    const refused = await resolver.resolve(bare, 'an unsupported source', undefined);
    expect(resolver.stillResolves(refused)).toBe(false);
    expect(reads).toEqual([]);
  });
});
