import { describe, expect, it } from 'vitest';
import { allUnchanged, countActions, hasChanges, summarize } from '../../src/objects/change-set.ts';

describe('a change set of objects judged as listed, without an entry each', () => {
  it('counts them unchanged (regression: a restart judged as listed said "no objects")', () => {
    const cs = { entries: [], dryRun: false, unchangedUnlisted: 12 };
    expect(countActions(cs)).toEqual({ unchanged: 12 });
    expect(summarize(cs)).toBe('unchanged 12');
    expect(allUnchanged(cs)).toBe(true);
    expect(hasChanges(cs)).toBe(false);
  });
});
