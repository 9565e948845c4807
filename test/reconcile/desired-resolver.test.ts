/**
 * A resolver seeded with what a restart memo knew of final revisions (ADR 0010) reads none of them
 * to resolve: the status decides the choice and the digest the hash, the same hash a read would
 * give. The record is read only to render (`load`), once, and only when it is still the record
 * the memo knew.
 */
import { describe, expect, it } from 'vitest';
import { DesiredResolver, type KnownRevision } from '../../src/reconcile/desired-resolver.ts';
import { desiredStateHash, revisionDigest } from '../../src/reconcile/record-digest.ts';
import type { DeploymentRecord, RevisionRecord } from '../../src/contract/index.ts';
import { D1, deploymentRecord, R_ACTIVE, R_LATEST, revisionRecord } from '../agent/revision-fixtures.ts';

const record = (): DeploymentRecord => deploymentRecord('l');
const revision = revisionRecord;

function resolverOf(revisions: Record<string, RevisionRecord>, seed: KnownRevision[]) {
  const reads: string[] = [];
  const client = {
    getRevision: async (_d: string, id: string) => {
      reads.push(id);
      return structuredClone(revisions[id] as RevisionRecord);
    },
  };
  const resolver = new DesiredResolver(client, async () => new Map(seed.map((r) => [r.id, r])));
  return { resolver, reads };
}

const known = (r: RevisionRecord): KnownRevision => ({
  id: r.id,
  status: String(r.status),
  digest: revisionDigest(r),
});

describe('DesiredResolver seeded by a restart memo', () => {
  it('resolves without reading a revision the memo knew, to the hash a read gives; reads it once to render', async () => {
    const latest = revision(R_LATEST, 'DEPLOYED');
    const { resolver, reads } = resolverOf({ [R_LATEST]: latest }, [known(latest)]);
    const d = await resolver.resolve(record(), undefined, undefined);
    expect(reads).toEqual([]);
    expect(d.revision).toBeUndefined();
    expect(d.pendingRevision).toBe(R_LATEST);
    expect(d.hash).toBe(desiredStateHash(record(), latest));
    const [a, b] = await Promise.all([resolver.load(D1, R_LATEST), resolver.load(D1, R_LATEST)]);
    expect(a).toEqual(latest);
    expect(b).toEqual(latest);
    expect(reads).toEqual([R_LATEST]);
    // Read and final, it is held: the next poll resolves with the record itself.
    const again = await resolver.resolve(record(), undefined, undefined);
    expect(again.revision?.id).toBe(R_LATEST);
    expect(reads).toEqual([R_LATEST]);
    resolver.pruneCache([again]);
    expect(resolver.knownOf(D1)).toEqual([known(latest)]);
  });

  it('keeps no record of a deployment it is told not to retain (one waiting for memory), but keeps its revisions cached', async () => {
    const latest = revision(R_LATEST, 'DEPLOYED');
    const { resolver, reads } = resolverOf({ [R_LATEST]: latest }, []);
    const d = await resolver.resolve(record(), undefined, undefined);
    resolver.pruneCache([d], (id) => id !== D1);
    expect(resolver.knownOf(D1)).toEqual([]);
    await resolver.resolve(record(), undefined, undefined);
    expect(reads).toEqual([R_LATEST]);
  });

  it('a latest revision the memo knew as failed falls back to the active one, reading only that', async () => {
    const latest = revision(R_LATEST, 'DEPLOY_FAILED');
    const active = revision(R_ACTIVE, 'DEPLOYED');
    const { resolver, reads } = resolverOf({ [R_LATEST]: latest, [R_ACTIVE]: active }, [known(latest)]);
    const d = await resolver.resolve(record(), undefined, undefined);
    expect(d.revision?.id).toBe(R_ACTIVE);
    expect(reads).toEqual([R_ACTIVE]);
  });

  it('a revision that is not the record the memo knew is refused when read, and forgotten', async () => {
    const latest = revision(R_LATEST, 'DEPLOYED');
    const rewritten = { ...latest, source_revision_config: { image_uri: 'img:other' } } as RevisionRecord;
    const { resolver, reads } = resolverOf({ [R_LATEST]: rewritten }, [known(latest)]);
    const d = await resolver.resolve(record(), undefined, undefined);
    expect(d.pendingRevision).toBe(R_LATEST);
    await expect(resolver.load(D1, R_LATEST)).rejects.toThrow(/changed since the restart memo was written/);
    // The next poll reads it and hashes what it says.
    const again = await resolver.resolve(record(), undefined, undefined);
    expect(again.revision?.source_revision_config).toEqual({ image_uri: 'img:other' });
    expect(again.hash).toBe(desiredStateHash(record(), rewritten));
    expect(reads).toEqual([R_LATEST, R_LATEST]);
  });
});
