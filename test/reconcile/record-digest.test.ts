/**
 * The record caches' invalidation rule: a `RecordDigests` digests and depth-checks each record
 * object once for its own life, and a record listed anew (a new object) is digested anew.
 */
import { describe, expect, it } from 'vitest';
import { desiredStateHash, RecordDigests, revisionDigest } from '../../src/reconcile/record-digest.ts';
import { deploymentRecord, R_LATEST, revisionRecord } from '../agent/revision-fixtures.ts';

describe('RecordDigests (digests kept per record object)', () => {
  it('digests a record object once for its life; a new object, or a new owner, digests anew', () => {
    const digests = new RecordDigests();
    const record = deploymentRecord('l');
    const first = digests.desiredStateHash(record, undefined);
    expect(first).toBe(desiredStateHash(record, undefined));
    // A parsed record is never changed: a change made in place anyway is not seen by its owner...
    record.name = 'renamed in place';
    expect(digests.desiredStateHash(record, undefined)).toBe(first);
    // ...but a record listed anew is a new object, and another owner keeps nothing of the first.
    expect(digests.desiredStateHash({ ...record }, undefined)).not.toBe(first);
    expect(new RecordDigests().desiredStateHash(record, undefined)).not.toBe(first);
  });

  it('keeps revision digests and depth checks by object too', () => {
    const digests = new RecordDigests();
    const revision = revisionRecord(R_LATEST, 'DEPLOYED');
    expect(digests.revisionDigest(revision)).toBe(revisionDigest(revision));
    expect(digests.tooDeep(revision)).toBe(false);
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 2_100; i++) {
      const next = {};
      deep.x = next;
      deep = next;
    }
    expect(digests.tooDeep(root)).toBe(true);
    expect(digests.tooDeep(root)).toBe(true);
  });
});
