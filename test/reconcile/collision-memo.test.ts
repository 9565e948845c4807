import { describe, expect, it } from 'vitest';
import type { DeploymentRecord } from '../../src/contract/index.ts';
import { CollisionMemo } from '../../src/reconcile/collision-memo.ts';
import { CustomUrls } from '../../src/render/url-claims.ts';
import { listedDeployment } from '../agent/fake-listing-server.ts';

const L = 'listener-1';

describe('CollisionMemo', () => {
  const urls = new CustomUrls();

  it('gives the last result again for the very same records, and derives anew when one changes', () => {
    const memo = new CollisionMemo();
    const records = [listedDeployment(L, 1), listedDeployment(L, 2), listedDeployment(L, 3)];
    const first = memo.of(records, {}, new Map(), urls);
    expect(first.refused.size).toBe(0);
    // A new array of the same record objects (the poller filters each listing anew).
    expect(memo.of([...records], {}, first.urlHolders, urls)).toBe(first);
    // A younger deployment renamed onto an older one's name: a new record object, refused.
    const renamed = { ...records[2]!, name: 'app-1', created_at: '2026-02-01T00:00:00Z' } as DeploymentRecord;
    const second = memo.of([records[0]!, records[1]!, renamed], {}, first.urlHolders, urls);
    expect(second).not.toBe(first);
    expect(second.refused.get(renamed.id)?.code).toBe('MOORING_E_RENDER_NAME_COLLISION');
  });

  it('derives anew while a deployment is being deleted (whether it holds its names is read from the cluster)', () => {
    const memo = new CollisionMemo();
    const deleting = { ...listedDeployment(L, 1), status: 'AWAITING_DELETE' } as DeploymentRecord;
    const younger = {
      ...listedDeployment(L, 2),
      name: 'app-1',
      created_at: '2026-02-01T00:00:00Z',
    } as DeploymentRecord;
    let holds = true;
    const rules = { holdsObjects: () => holds };
    const first = memo.of([deleting, younger], rules, new Map(), urls);
    expect(first.refused.has(younger.id)).toBe(true);
    holds = false;
    const second = memo.of([deleting, younger], rules, first.urlHolders, urls);
    expect(second.refused.has(younger.id)).toBe(false);
  });

  it('derives anew when exposure is turned on, or the URL holders are not its own', () => {
    const memo = new CollisionMemo();
    const records = [listedDeployment(L, 1), listedDeployment(L, 2)];
    let exposed = false;
    const rules = { urls: () => exposed };
    const first = memo.of(records, rules, new Map(), urls);
    exposed = true;
    const second = memo.of(records, rules, first.urlHolders, urls);
    expect(second).not.toBe(first);
    expect(memo.of(records, rules, new Map(), urls)).not.toBe(second);
  });
});
