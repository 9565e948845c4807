import { describe, expect, it } from 'vitest';
import { chooseRevision } from '../../src/reconcile/revision-choice.ts';

const ptr = { latest_revision_id: 'r2', active_revision_id: 'r1' };

describe('which revision runs', () => {
  it('runs the latest unless its status is non-runnable, then the active one', () => {
    expect(chooseRevision(ptr, { id: 'r2', status: 'DEPLOYED' }).revisionId).toBe('r2');
    expect(chooseRevision(ptr, { id: 'r2', status: 'SOMETHING_NEW' }).revisionId).toBe('r2');
    expect(chooseRevision(ptr).revisionId).toBe('r2');
    for (const status of ['BUILD_FAILED', 'DEPLOY_FAILED', 'CREATE_FAILED', 'SKIPPED', 'INTERRUPTED']) {
      const c = chooseRevision(ptr, { id: 'r2', status });
      expect(c.revisionId).toBe('r1');
      expect(c.reason).toContain(status);
    }
  });

  it('runs nothing when the failed latest is also the active one', () => {
    expect(
      chooseRevision(
        { latest_revision_id: 'r1', active_revision_id: 'r1' },
        { id: 'r1', status: 'BUILD_FAILED' },
      ).revisionId,
    ).toBeUndefined();
    expect(chooseRevision({ latest_revision_id: null, active_revision_id: null }).revisionId).toBeUndefined();
  });
});
